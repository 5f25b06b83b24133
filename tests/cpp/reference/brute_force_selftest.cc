// Self-test of the brute-force reference: docs/rules.md §16 examples (also
// in tests/data/rules_examples.json), hand-made cases, a subset-enumeration
// cross-check of canonical_moves on small hands, and timings on random
// 27-card hands. Build and run:
//   g++ -std=c++20 -O2 brute_force.cc brute_force_selftest.cc -o selftest && ./selftest
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "brute_force.h"

using skref::Counts;
using skref::Kind;
using skref::RefPlay;
using skref::RefVariant;

static int g_failures = 0;
static int g_checks = 0;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    ++g_checks;                                                                     \
    if (!(cond)) {                                                                  \
      ++g_failures;                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                               \
  } while (0)

static Counts parse(const std::string& s) {
  static const std::map<std::string, int> kRank = {
      {"3", 0},  {"4", 1}, {"5", 2}, {"6", 3},  {"7", 4},  {"8", 5},  {"9", 6},   {"T", 7},
      {"10", 7}, {"J", 8}, {"Q", 9}, {"K", 10}, {"A", 11}, {"2", 12}, {"SJ", 13}, {"BJ", 14}};
  Counts c{};
  std::istringstream in(s);
  std::string tok;
  while (in >> tok) {
    auto it = kRank.find(tok);
    if (it == kRank.end()) {
      std::fprintf(stderr, "bad token %s\n", tok.c_str());
      std::exit(2);
    }
    ++c[it->second];
  }
  return c;
}

static int rank_of(const std::string& tok) {
  Counts c = parse(tok);
  for (int r = 0; r < 15; ++r)
    if (c[r]) return r;
  return -1;
}

// Strongest reading across kinds (rule_readings 5): bomb beats non-bomb,
// bombs by bomb order, non-bombs: later kind wins.
static std::optional<RefPlay> strongest(const RefVariant& v, const Counts& c) {
  std::optional<RefPlay> best;
  for (const auto& p : skref::all_readings(v, c)) {
    if (!best) {
      best = p;
      continue;
    }
    bool pb = skref::is_bomb(p.kind), bb = skref::is_bomb(best->kind);
    if (pb && !bb)
      best = p;
    else if (pb && bb && skref::beats(v, p, *best))
      best = p;
    else if (!pb && !bb && static_cast<int>(p.kind) > static_cast<int>(best->kind))
      best = p;
  }
  return best;
}

static std::string show(const RefPlay& p) {
  return skref::kind_name(p.kind) + "[" + skref::to_string(p.reading) + "] cards[" +
         skref::to_string(p.cards) + "] key " + std::to_string(p.key) + " stars " + std::to_string(p.stars);
}

static void dump_moves(const std::vector<RefPlay>& ms) {
  for (const auto& m : ms) std::fprintf(stderr, "    %s\n", show(m).c_str());
}

// ---------------------------------------------------------------- docs/rules.md §16
struct ReadEx {
  const char* variant;
  const char* cards;
  const char* kind;  // nullptr: invalid
  const char* reading;
  const char* key;
  int stars;
};

static void test_section13() {
  const ReadEx kReads[] = {
      {"baibian", "5 6 7 8 BJ", "straight", "5 6 7 8 9", "9", 0},
      {"baibian", "7 7 7 7 BJ", "bomb", "7 7 7 7 7", "7", 5},
      {"baibian", "7 7 8 9 9 BJ", "pair_chain", "7 7 8 8 9 9", "9", 0},
      {"baibian", "7 7 8 9 BJ BJ", "pair_chain", "7 7 8 8 9 9", "9", 0},
      {"baibian", "SJ SJ BJ", "three_kings", nullptr, nullptr, 6},
      {"baibian", "SJ BJ", "pair", "SJ SJ", "SJ", 0},
      {"qianbian", "SJ BJ", "pair", "BJ BJ", "BJ", 0},
      {"classic", "SJ BJ", nullptr, nullptr, nullptr, 0},
      {"baibian", "5 5 SJ", nullptr, nullptr, nullptr, 0},
      {"qianbian", "5 5 SJ", "triple", "5 5 5", "5", 0},
      {"qianbian", "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 BJ SJ", "uneven_chain_bomb",
       "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9 9", "9", 11},
      {"baibian", "5 5 5 6 6 6", nullptr, nullptr, nullptr, 0},
      {"baibian", "Q K A 2 3", nullptr, nullptr, nullptr, 0},
  };
  for (const auto& ex : kReads) {
    RefVariant v = skref::preset(ex.variant);
    Counts c = parse(ex.cards);
    auto all = skref::all_readings(v, c);
    if (ex.kind == nullptr) {
      CHECK(all.empty());
      if (!all.empty()) std::fprintf(stderr, "  %s %s should be invalid\n", ex.variant, ex.cards);
      continue;
    }
    auto p = strongest(v, c);
    CHECK(p.has_value());
    if (!p) continue;
    bool ok = skref::kind_name(p->kind) == ex.kind && p->stars == ex.stars && p->cards == c;
    if (ex.reading) ok = ok && p->reading == parse(ex.reading);
    if (ex.key) ok = ok && p->key == rank_of(ex.key);
    CHECK(ok);
    if (!ok) std::fprintf(stderr, "  %s %s -> %s\n", ex.variant, ex.cards, show(*p).c_str());
    // This example has exactly one reading.
    CHECK(all.size() == 1);
  }

  struct BeatEx {
    const char* variant;
    const char* a;
    const char* b;
    bool beats;
  };
  const BeatEx kBeats[] = {
      {"qianbian_collect", "6 6 6 6 7 7 7 7 8 8 8 8", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", true},
      {"qianbian", "6 6 6 6 7 7 7 7 8 8 8 8", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", false},
      {"qianbian", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", "6 6 6 6 7 7 7 7 8 8 8 8", true},
      {"classic", "6 6 6 6 6", "2 2 2 2", true},
      {"classic", "SJ SJ BJ BJ", "8 8 8 8 8 8 8 8", true},
      {"baibian", "3 3 3 3 3 3", "SJ SJ BJ", true},
      {"baibian", "SJ SJ BJ BJ", "7 7 7 7 7 7 7", true},
      // the reverse directions
      {"qianbian_collect", "3 3 3 3 4 4 4 4 4 4 4 5 5 5 5", "6 6 6 6 7 7 7 7 8 8 8 8", false},
      {"classic", "2 2 2 2", "6 6 6 6 6", false},
      {"classic", "8 8 8 8 8 8 8 8", "SJ SJ BJ BJ", false},
      {"baibian", "SJ SJ BJ", "3 3 3 3 3 3", false},
      {"baibian", "7 7 7 7 7 7 7", "SJ SJ BJ BJ", false},
  };
  for (const auto& ex : kBeats) {
    RefVariant v = skref::preset(ex.variant);
    auto a = strongest(v, parse(ex.a));
    auto b = strongest(v, parse(ex.b));
    CHECK(a && b);
    if (!a || !b) continue;
    bool got = skref::beats(v, *a, *b);
    CHECK(got == ex.beats);
    if (got != ex.beats)
      std::fprintf(stderr, "  %s: %s vs %s: got %d\n", ex.variant, show(*a).c_str(), show(*b).c_str(), got);
  }

  // Star counts of docs/rules.md §5.
  {
    RefVariant q = skref::preset("qianbian"), qc = skref::preset("qianbian_collect");
    CHECK(strongest(q, parse("3 3 3 3 3 3"))->stars == 6);
    CHECK(strongest(q, parse("7 7 7 7 7 8 8 8 8 8 9 9 9 9 9"))->stars == 8);
    CHECK(strongest(q, parse("7 7 7 7 7 8 8 8 8 8 9 9 9 9 9"))->kind == Kind::kChainBomb);
    CHECK(strongest(q, parse("7 7 7 7 8 8 8 8 8 9 9 9 9 9 9"))->stars == 9);
    CHECK(strongest(qc, parse("7 7 7 7 8 8 8 8 8 9 9 9 9 9 9"))->stars == 7);
  }
}

// ---------------------------------------------------------------- hand-made
static bool has_move(const std::vector<RefPlay>& ms, Kind k, const std::string& reading,
                     const std::string& cards) {
  for (const auto& m : ms)
    if (m.kind == k && m.reading == parse(reading) && m.cards == parse(cards)) return true;
  return false;
}

static int count_kind(const std::vector<RefPlay>& ms, Kind k) {
  int n = 0;
  for (const auto& m : ms) n += m.kind == k;
  return n;
}

static void test_hand_made() {
  RefVariant classic = skref::preset("classic"), baibian = skref::preset("baibian"),
             qianbian = skref::preset("qianbian"), qc = skref::preset("qianbian_collect"),
             jj = skref::preset("jj");
  // docs/rules.md §14: qianbian 4 5 6 7 SJ has one straight, 4-8.
  {
    auto ms = skref::canonical_moves(qianbian, parse("4 5 6 7 SJ"), nullptr);
    CHECK(count_kind(ms, Kind::kStraight) == 1);
    CHECK(has_move(ms, Kind::kStraight, "4 5 6 7 8", "4 5 6 7 SJ"));
    // singles 4 5 6 7 SJ, pairs 44 55 66 77 (with SJ), nothing else
    CHECK(count_kind(ms, Kind::kSingle) == 5);
    CHECK(count_kind(ms, Kind::kPair) == 4);
    CHECK(has_move(ms, Kind::kPair, "7 7", "7 SJ"));
    CHECK(ms.size() == 10);
    if (ms.size() != 10) dump_moves(ms);
  }
  // Highest-reading tie-break: qianbian 7777 8888 9999 + 1 wild as uneven.
  {
    auto p = skref::reading_as(qianbian, parse("7 7 7 7 8 8 8 8 9 9 9 9 BJ"), Kind::kUnevenChainBomb);
    CHECK(p && p->reading == parse("7 7 7 7 8 8 8 8 9 9 9 9 9") && p->stars == 8);
    // the same set has no equal-count chain-bomb reading (13 cards)
    CHECK(!skref::reading_as(qianbian, parse("7 7 7 7 8 8 8 8 9 9 9 9 BJ"), Kind::kChainBomb));
    // qianbian_collect (min): all readings have 7 stars and 13 cards -> highest key first:
    // 7777 8888 9999 T? needs 4 T: no. So key 9, the lex tie-break -> 99999 again.
    auto pc = skref::reading_as(qc, parse("7 7 7 7 8 8 8 8 9 9 9 9 BJ"), Kind::kUnevenChainBomb);
    CHECK(pc && pc->reading == parse("7 7 7 7 8 8 8 8 9 9 9 9 9") && pc->stars == 7);
  }
  // Type follows the trick: 777 888 999 + 3 wilds.
  {
    Counts c = parse("7 7 7 8 8 8 9 9 9 SJ SJ BJ");
    auto tc = skref::reading_as(qianbian, c, Kind::kTripleChain);
    auto cb = skref::reading_as(qianbian, c, Kind::kChainBomb);
    CHECK(tc && tc->reading == parse("7 7 7 8 8 8 9 9 9 T T T") && tc->key == 7);
    CHECK(cb && cb->reading == parse("7 7 7 7 8 8 8 8 9 9 9 9") && cb->stars == 7);
    CHECK(skref::all_readings(qianbian, c).size() == 2);
  }
  // rule_readings 5: 5 6 7 SJ SJ BJ in qianbian = straight 5-T or pair chain 55 66 77.
  {
    Counts c = parse("5 6 7 SJ SJ BJ");
    auto st = skref::reading_as(qianbian, c, Kind::kStraight);
    auto pc = skref::reading_as(qianbian, c, Kind::kPairChain);
    CHECK(st && st->reading == parse("5 6 7 8 9 T"));
    CHECK(pc && pc->reading == parse("5 5 6 6 7 7"));
    CHECK(strongest(qianbian, c)->kind == Kind::kPairChain);
    // baibian: SJ not wild -> nothing
    CHECK(skref::all_readings(baibian, c).empty());
  }
  // docs/rules.md §3 example: 7777 88888 999999 BJ SJ = 7777 88888 99999999.
  {
    auto p =
        skref::reading_as(qianbian, parse("7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 BJ SJ"), Kind::kUnevenChainBomb);
    CHECK(p && p->reading == parse("7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9 9"));
    // max_bomb 8 in qianbian: 9 nines would be too many; in collect (max 12, min stars)
    auto pc = skref::reading_as(qc, parse("7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 BJ SJ"), Kind::kUnevenChainBomb);
    // min stars: one wild must raise the 7s to 5 for 5 + 3 = 8 stars; the other may go
    // anywhere in 7..9 (777777 88888 999999, 77777 888888 999999, 77777 88888 9999999):
    // same stars, cards and key 9; lex tie-break from '2' down: most 9s wins.
    CHECK(pc && pc->reading == parse("7 7 7 7 7 8 8 8 8 8 9 9 9 9 9 9 9") && pc->stars == 8);
  }
  // Wild as 2 in a bomb, but never in a sequence.
  {
    CHECK(skref::reading_as(baibian, parse("2 2 2 BJ"), Kind::kBomb)->reading == parse("2 2 2 2"));
    CHECK(skref::reading_as(baibian, parse("J Q K A BJ"), Kind::kStraight)->reading == parse("T J Q K A"));
    CHECK(skref::all_readings(baibian, parse("Q K A 2 BJ")).empty());
  }
  // Joker-only moves.
  {
    auto mb = skref::canonical_moves(baibian, parse("SJ BJ"), nullptr);
    CHECK(mb.size() == 3 && has_move(mb, Kind::kPair, "SJ SJ", "SJ BJ"));
    auto mq = skref::canonical_moves(qianbian, parse("SJ BJ"), nullptr);
    CHECK(mq.size() == 3 && has_move(mq, Kind::kPair, "BJ BJ", "SJ BJ"));
    auto mc = skref::canonical_moves(classic, parse("SJ BJ"), nullptr);
    CHECK(mc.size() == 2);
    // BJ BJ in baibian: singles BJ, pair BJ; BJ BJ never "pair of 7s" nor pair of SJ.
    auto mbb = skref::canonical_moves(baibian, parse("BJ BJ"), nullptr);
    CHECK(mbb.size() == 2 && has_move(mbb, Kind::kPair, "BJ BJ", "BJ BJ"));
    // qianbian SJ SJ: pair of SJ only (SJ SJ is read naturally).
    auto mss = skref::canonical_moves(qianbian, parse("SJ SJ"), nullptr);
    CHECK(mss.size() == 2 && has_move(mss, Kind::kPair, "SJ SJ", "SJ SJ"));
    // Four jokers, baibian: single SJ, single BJ, pair SJ, pair BJ, three kings
    // (SJ SJ BJ), heavenly kings.
    auto m4 = skref::canonical_moves(baibian, parse("SJ SJ BJ BJ"), nullptr);
    CHECK(m4.size() == 6);
    CHECK(has_move(m4, Kind::kThreeKings, "SJ SJ BJ", "SJ SJ BJ"));
    CHECK(has_move(m4, Kind::kHeavenlyKings, "SJ SJ BJ BJ", "SJ SJ BJ BJ"));
    // SJ BJ BJ in baibian: three kings SJ BJ BJ.
    auto m3 = skref::canonical_moves(jj, parse("SJ BJ BJ"), nullptr);
    CHECK(has_move(m3, Kind::kThreeKings, "SJ BJ BJ", "SJ BJ BJ"));
    // classic: no three kings; heavenly kings yes.
    auto mc4 = skref::canonical_moves(classic, parse("SJ SJ BJ BJ"), nullptr);
    CHECK(count_kind(mc4, Kind::kThreeKings) == 0 && count_kind(mc4, Kind::kHeavenlyKings) == 1);
    // SJ is never spent as a wild in baibian.
    auto mx = skref::canonical_moves(baibian, parse("7 SJ"), nullptr);
    CHECK(mx.size() == 2);  // single 7, single SJ
    auto my = skref::canonical_moves(qianbian, parse("7 SJ BJ"), nullptr);
    // singles 7 SJ BJ; pair 77 (7 SJ); triple 777 (7 SJ BJ); pair of BJ (SJ BJ)
    CHECK(my.size() == 6 && has_move(my, Kind::kPair, "7 7", "7 SJ") &&
          has_move(my, Kind::kTriple, "7 7 7", "7 SJ BJ") && has_move(my, Kind::kPair, "BJ BJ", "SJ BJ"));
    if (my.size() != 6) dump_moves(my);
  }
  // Following.
  {
    auto prev = strongest(baibian, parse("5 6 7 8 9"));
    auto ms = skref::canonical_moves(baibian, parse("6 7 8 9 T J 3 3 3 3"), &*prev);
    // straights 6-T, 7-J (5 long), bomb 3333; not 6-J (6 long)
    CHECK(ms.size() == 3);
    CHECK(has_move(ms, Kind::kStraight, "6 7 8 9 T", "6 7 8 9 T"));
    CHECK(has_move(ms, Kind::kStraight, "7 8 9 T J", "7 8 9 T J"));
    CHECK(has_move(ms, Kind::kBomb, "3 3 3 3", "3 3 3 3"));
    auto prevb = strongest(baibian, parse("4 4 4 4 4 4"));  // 6 stars
    auto mk = skref::canonical_moves(baibian, parse("SJ SJ BJ 3 3 3 3 3 3"), &*prevb);
    // three kings lose to a 6-star bomb; 333333 loses to 444444; 333333+BJ (7 stars) wins.
    CHECK(mk.size() == 1 && has_move(mk, Kind::kBomb, "3 3 3 3 3 3 3", "3 3 3 3 3 3 BJ"));
    if (mk.size() != 1) dump_moves(mk);
    // Heavenly kings at the bottom of 7 stars (qianbian_collect).
    auto hk = strongest(qc, parse("SJ SJ BJ BJ"));
    auto b7 = strongest(qc, parse("3 3 3 3 3 3 3"));
    CHECK(!skref::beats(qc, *hk, *b7) && skref::beats(qc, *b7, *hk));
    CHECK(skref::beats(qianbian, *strongest(qianbian, parse("SJ SJ BJ BJ")),
                       *strongest(qianbian, parse("3 3 3 3 3 3 3"))));
    // stars order: fewer cards wins at equal stars: 4444444 (7) vs 6666 7777 8888 chain (7).
    CHECK(skref::beats(baibian, *strongest(baibian, parse("4 4 4 4 4 4 4")),
                       *strongest(baibian, parse("6 6 6 6 7 7 7 7 8 8 8 8"))));
    // count order: 12-card chain would beat... classic has no chain bombs: invalid.
    CHECK(skref::all_readings(classic, parse("6 6 6 6 7 7 7 7 8 8 8 8")).empty());
    // equal never beats
    CHECK(
        !skref::beats(classic, *strongest(classic, parse("5 5 5 5")), *strongest(classic, parse("5 5 5 5"))));
    // non-bombs need the same size
    CHECK(!skref::beats(classic, *strongest(classic, parse("6 7 8 9 T J")),
                        *strongest(classic, parse("5 6 7 8 9"))));
  }
  // qianbian_collect: bombs up to 12 with wilds.
  {
    auto p = skref::reading_as(qc, parse("5 5 5 5 5 5 5 5 SJ SJ BJ BJ"), Kind::kBomb);
    CHECK(p && p->stars == 12);
    CHECK(!skref::reading_as(qianbian, parse("5 5 5 5 5 5 5 5 SJ SJ BJ BJ"), Kind::kBomb));
  }
}

// ------------------------------------------- cross-check by subset enumeration
// For small hands: every (kind, reading) that some sub-multiset reads as (its
// highest reading of that kind) is "achievable". Canonical moves must be
// achievable, unique, drawn from the hand, and must dominate: every achievable
// pattern has a canonical move of the same kind and size whose reading is equal
// or higher (so following with canonical moves loses nothing).
static void enumerate_subsets(const Counts& hand, int r, Counts& cur, std::vector<Counts>& out) {
  if (r == 15) {
    out.push_back(cur);
    return;
  }
  for (int k = 0; k <= hand[r]; ++k) {
    cur[r] = k;
    enumerate_subsets(hand, r + 1, cur, out);
  }
  cur[r] = 0;
}

static bool reading_ge(const RefVariant& v, const RefPlay& a, const RefPlay& b) {
  // a >= b within one kind (mirrors the definition: compare, then lex from '2' down)
  if (a.reading == b.reading) return true;
  if (skref::is_bomb(a.kind)) {
    if (skref::beats(v, a, b)) return true;
    if (skref::beats(v, b, a)) return false;
  } else if (a.key != b.key) {
    return a.key > b.key;
  }
  for (int r = 12; r >= 0; --r)
    if (a.reading[r] != b.reading[r]) return a.reading[r] > b.reading[r];
  return true;
}

static void cross_check(const RefVariant& v, const Counts& hand, const char* name) {
  std::vector<Counts> subs;
  Counts cur{};
  enumerate_subsets(hand, 0, cur, subs);
  std::map<std::pair<int, Counts>, RefPlay> achievable;
  for (const auto& s : subs)
    for (const auto& p : skref::all_readings(v, s))
      achievable.emplace(std::make_pair(static_cast<int>(p.kind), p.reading), p);
  auto moves = skref::canonical_moves(v, hand, nullptr);
  std::set<std::pair<int, Counts>> seen;
  bool ok = true;
  for (const auto& m : moves) {
    auto key = std::make_pair(static_cast<int>(m.kind), m.reading);
    if (!seen.insert(key).second) ok = false;  // unique
    if (!achievable.count(key)) ok = false;    // achievable
    for (int r = 0; r < 15; ++r)
      if (m.cards[r] > hand[r]) ok = false;              // from the hand
    auto again = skref::reading_as(v, m.cards, m.kind);  // reads as itself
    if (!again || again->reading != m.reading) ok = false;
  }
  for (const auto& [key, p] : achievable) {
    bool dominated = false;
    for (const auto& m : moves)
      if (m.kind == p.kind && m.size == p.size && reading_ge(v, m, p)) dominated = true;
    if (!dominated) {
      ok = false;
      std::fprintf(stderr, "  not dominated: %s\n", show(p).c_str());
    }
  }
  CHECK(ok);
  if (!ok) std::fprintf(stderr, "  cross-check failed: %s hand %s\n", name, skref::to_string(hand).c_str());
}

static const char* const kPresets[] = {"classic", "baibian", "qianbian", "qianbian_collect", "jj"};

static Counts deal(std::mt19937_64& rng, int n, const std::vector<int>& ranks) {
  std::vector<int> deck;
  for (int r : ranks)
    for (int k = 0; k < (r >= 13 ? 2 : 8); ++k) deck.push_back(r);
  std::shuffle(deck.begin(), deck.end(), rng);
  Counts c{};
  for (int i = 0; i < n && i < static_cast<int>(deck.size()); ++i) ++c[deck[i]];
  return c;
}

static void test_cross_check() {
  std::mt19937_64 rng(12345);
  std::vector<int> all_ranks;
  for (int r = 0; r < 15; ++r) all_ranks.push_back(r);
  const std::vector<int> narrow = {4, 5, 6, 7, 13, 14};        // bomb-rich
  const std::vector<int> seq = {2, 3, 4, 5, 6, 7, 8, 13, 14};  // sequence-rich
  int hands = 0;
  for (const char* name : kPresets) {
    RefVariant v = skref::preset(name);
    for (int i = 0; i < 150; ++i) {
      cross_check(v, deal(rng, 5 + static_cast<int>(rng() % 8), all_ranks), name);
      cross_check(v, deal(rng, 8 + static_cast<int>(rng() % 10), narrow), name);
      cross_check(v, deal(rng, 6 + static_cast<int>(rng() % 9), seq), name);
      hands += 3;
    }
    // forced jokers: every hand holds all four jokers
    for (int i = 0; i < 60; ++i) {
      Counts h = deal(rng, 6 + static_cast<int>(rng() % 8), narrow);
      h[13] = 2;
      h[14] = 2;
      cross_check(v, h, name);
      ++hands;
    }
  }
  std::printf("cross-check: %d small hands by subset enumeration\n", hands);
}

// ---------------------------------------------------------------- timings
static void time_random_hands() {
  std::vector<int> all_ranks;
  for (int r = 0; r < 15; ++r) all_ranks.push_back(r);
  for (const char* name : kPresets) {
    RefVariant v = skref::preset(name);
    std::mt19937_64 rng(777);
    const int kHands = 2000;
    size_t lead_moves = 0, follow_moves = 0;
    double lead_ms = 0, follow_ms = 0, worst_ms = 0;
    for (int i = 0; i < kHands; ++i) {
      Counts h = deal(rng, 27, all_ranks);
      auto t0 = std::chrono::steady_clock::now();
      auto ms = skref::canonical_moves(v, h, nullptr);
      auto t1 = std::chrono::steady_clock::now();
      // follow a random lead from another hand
      Counts other = deal(rng, 27, all_ranks);
      auto lead = skref::canonical_moves(v, other, nullptr);
      const RefPlay& prev = lead[rng() % lead.size()];
      auto t2 = std::chrono::steady_clock::now();
      auto fs = skref::canonical_moves(v, h, &prev);
      auto t3 = std::chrono::steady_clock::now();
      double a = std::chrono::duration<double, std::milli>(t1 - t0).count();
      double b = std::chrono::duration<double, std::milli>(t3 - t2).count();
      lead_ms += a;
      follow_ms += b;
      worst_ms = std::max(worst_ms, std::max(a, b));
      lead_moves += ms.size();
      follow_moves += fs.size();
      // following result is exactly the beating subset of the leading result
      size_t nb = 0;
      for (const auto& m : ms) nb += skref::beats(v, m, prev);
      CHECK(nb == fs.size());
    }
    std::printf(
        "%-17s 27-card hands: lead %.3f ms/hand (%.1f moves), follow %.3f ms/hand (%.1f "
        "moves), worst %.2f ms\n",
        name, lead_ms / kHands, double(lead_moves) / kHands, follow_ms / kHands,
        double(follow_moves) / kHands, worst_ms);
  }
  // A heavy hand: all 4 jokers and 8 of three consecutive ranks.
  {
    Counts h = parse("7 7 7 7 7 7 7 7 8 8 8 8 8 8 8 8 9 9 9 9 9 9 9 9 SJ SJ BJ BJ");
    h[13] = 2;
    h[14] = 2;
    for (const char* name : kPresets) {
      RefVariant v = skref::preset(name);
      auto t0 = std::chrono::steady_clock::now();
      auto ms = skref::canonical_moves(v, h, nullptr);
      auto t1 = std::chrono::steady_clock::now();
      std::printf("%-17s heavy hand (777777778888888899999999 + 4 jokers): %zu moves, %.2f ms\n", name,
                  ms.size(), std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }
}

int main() {
  test_section13();
  test_hand_made();
  test_cross_check();
  time_random_hands();
  std::printf("%d checks, %d failures\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
