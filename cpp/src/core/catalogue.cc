#include "shuangkou/core/catalogue.h"

#include <algorithm>
#include <array>

#include "shuangkou/core/cards.h"

namespace shuangkou {
namespace {

constexpr int kMaxCards = kHandSize;  // no pattern can hold more cards than a hand

constexpr uint64_t nibble(int rank, int count) { return static_cast<uint64_t>(count) << (4 * rank); }

// The reading of a run of `len` ranks topped by `top`, `per_rank` cards each.
CardCounts run_reading(int len, int top, int per_rank) {
  return CardCounts(spread_mask(((1u << len) - 1) << (top - len + 1)) * per_rank);
}

// Calls emit(bits) for the reading of each uneven chain bomb of `y` ranks
// from `bottom` up: counts 4..max_bomb per rank (an odometer, lowest rank
// fastest), not all equal, kMaxCards cards at most.
template <class Emit>
void for_each_uneven_run(int y, int bottom, int max_bomb, Emit& emit) {
  std::array<int, 6> c{};
  c.fill(4);
  while (true) {
    int total = 0;
    bool equal = true;
    uint64_t bits = 0;
    for (int j = 0; j < y; ++j) {
      total += c[j];
      equal &= c[j] == c[0];
      bits |= nibble(bottom + j, c[j]);
    }
    if (total <= kMaxCards && !equal) emit(bits);
    int j = 0;
    while (j < y && ++c[j] > max_bomb) c[j++] = 4;
    if (j == y) break;
  }
}

// Calls emit(bits) for the reading of every uneven chain bomb, in catalogue
// order: by ranks in the chain (3..6), then bottom rank, then counts.
template <class Emit>
void for_each_uneven_chain_bomb(int max_bomb, Emit emit) {
  for (int y = 3; y <= 6; ++y)
    for (int bottom = 0; bottom + y <= kNumSequenceRanks; ++bottom)
      for_each_uneven_run(y, bottom, max_bomb, emit);
}

}  // namespace

void ActionCatalogue::add(const Variant& v, Kind kind, CardCounts reading) {
  patterns_.push_back(make_play(v, kind, reading, reading));
}

ActionCatalogue::ActionCatalogue(const Variant& v) : max_bomb_(v.max_bomb) {
  patterns_.push_back(Play{});  // id 0: the pass
  base_[static_cast<int>(Kind::kSingle)] = size();
  for (int r = 0; r < kNumRanks; ++r) add(v, Kind::kSingle, CardCounts(nibble(r, 1)));
  base_[static_cast<int>(Kind::kPair)] = size();
  for (int r = 0; r < kNumRanks; ++r) add(v, Kind::kPair, CardCounts(nibble(r, 2)));
  base_[static_cast<int>(Kind::kTriple)] = size();
  for (int r = 0; r < kNumNaturalRanks; ++r) add(v, Kind::kTriple, CardCounts(nibble(r, 3)));
  auto sequences = [&](Kind kind, int per_rank, int min_len, std::array<int, 13>& bases) {
    base_[static_cast<int>(kind)] = size();
    for (int len = min_len; len <= kNumSequenceRanks && len * per_rank <= kMaxCards; ++len) {
      bases[len] = size();
      for (int top = len - 1; top <= kRankAce; ++top) add(v, kind, run_reading(len, top, per_rank));
    }
  };
  sequences(Kind::kStraight, 1, 5, straight_base_);
  sequences(Kind::kPairChain, 2, 3, pair_chain_base_);
  sequences(Kind::kTripleChain, 3, 3, triple_chain_base_);
  base_[static_cast<int>(Kind::kBomb)] = size();
  for (int r = 0; r < kNumNaturalRanks; ++r)
    for (int n = 4; n <= v.max_bomb; ++n) add(v, Kind::kBomb, CardCounts(nibble(r, n)));
  base_[static_cast<int>(Kind::kChainBomb)] = size();
  if (v.chain_bomb)
    for (int x = 4; x <= v.max_bomb; ++x)
      for (int y = 3; y <= 6 && x * y <= kMaxCards; ++y) {
        chain_bomb_base_[x][y] = size();
        for (int top = y - 1; top <= kRankAce; ++top) add(v, Kind::kChainBomb, run_reading(y, top, x));
      }
  base_[static_cast<int>(Kind::kUnevenChainBomb)] = size();
  if (v.uneven_chain) {
    for_each_uneven_chain_bomb(v.max_bomb, [&](uint64_t bits) {
      uneven_.emplace_back(bits, size());
      add(v, Kind::kUnevenChainBomb, CardCounts(bits));
    });
    std::sort(uneven_.begin(), uneven_.end());
  }
  base_[static_cast<int>(Kind::kThreeKings)] = size();
  if (v.three_kings) add(v, Kind::kThreeKings, CardCounts(nibble(kSmallJoker, 2) | nibble(kBigJoker, 1)));
  base_[static_cast<int>(Kind::kHeavenlyKings)] = size();
  add(v, Kind::kHeavenlyKings, CardCounts(nibble(kSmallJoker, 2) | nibble(kBigJoker, 2)));
}

int ActionCatalogue::id_of(const Play& p) const {
  if (is_pass(p)) return kPass;
  // The arithmetic below assumes a pattern of this catalogue's variant; a play
  // of another (a larger bomb, a kind this variant lacks) lands on some other
  // id or outside, so the answer is checked against the pattern stored there.
  const int id = index_of(p);
  if (id <= kPass || id >= size()) return -1;
  const Play& at = patterns_[id];
  if (at.kind != p.kind) return -1;
  const bool kings = p.kind == Kind::kThreeKings || p.kind == Kind::kHeavenlyKings;  // one pattern each
  return kings || at.reading == p.reading ? id : -1;
}

int ActionCatalogue::index_of(const Play& p) const {
  const int base = base_[static_cast<int>(p.kind)];
  switch (p.kind) {
    case Kind::kSingle:
    case Kind::kPair:
    case Kind::kTriple:
      return base + p.key;
    case Kind::kStraight:
      return straight_base_[p.size] + p.key - (p.size - 1);
    case Kind::kPairChain:
      return pair_chain_base_[p.size / 2] + p.key - (p.size / 2 - 1);
    case Kind::kTripleChain:
      if (p.size > kMaxCards) return -1;
      return triple_chain_base_[p.size / 3] + p.key - (p.size / 3 - 1);
    case Kind::kBomb:
      return base + p.key * (max_bomb_ - 3) + p.size - 4;
    case Kind::kChainBomb: {
      if (p.size > kMaxCards) return -1;
      const int x = p.reading.count(p.key), y = p.size / x;
      return chain_bomb_base_[x][y] + p.key - (y - 1);
    }
    case Kind::kUnevenChainBomb: {
      const auto it = std::lower_bound(uneven_.begin(), uneven_.end(), std::make_pair(p.reading.bits(), 0));
      return it != uneven_.end() && it->first == p.reading.bits() ? it->second : -1;
    }
    case Kind::kThreeKings:
    case Kind::kHeavenlyKings:
      return base;
  }
  return -1;
}

}  // namespace shuangkou
