#include "shuangkou/core/movegen.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>

#include "pattern_internal.h"

namespace shuangkou {
namespace {

constexpr uint32_t kSequenceRanks = (1u << kNumSequenceRanks) - 1;
constexpr int kNoPower = -1;

constexpr uint64_t nibble(int rank, int count) { return static_cast<uint64_t>(count) << (4 * rank); }

// Generates moves for one hand. Works on per-rank counts and count planes:
// plane[k] is the mask of natural ranks holding at least k cards.
class Generator {
 public:
  Generator(const Variant& v, CardCounts hand, MoveList& out) : v_(v), out_(out), hand_(hand) {
    for (int r = 0; r < kNumRanks; ++r) count_[r] = static_cast<uint8_t>(hand.count(r));
    sj_ = count_[kSmallJoker];
    bj_ = count_[kBigJoker];
    wild_sj_ = v.small_joker_wild() ? sj_ : 0;
    wild_bj_ = v.big_joker_wild() ? bj_ : 0;
    wilds_ = wild_sj_ + wild_bj_;
  }

  void singles(int min_key) {
    for (int r = min_key + 1; r < kNumRanks; ++r)
      if (count_[r]) emit(Kind::kSingle, nibble(r, 1), 0, nibble(r, 1), r, 1, 0);
  }

  void pairs(int min_key) {
    for (int r = min_key + 1; r < kNumNaturalRanks; ++r) {
      if (!count_[r] || count_[r] + wilds_ < 2) continue;
      const int natural = std::min<int>(2, count_[r]);
      emit(Kind::kPair, nibble(r, natural), 2 - natural, nibble(r, 2), r, 2, 0);
    }
    // Jokers-only pairs (docs/rules.md §3): SJ BJ is a pair of SJ where only BJ is
    // wild, a pair of BJ where both are.
    if (min_key < kSmallJoker) {
      if (sj_ == 2)
        emit_joker_pair(kSmallJoker, nibble(kSmallJoker, 2));
      else if (sj_ == 1 && bj_ && v_.wild_jokers == WildJokers::kBigOnly)
        emit_joker_pair(kSmallJoker, nibble(kSmallJoker, 1) | nibble(kBigJoker, 1));
    }
    if (min_key < kBigJoker) {
      if (bj_ == 2)
        emit_joker_pair(kBigJoker, nibble(kBigJoker, 2));
      else if (bj_ == 1 && sj_ && v_.wild_jokers == WildJokers::kBoth)
        emit_joker_pair(kBigJoker, nibble(kSmallJoker, 1) | nibble(kBigJoker, 1));
    }
  }

  void triples(int min_key) {
    for (int r = min_key + 1; r < kNumNaturalRanks; ++r) {
      if (!count_[r] || count_[r] + wilds_ < 3) continue;
      const int natural = std::min<int>(3, count_[r]);
      emit(Kind::kTriple, nibble(r, natural), 3 - natural, nibble(r, 3), r, 3, 0);
    }
  }

  // Straights (per_rank 1), pair chains (2), triple chains (3) of lengths
  // [min_len, max_len] with top above min_top.
  void sequences(Kind kind, int per_rank, int min_len, int max_len, int min_top) {
    const uint32_t planes[4] = {0, plane(1), per_rank > 1 ? plane(2) : 0, per_rank > 2 ? plane(3) : 0};
    for (int len = min_len; len <= max_len; ++len) {
      for (int top = std::max(len - 1, min_top + 1); top <= kRankAce; ++top) {
        const int bottom = top - len + 1;
        // Canonical: a wild bottom rank would read one rank higher, unless
        // the top is already the ace.
        if (!count_[bottom] && top != kRankAce) continue;
        const uint32_t window = window_mask(bottom, len);
        int have = 0;
        uint64_t naturals = 0;
        for (int k = 1; k <= per_rank; ++k) {
          have += std::popcount(window & planes[k]);
          naturals += spread_mask(window & planes[k]);
        }
        const int missing = per_rank * len - have;
        if (missing > wilds_) continue;
        emit(kind, naturals, missing, spread_mask(window) * per_rank, top, per_rank * len, 0);
      }
    }
  }

  // Every bomb with power above min_power (kNoPower: all).
  void bombs(int64_t min_power) {
    min_power_ = min_power;
    plain_bombs();
    if (v_.chain_bomb || v_.uneven_chain) chain_bombs();
    if (v_.three_kings && sj_ + bj_ >= 3) {
      const int small = std::min(2, sj_);
      const uint64_t cards = nibble(kSmallJoker, small) | nibble(kBigJoker, 3 - small);
      emit_bomb(Kind::kThreeKings, cards, 0, cards, kBigJoker, 3, 6);
    }
    if (sj_ == 2 && bj_ == 2) {
      const uint64_t cards = nibble(kSmallJoker, 2) | nibble(kBigJoker, 2);
      emit_bomb(Kind::kHeavenlyKings, cards, 0, cards, kBigJoker, 4, 7);
    }
  }

 private:
  void emit(Kind kind, uint64_t naturals, int wild, uint64_t reading, int key, int size, int stars) {
    emit_with_power(kind, naturals, wild, reading, key, size, stars, bomb_power(v_, kind, key, size, stars));
  }

  void emit_with_power(Kind kind, uint64_t naturals, int wild, uint64_t reading, int key, int size, int stars,
                       uint32_t power) {
    Play p;
    p.cards = CardCounts(naturals + wild_cards(wild));
    p.reading = CardCounts(reading);
    p.kind = kind;
    p.key = static_cast<uint8_t>(key);
    p.size = static_cast<uint8_t>(size);
    p.stars = static_cast<uint8_t>(stars);
    p.power = power;
    out_.push_back(p);
  }

  void emit_joker_pair(int joker, uint64_t cards) {
    emit(Kind::kPair, cards, 0, nibble(joker, 2), joker, 2, 0);
  }

  // A bomb whose cards need no wild substitution beyond `wild` jokers,
  // listed if it beats min_power_.
  void emit_bomb(Kind kind, uint64_t naturals, int wild, uint64_t reading, int key, int size, int stars) {
    const uint32_t power = bomb_power(v_, kind, key, size, stars);
    if (static_cast<int64_t>(power) <= min_power_) return;
    emit_with_power(kind, naturals, wild, reading, key, size, stars, power);
  }

  // Jokers standing in for `n` cards: wild SJ first, then wild BJ.
  uint64_t wild_cards(int n) const {
    const int small = std::min(n, wild_sj_);
    return nibble(kSmallJoker, small) + nibble(kBigJoker, n - small);
  }

  void plain_bombs() {
    for (uint32_t ranks = plane(std::max(1, 4 - wilds_)); ranks; ranks &= ranks - 1) {
      const int r = std::countr_zero(ranks);
      const int c = count_[r];
      const int largest = std::min(v_.max_bomb, c + wilds_);
      for (int size = 4; size <= largest; ++size) {
        const int natural = std::min(size, c);
        emit_bomb(Kind::kBomb, nibble(r, natural), size - natural, nibble(r, size), r, size, size);
      }
    }
  }

  // Equal and uneven chain bombs over windows of 3..6 sequence ranks whose
  // ranks the wilds held can all bring up to 4 cards.
  void chain_bombs() {
    const uint32_t reach4 = plane(4 - wilds_) & kSequenceRanks;
    uint32_t starts = reach4 & reach4 >> 1 & reach4 >> 2;  // 3-rank windows
    if (!starts) return;
    // shortfall[r]: wilds needed to bring ranks below r up to 4 cards each.
    std::array<int, kNumSequenceRanks + 1> shortfall{};
    for (int r = 0; r < kNumSequenceRanks; ++r) shortfall[r + 1] = shortfall[r] + std::max(0, 4 - count_[r]);
    for (; starts; starts &= starts - 1) {
      const int bottom = std::countr_zero(starts);
      for (int len = 3; len <= 6 && bottom + len <= kNumSequenceRanks; ++len) {
        if (shortfall[bottom + len] - shortfall[bottom] > wilds_) break;  // longer needs more
        if (v_.chain_bomb) equal_chain(bottom, len);
        if (v_.uneven_chain) {
          std::array<int, 6> counts{};
          uneven_chain(bottom, len, counts, 0, 0);
        }
      }
    }
  }

  void equal_chain(int bottom, int len) {
    for (int x = 4; x <= v_.max_bomb; ++x) {
      int deficit = 0;
      uint64_t naturals = 0;
      for (int j = 0; j < len; ++j) {
        const int c = count_[bottom + j];
        deficit += std::max(0, x - c);
        naturals += nibble(bottom + j, std::min(x, c));
      }
      if (deficit > wilds_) return;  // larger x needs more
      const uint64_t reading = spread_mask(window_mask(bottom, len)) * x;
      const int stars = v_.bomb_order == BombOrder::kStars ? x + len : x * len;
      offer_chain(Kind::kChainBomb, naturals, deficit, reading, bottom + len - 1, x * len, stars);
    }
  }

  // Chooses count[j] for rank bottom + j, depth first, pruning on wilds.
  void uneven_chain(int bottom, int len, std::array<int, 6>& counts, int j, int deficit) {
    if (j == len) {
      int lo = counts[0], hi = counts[0], size = 0;
      uint64_t naturals = 0, reading = 0;
      for (int i = 0; i < len; ++i) {
        lo = std::min(lo, counts[i]);
        hi = std::max(hi, counts[i]);
        size += counts[i];
        naturals += nibble(bottom + i, std::min<int>(counts[i], count_[bottom + i]));
        reading += nibble(bottom + i, counts[i]);
      }
      if (lo == hi) return;  // equal counts: a chain bomb, not uneven
      int stars = size;
      if (v_.bomb_order == BombOrder::kStars) stars = (v_.uneven_star == UnevenStar::kMin ? lo : hi) + len;
      offer_chain(Kind::kUnevenChainBomb, naturals, deficit, reading, bottom + len - 1, size, stars);
      return;
    }
    const int c = count_[bottom + j];
    for (int x = 4; x <= v_.max_bomb; ++x) {
      const int d = deficit + std::max(0, x - c);
      if (d > wilds_) break;
      counts[j] = x;
      uneven_chain(bottom, len, counts, j + 1, d);
    }
  }

  // A chain bomb whose cards use wilds may read higher as another chain bomb
  // of its kind; the reader decides (rare: needs wilds and a long chain).
  void offer_chain(Kind kind, uint64_t naturals, int wild, uint64_t reading, int key, int size, int stars) {
    const uint32_t power = bomb_power(v_, kind, key, size, stars);
    if (static_cast<int64_t>(power) <= min_power_) return;
    if (wild) {
      const CardCounts cards(naturals + wild_cards(wild));
      const auto read = read_kind(v_, analyse(v_, cards), kind);
      if (!read || read->reading.bits() != reading) return;
    }
    emit_with_power(kind, naturals, wild, reading, key, size, stars, power);
  }

  // Natural ranks holding at least k cards (k = 0: every natural rank).
  uint32_t plane(int k) const {
    constexpr uint32_t kNatural = (1u << kNumNaturalRanks) - 1;
    return k <= 0 ? kNatural : hand_.plane(k) & kNatural;
  }

  const Variant& v_;
  MoveList& out_;
  CardCounts hand_;
  std::array<uint8_t, kNumRanks> count_{};
  int sj_ = 0, bj_ = 0, wild_sj_ = 0, wild_bj_ = 0, wilds_ = 0;
  int64_t min_power_ = kNoPower;
};

}  // namespace

void MoveList::overflow() {
  throw std::length_error("MoveList capacity (" + std::to_string(kMaxMoves) + ") exceeded");
}

void generate_leads(const Variant& v, CardCounts hand, MoveList& out) {
  out.clear();
  Generator g(v, hand, out);
  g.singles(-1);
  g.pairs(-1);
  g.triples(-1);
  g.sequences(Kind::kStraight, 1, 5, kNumSequenceRanks, -1);
  g.sequences(Kind::kPairChain, 2, 3, kNumSequenceRanks, -1);
  g.sequences(Kind::kTripleChain, 3, 3, kNumSequenceRanks, -1);
  g.bombs(kNoPower);
}

void generate_follows(const Variant& v, CardCounts hand, const Play& previous, MoveList& out) {
  out.clear();
  Generator g(v, hand, out);
  const int key = previous.key;
  switch (previous.kind) {
    case Kind::kSingle:
      g.singles(key);
      break;
    case Kind::kPair:
      g.pairs(key);
      break;
    case Kind::kTriple:
      g.triples(key);
      break;
    case Kind::kStraight:
      g.sequences(Kind::kStraight, 1, previous.size, previous.size, key);
      break;
    case Kind::kPairChain:
      g.sequences(Kind::kPairChain, 2, previous.size / 2, previous.size / 2, key);
      break;
    case Kind::kTripleChain:
      g.sequences(Kind::kTripleChain, 3, previous.size / 3, previous.size / 3, key);
      break;
    default:
      break;
  }
  g.bombs(is_bomb(previous.kind) ? static_cast<int64_t>(previous.power) : kNoPower);
}

}  // namespace shuangkou
