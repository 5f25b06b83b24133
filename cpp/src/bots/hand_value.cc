#include "shuangkou/bots/hand_value.h"

#include <algorithm>
#include <bit>
#include <memory>

#include "shuangkou/core/rng.h"

namespace shuangkou {
namespace {

// Cost of a single, pair or triple by its rank (3..T, J, Q, K, A, 2, SJ, BJ):
// a low set needs a lead of its own, a high one usually wins its trick.
constexpr float kSetCost[kNumRanks] = {1, 1, 1, 1, 1, 1, 1, 1, 0.9f, 0.8f, 0.7f, 0.55f, 0.4f, 0.3f, 0.2f};
// Straights and chains are seldom beaten, but still need a lead.
constexpr float kChainCost = 0.6f;

float bomb_cost(int cards) { return -0.3f - 0.05f * static_cast<float>(cards - 4); }
float chain_bomb_cost(int ranks) { return -0.8f - 0.05f * static_cast<float>(ranks - 3); }

// Jokers left over once the naturals are split: `wild` unused wild jokers and
// the jokers that are not wild. Four jokers are the heavenly-king bomb, three
// the three-king bomb where the variant has it; otherwise high singles/pairs.
float joker_cost(int jokers, bool three_kings) {
  switch (jokers) {
    case 0:
      return 0.0f;
    case 1:
      return 0.25f;
    case 2:
      return 0.3f;
    case 3:
      return three_kings ? bomb_cost(4) - 0.4f : 0.55f;
    default:
      return bomb_cost(4) - 0.9f;
  }
}

// The memo key: the natural ranks 3..2 as nibbles (bits 0..51), the unused
// wild jokers (52..54), the non-wild small and big jokers (55..56, 57..58).
constexpr uint64_t kNaturalBits = (uint64_t{1} << (4 * kNumNaturalRanks)) - 1;
constexpr int kWildShift = 52;
constexpr uint64_t kOneWild = uint64_t{1} << kWildShift;

struct Entry {
  uint64_t key;
  uint32_t tag;  // the variant's parameters that change costs; 0: empty slot
  float cost;
};
constexpr int kCacheBits = 16;  // 65,536 entries, 1 MiB a thread

Entry* cache() {
  thread_local std::unique_ptr<Entry[]> table;
  if (!table) table.reset(new Entry[size_t{1} << kCacheBits]());
  return table.get();
}

struct Params {
  int max_bomb;
  bool chain_bomb;
  bool three_kings;
  uint32_t tag;
};

int nibble(uint64_t bits, int rank) { return static_cast<int>((bits >> (4 * rank)) & 0xF); }

// The least cost of splitting `key`'s cards. The lowest natural rank left
// must be in some group: a set of all its cards (raised by up to two wilds),
// or a straight, pair chain, triple chain or chain bomb starting there (its
// gaps filled by wilds); the rest is split recursively.
float solve(uint64_t key, const Params& p, Entry* table) {
  const uint64_t naturals = key & kNaturalBits;
  const int wild = static_cast<int>((key >> kWildShift) & 7);
  if (naturals == 0)
    return joker_cost(wild + static_cast<int>((key >> 55) & 3) + static_cast<int>((key >> 57) & 3),
                      p.three_kings);
  const uint64_t slot = mix64(key ^ p.tag) >> (64 - kCacheBits);
  if (table[slot].key == key && table[slot].tag == p.tag) return table[slot].cost;

  const int r = std::countr_zero(naturals) / 4;
  const int count = nibble(naturals, r);
  float best = 1e9f;
  // A set of every card of rank r, with k wilds added.
  const uint64_t without_r = key - (static_cast<uint64_t>(count) << (4 * r));
  for (int k = 0; k <= std::min(wild, 2); ++k) {
    const int total = count + k;
    if (total > p.max_bomb) break;
    const float group = total >= 4 ? bomb_cost(total) : kSetCost[r];
    best = std::min(best, group + solve(without_r - k * kOneWild, p, table));
  }
  // Chains starting at r: `width` cards a rank, gaps filled with wilds.
  if (r < kNumSequenceRanks) {
    constexpr int kMinLength[5] = {0, 5, 3, 3, 3};
    constexpr int kMaxLength[5] = {0, 12, 12, 12, 6};
    for (int width = 1; width <= (p.chain_bomb ? 4 : 3); ++width) {
      uint64_t taken = 0;
      int gaps = 0;
      for (int t = r; t < kNumSequenceRanks && t - r < kMaxLength[width]; ++t) {
        const int take = std::min(nibble(naturals, t), width);
        gaps += width - take;
        if (gaps > wild) break;
        taken += static_cast<uint64_t>(take) << (4 * t);
        const int length = t - r + 1;
        if (length < kMinLength[width]) continue;
        const float group = width == 4 ? chain_bomb_cost(length) : kChainCost;
        best = std::min(best, group + solve(key - taken - gaps * kOneWild, p, table));
      }
    }
  }
  table[slot] = {key, p.tag, best};
  return best;
}

}  // namespace

float group_cost(bool bomb, bool chain, int key, int size) {
  if (bomb) return chain ? chain_bomb_cost(size / 4) : bomb_cost(size);
  return chain ? kChainCost : kSetCost[key];
}

float hand_cost(const Variant& v, CardCounts hand) {
  const int sj = hand.count(kSmallJoker), bj = hand.count(kBigJoker);
  int wild = 0, natural_sj = sj, natural_bj = bj;
  if (v.wild_jokers == WildJokers::kBigOnly) {
    wild = bj;
    natural_bj = 0;
  } else if (v.wild_jokers == WildJokers::kBoth) {
    wild = sj + bj;
    natural_sj = natural_bj = 0;
  }
  const uint64_t key = (hand.bits() & kNaturalBits) | static_cast<uint64_t>(wild) << kWildShift |
                       static_cast<uint64_t>(natural_sj) << 55 | static_cast<uint64_t>(natural_bj) << 57;
  const Params p{v.max_bomb, v.chain_bomb, v.three_kings,
                 0x80000000u | static_cast<uint32_t>(v.max_bomb) | (v.chain_bomb ? 16u : 0u) |
                     (v.three_kings ? 32u : 0u)};
  return solve(key, p, cache());
}

}  // namespace shuangkou
