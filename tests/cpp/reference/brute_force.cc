// Brute-force reference for the Shuangkou rules. See brute_force.h.
//
// Everything here is written for obviousness, not speed:
//  * a card set is read by trying every assignment of values 3..2 to its wild
//    jokers (as a multiset) and classifying each resulting count vector by the
//    definitions of docs/rules.md §4;
//  * canonical moves are found by listing every pattern by definition (kind +
//    per-rank counts), realising it from the hand (naturals, then wild SJ,
//    then wild BJ) and keeping it iff the chosen cards read back as exactly
//    that pattern (docs/rules.md §14).
#include "brute_force.h"

#include <algorithm>
#include <stdexcept>

namespace skref {
namespace {

constexpr int kSJ = 13;
constexpr int kBJ = 14;
constexpr int kTwo = 12;  // highest natural rank a wild may stand for
constexpr int kAce = 11;  // highest sequence rank
constexpr int kNumKinds = 11;

int total(const Counts& c) {
  int n = 0;
  for (int x : c) n += x;
  return n;
}

int naturals(const Counts& c) {
  int n = 0;
  for (int r = 0; r <= kTwo; ++r) n += c[r];
  return n;
}

bool sj_wild(const RefVariant& v) { return v.wild >= 2; }
bool bj_wild(const RefVariant& v) { return v.wild >= 1; }

// Classifies a reading made only of natural ranks 0..12 (jokers already
// substituted). Returns nullopt when the reading is no valid pattern.
// Fills kind, reading, key, stars, size (not cards).
std::optional<RefPlay> classify(const RefVariant& v, const Counts& r) {
  for (int i = kSJ; i <= kBJ; ++i)
    if (r[i] != 0) return std::nullopt;
  const int n = total(r);
  if (n == 0) return std::nullopt;
  int lo = -1, hi = -1;
  for (int i = 0; i <= kTwo; ++i) {
    if (r[i] > 0) {
      if (lo < 0) lo = i;
      hi = i;
    }
  }
  RefPlay p;
  p.reading = r;
  p.key = hi;
  p.size = n;
  p.stars = 0;

  if (lo == hi) {  // one rank
    if (n == 1) {
      p.kind = Kind::kSingle;
      return p;
    }
    if (n == 2) {
      p.kind = Kind::kPair;
      return p;
    }
    if (n == 3) {
      p.kind = Kind::kTriple;
      return p;
    }
    if (n >= 4 && n <= v.max_bomb) {
      p.kind = Kind::kBomb;
      p.stars = n;  // both orders: stars = card count
      return p;
    }
    return std::nullopt;
  }

  // Several ranks: must be a run of consecutive sequence ranks, none missing.
  if (hi > kAce) return std::nullopt;
  for (int i = lo; i <= hi; ++i)
    if (r[i] == 0) return std::nullopt;
  const int y = hi - lo + 1;
  int cmin = r[lo], cmax = r[lo];
  for (int i = lo; i <= hi; ++i) {
    if (r[i] < cmin) cmin = r[i];
    if (r[i] > cmax) cmax = r[i];
  }
  const bool equal = (cmin == cmax);
  if (equal && cmin == 1 && y >= 5 && y <= 12) {
    p.kind = Kind::kStraight;
    return p;
  }
  if (equal && cmin == 2 && y >= 3) {
    p.kind = Kind::kPairChain;
    return p;
  }
  if (equal && cmin == 3 && y >= 3) {
    p.kind = Kind::kTripleChain;
    return p;
  }
  if (y >= 3 && y <= 6 && cmin >= 4 && cmax <= v.max_bomb) {
    if (equal && v.chain_bomb) {
      p.kind = Kind::kChainBomb;
      p.stars = v.bomb_order_stars ? cmin + y : n;
      return p;
    }
    if (!equal && v.uneven_chain) {
      p.kind = Kind::kUnevenChainBomb;
      p.stars = v.bomb_order_stars ? (v.uneven_star_max ? cmax : cmin) + y : n;
      return p;
    }
  }
  return std::nullopt;
}

// -1 / 0 / +1: order of two bombs under the variant's bomb order.
int bomb_cmp(const RefVariant& v, const RefPlay& a, const RefPlay& b) {
  const bool a3 = a.kind == Kind::kThreeKings, b3 = b.kind == Kind::kThreeKings;
  const bool ah = a.kind == Kind::kHeavenlyKings, bh = b.kind == Kind::kHeavenlyKings;
  if (v.bomb_order_stars) {
    if (a.stars != b.stars) return a.stars > b.stars ? 1 : -1;
    if (a3 != b3) return a3 ? -1 : 1;  // three kings: lowest of its stars
    if (ah != bh) {                    // heavenly kings: top or bottom of 7 stars
      const bool a_higher = (ah == v.tianwang_top);
      return a_higher ? 1 : -1;
    }
    if (a.size != b.size) return a.size < b.size ? 1 : -1;  // fewer cards wins
    if (a.key != b.key) return a.key > b.key ? 1 : -1;
    return 0;
  }
  // count order
  if (ah && bh) return 0;
  if (ah) return 1;
  if (bh) return -1;
  if (a.stars != b.stars) return a.stars > b.stars ? 1 : -1;
  if (a3 != b3) return a3 ? -1 : 1;
  if (a.key != b.key) return a.key > b.key ? 1 : -1;
  return 0;
}

// True iff a is a strictly higher reading than b; both of the same kind.
bool higher_reading(const RefVariant& v, const RefPlay& a, const RefPlay& b) {
  if (is_bomb(a.kind)) {
    const int c = bomb_cmp(v, a, b);
    if (c != 0) return c > 0;
  } else if (a.key != b.key) {
    return a.key > b.key;
  }
  // Tie: more cards at the higher rank wins, ranks compared from '2' down.
  for (int r = kTwo; r >= 0; --r)
    if (a.reading[r] != b.reading[r]) return a.reading[r] > b.reading[r];
  return false;
}

using Best = std::array<std::optional<RefPlay>, kNumKinds>;

void offer(const RefVariant& v, Best& best, const RefPlay& p) {
  auto& slot = best[static_cast<int>(p.kind)];
  if (!slot || higher_reading(v, p, *slot)) slot = p;
}

// Tries every multiset of `left` wild values >= `from` on top of `reading`.
void assign_wilds(const RefVariant& v, const Counts& cards, Counts& reading, int from, int left, Best& best) {
  if (left == 0) {
    if (auto p = classify(v, reading)) {
      p->cards = cards;
      offer(v, best, *p);
    }
    return;
  }
  for (int val = from; val <= kTwo; ++val) {
    ++reading[val];
    assign_wilds(v, cards, reading, val, left - 1, best);
    --reading[val];
  }
}

// Highest reading of `cards` per kind.
Best read_all(const RefVariant& v, const Counts& cards) {
  Best best;
  for (int x : cards)
    if (x < 0) return best;
  const int n = total(cards);
  if (n == 0) return best;
  const int s = cards[kSJ], b = cards[kBJ];

  if (naturals(cards) == 0) {  // jokers-only set, read naturally
    RefPlay p;
    p.cards = cards;
    p.size = n;
    p.stars = 0;
    if (n == 1) {
      p.kind = Kind::kSingle;
      p.reading = cards;
      p.key = (s == 1) ? kSJ : kBJ;
      offer(v, best, p);
    } else if (n == 2) {
      p.kind = Kind::kPair;
      if (s == 2 || b == 2) {
        p.reading = cards;
        p.key = (s == 2) ? kSJ : kBJ;
        offer(v, best, p);
      } else if (v.wild == 1) {  // SJ BJ, BJ wild: pair of small jokers
        p.reading[kSJ] = 2;
        p.key = kSJ;
        offer(v, best, p);
      } else if (v.wild == 2) {  // SJ BJ, both wild: pair of big jokers
        p.reading[kBJ] = 2;
        p.key = kBJ;
        offer(v, best, p);
      }
    } else if (n == 3) {
      if (v.three_kings) {
        p.kind = Kind::kThreeKings;
        p.reading = cards;
        p.key = kBJ;
        p.stars = 6;
        offer(v, best, p);
      }
    } else if (n == 4) {
      p.kind = Kind::kHeavenlyKings;
      p.reading = cards;
      p.key = kBJ;
      p.stars = 7;
      offer(v, best, p);
    }
    return best;
  }

  // Mixed set: every joker in it must be wild.
  if (s > 0 && !sj_wild(v)) return best;
  if (b > 0 && !bj_wild(v)) return best;
  Counts reading = cards;
  reading[kSJ] = 0;
  reading[kBJ] = 0;
  assign_wilds(v, cards, reading, 0, s + b, best);
  return best;
}

}  // namespace

RefVariant preset(const std::string& name) {
  RefVariant v;
  if (name == "classic") {
    v.wild = 0;
    v.max_bomb = 8;
    v.chain_bomb = false;
    v.uneven_chain = false;
    v.uneven_star_max = true;
    v.three_kings = false;
    v.bomb_order_stars = false;
    v.tianwang_top = true;
  } else if (name == "baibian" || name == "jj") {
    v.wild = 1;
    v.max_bomb = 8;
    v.chain_bomb = true;
    v.uneven_chain = false;
    v.uneven_star_max = true;
    v.three_kings = true;
    v.bomb_order_stars = true;
    v.tianwang_top = true;
  } else if (name == "qianbian") {
    v.wild = 2;
    v.max_bomb = 8;
    v.chain_bomb = true;
    v.uneven_chain = true;
    v.uneven_star_max = true;
    v.three_kings = true;
    v.bomb_order_stars = true;
    v.tianwang_top = true;
  } else if (name == "qianbian_collect") {
    v.wild = 2;
    v.max_bomb = 12;
    v.chain_bomb = true;
    v.uneven_chain = true;
    v.uneven_star_max = false;
    v.three_kings = true;
    v.bomb_order_stars = true;
    v.tianwang_top = false;
  } else {
    throw std::invalid_argument("skref::preset: unknown variant " + name);
  }
  return v;
}

bool is_bomb(Kind k) {
  return k == Kind::kBomb || k == Kind::kChainBomb || k == Kind::kUnevenChainBomb || k == Kind::kThreeKings ||
         k == Kind::kHeavenlyKings;
}

std::vector<RefPlay> all_readings(const RefVariant& v, const Counts& cards) {
  std::vector<RefPlay> out;
  for (const auto& p : read_all(v, cards))
    if (p) out.push_back(*p);
  return out;
}

std::optional<RefPlay> reading_as(const RefVariant& v, const Counts& cards, Kind kind) {
  return read_all(v, cards)[static_cast<int>(kind)];
}

bool beats(const RefVariant& v, const RefPlay& a, const RefPlay& b) {
  if (!is_bomb(b.kind)) {
    if (is_bomb(a.kind)) return true;
    return a.kind == b.kind && a.size == b.size && a.key > b.key;
  }
  if (!is_bomb(a.kind)) return false;
  return bomb_cmp(v, a, b) > 0;
}

namespace {

struct Generator {
  const RefVariant& v;
  const Counts& hand;
  int wild_sj = 0;  // wild SJ held
  int wild_bj = 0;  // wild BJ held
  std::vector<RefPlay> moves;

  Generator(const RefVariant& v_, const Counts& hand_) : v(v_), hand(hand_) {
    wild_sj = sj_wild(v) ? hand[kSJ] : 0;
    wild_bj = bj_wild(v) ? hand[kBJ] : 0;
  }
  int wilds() const { return wild_sj + wild_bj; }

  // Cards the hand lacks for reading r (over natural ranks).
  int deficit(const Counts& r) const {
    int d = 0;
    for (int i = 0; i <= kTwo; ++i)
      if (r[i] > hand[i]) d += r[i] - hand[i];
    return d;
  }

  // Realises a natural pattern: naturals first, then wild SJ, then wild BJ;
  // keeps it iff the chosen cards read as exactly this pattern of this kind.
  void try_natural(Kind kind, const Counts& r) {
    Counts cards{};
    int d = 0;
    for (int i = 0; i <= kTwo; ++i) {
      cards[i] = std::min(r[i], hand[i]);
      d += r[i] - cards[i];
    }
    if (naturals(cards) == 0) return;  // joker-only sets are read as jokers
    const int use_sj = std::min(d, wild_sj);
    d -= use_sj;
    const int use_bj = std::min(d, wild_bj);
    d -= use_bj;
    if (d > 0) return;
    cards[kSJ] = use_sj;
    cards[kBJ] = use_bj;
    auto p = reading_as(v, cards, kind);
    if (p && p->reading == r) moves.push_back(*p);
  }

  // Joker-only patterns: the given physical cards, kept iff they read as r.
  void try_jokers(Kind kind, const Counts& cards, const Counts& r) {
    if (cards[kSJ] > hand[kSJ] || cards[kBJ] > hand[kBJ]) return;
    auto p = reading_as(v, cards, kind);
    if (p && p->reading == r) moves.push_back(*p);
  }

  // Same count c on ranks lo..hi.
  static Counts run(int lo, int hi, int c) {
    Counts r{};
    for (int i = lo; i <= hi; ++i) r[i] = c;
    return r;
  }

  // Uneven chain bombs on ranks lo..hi: every count vector in [4, max_bomb],
  // pruned as soon as the hand cannot supply it.
  void uneven_rec(Counts& r, int lo, int hi, int i, int d) {
    if (i > hi) {
      bool equal = true;
      for (int j = lo; j <= hi; ++j)
        if (r[j] != r[lo]) equal = false;
      if (!equal) try_natural(Kind::kUnevenChainBomb, r);
      return;
    }
    for (int c = 4; c <= v.max_bomb; ++c) {
      const int dd = d + std::max(0, c - hand[i]);
      if (dd > wilds()) break;  // deficit only grows with c
      r[i] = c;
      uneven_rec(r, lo, hi, i + 1, dd);
      r[i] = 0;
    }
  }

  void generate() {
    // Singles, pairs, triples, bombs of natural ranks 3..2.
    for (int i = 0; i <= kTwo; ++i) {
      for (int c = 1; c <= 3; ++c) {
        Counts r{};
        r[i] = c;
        const Kind k = c == 1 ? Kind::kSingle : c == 2 ? Kind::kPair : Kind::kTriple;
        if (deficit(r) <= wilds()) try_natural(k, r);
      }
      for (int c = 4; c <= v.max_bomb; ++c) {
        Counts r{};
        r[i] = c;
        if (deficit(r) <= wilds()) try_natural(Kind::kBomb, r);
      }
    }
    // Sequences over windows lo..hi of sequence ranks 3..A.
    for (int lo = 0; lo <= kAce; ++lo) {
      for (int hi = lo; hi <= kAce; ++hi) {
        const int y = hi - lo + 1;
        if (y >= 5) {
          Counts r = run(lo, hi, 1);
          if (deficit(r) <= wilds()) try_natural(Kind::kStraight, r);
        }
        if (y >= 3) {
          Counts r2 = run(lo, hi, 2);
          if (deficit(r2) <= wilds()) try_natural(Kind::kPairChain, r2);
          Counts r3 = run(lo, hi, 3);
          if (deficit(r3) <= wilds()) try_natural(Kind::kTripleChain, r3);
        }
        if (y >= 3 && y <= 6) {
          if (v.chain_bomb) {
            for (int c = 4; c <= v.max_bomb; ++c) {
              Counts r = run(lo, hi, c);
              if (deficit(r) <= wilds()) try_natural(Kind::kChainBomb, r);
            }
          }
          if (v.uneven_chain) {
            Counts r{};
            uneven_rec(r, lo, hi, lo, 0);
          }
        }
      }
    }
    // Joker-only patterns.
    Counts one_sj{}, one_bj{};
    one_sj[kSJ] = 1;
    one_bj[kBJ] = 1;
    try_jokers(Kind::kSingle, one_sj, one_sj);
    try_jokers(Kind::kSingle, one_bj, one_bj);
    {  // pair of SJ: natural SJ first, then BJ where BJ is wild
      Counts r{};
      r[kSJ] = 2;
      Counts cards{};
      cards[kSJ] = std::min(2, hand[kSJ]);
      cards[kBJ] = 2 - cards[kSJ];
      if (cards[kBJ] == 0 || bj_wild(v)) try_jokers(Kind::kPair, cards, r);
    }
    {  // pair of BJ: natural BJ first, then SJ where SJ is wild
      Counts r{};
      r[kBJ] = 2;
      Counts cards{};
      cards[kBJ] = std::min(2, hand[kBJ]);
      cards[kSJ] = 2 - cards[kBJ];
      if (cards[kSJ] == 0 || sj_wild(v)) try_jokers(Kind::kPair, cards, r);
    }
    if (v.three_kings && hand[kSJ] + hand[kBJ] >= 3) {
      Counts cards{};
      cards[kSJ] = std::min(2, hand[kSJ]);
      cards[kBJ] = 3 - cards[kSJ];
      try_jokers(Kind::kThreeKings, cards, cards);
    }
    if (hand[kSJ] >= 2 && hand[kBJ] >= 2) {
      Counts cards{};
      cards[kSJ] = 2;
      cards[kBJ] = 2;
      try_jokers(Kind::kHeavenlyKings, cards, cards);
    }
  }
};

}  // namespace

std::vector<RefPlay> canonical_moves(const RefVariant& v, const Counts& hand, const RefPlay* previous) {
  Generator g(v, hand);
  g.generate();
  if (previous == nullptr) return g.moves;
  std::vector<RefPlay> out;
  for (const auto& m : g.moves)
    if (beats(v, m, *previous)) out.push_back(m);
  return out;
}

std::string to_string(const Counts& c) {
  static const char* const kTokens[15] = {"3", "4", "5", "6", "7", "8",  "9", "T",
                                          "J", "Q", "K", "A", "2", "SJ", "BJ"};
  std::string s;
  for (int r = 0; r < 15; ++r) {
    for (int k = 0; k < c[r]; ++k) {
      if (!s.empty()) s += ' ';
      s += kTokens[r];
    }
  }
  return s;
}

std::string kind_name(Kind k) {
  switch (k) {
    case Kind::kSingle:
      return "single";
    case Kind::kPair:
      return "pair";
    case Kind::kTriple:
      return "triple";
    case Kind::kStraight:
      return "straight";
    case Kind::kPairChain:
      return "pair_chain";
    case Kind::kTripleChain:
      return "triple_chain";
    case Kind::kBomb:
      return "bomb";
    case Kind::kChainBomb:
      return "chain_bomb";
    case Kind::kUnevenChainBomb:
      return "uneven_chain_bomb";
    case Kind::kThreeKings:
      return "three_kings";
    case Kind::kHeavenlyKings:
      return "heavenly_kings";
  }
  return "?";
}

}  // namespace skref
