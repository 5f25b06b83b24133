#include "shuangkou/core/movegen.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

namespace shuangkou {
namespace {

std::vector<std::string> move_strings(const MoveList& moves, Kind kind) {
  std::vector<std::string> out;
  for (const Play& m : moves)
    if (m.kind == kind)
      out.push_back(m.cards.to_string() + (m.cards == m.reading ? "" : " = " + m.reading.to_string()));
  return out;
}

TEST(MoveGen, WildsAreSpentNaturalFirstThenSmallThenBig) {
  MoveList moves;
  // qianbian: both jokers wild. A pair of 5s from one 5 uses SJ, not BJ.
  generate_leads(preset("qianbian"), CardCounts::parse("5 9 9 SJ BJ"), moves);
  EXPECT_EQ(move_strings(moves, Kind::kPair),
            (std::vector<std::string>{"5 SJ = 5 5", "9 9", "SJ BJ = BJ BJ"}));
  EXPECT_EQ(move_strings(moves, Kind::kTriple),
            (std::vector<std::string>{"5 SJ BJ = 5 5 5", "9 9 SJ = 9 9 9"}));
  // baibian: SJ is not wild, so only BJ substitutes.
  generate_leads(preset("baibian"), CardCounts::parse("5 9 9 SJ BJ"), moves);
  EXPECT_EQ(move_strings(moves, Kind::kPair),
            (std::vector<std::string>{"5 BJ = 5 5", "9 9", "SJ BJ = SJ SJ"}));
  EXPECT_EQ(move_strings(moves, Kind::kTriple), (std::vector<std::string>{"9 9 BJ = 9 9 9"}));
  // classic: no wilds at all.
  generate_leads(preset("classic"), CardCounts::parse("5 9 9 SJ BJ"), moves);
  EXPECT_EQ(move_strings(moves, Kind::kPair), (std::vector<std::string>{"9 9"}));
  EXPECT_TRUE(move_strings(moves, Kind::kTriple).empty());
}

TEST(MoveGen, FollowingOnlyListsPlaysThatBeat) {
  const Variant v = preset("baibian");
  MoveList moves;
  const Play nine_pair = *read_best(v, CardCounts::parse("9 9"));
  generate_follows(v, CardCounts::parse("3 3 9 9 T J J 2 BJ"), nine_pair, moves);
  EXPECT_EQ(move_strings(moves, Kind::kPair), (std::vector<std::string>{"T BJ = T T", "J J", "2 BJ = 2 2"}));
  for (const Play& m : moves) EXPECT_TRUE(beats(m, nine_pair));
  // A bomb on the table: only greater bombs.
  const Play six_bomb = *read_best(v, CardCounts::parse("3 3 3 3 3 3"));
  generate_follows(v, CardCounts::parse("4 4 4 4 4 4 4 8 8 8 8 8 8 SJ SJ BJ BJ"), six_bomb, moves);
  std::set<std::string> got;
  for (const Play& m : moves) got.insert(m.cards.to_string());
  // Six 4s beat six 3s on the key; three kings are the lowest 6-star play.
  EXPECT_EQ(got, (std::set<std::string>{"4 4 4 4 4 4", "4 4 4 4 4 4 4", "4 4 4 4 4 4 4 BJ", "8 8 8 8 8 8",
                                        "8 8 8 8 8 8 BJ", "8 8 8 8 8 8 BJ BJ", "SJ SJ BJ BJ"}));
}

TEST(MoveGen, StraightFollowKeepsTheLength) {
  const Variant v = preset("classic");
  MoveList moves;
  const Play five = *read_best(v, CardCounts::parse("3 4 5 6 7"));
  generate_follows(v, CardCounts::parse("4 5 6 7 8 9 T"), five, moves);
  EXPECT_EQ(move_strings(moves, Kind::kStraight),
            (std::vector<std::string>{"4 5 6 7 8", "5 6 7 8 9", "6 7 8 9 T"}));
}

TEST(MoveGen, EveryMoveReadsBackAsItselfAndComesFromTheHand) {
  std::mt19937_64 rng(3);
  MoveList moves;
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    for (int trial = 0; trial < 500; ++trial) {
      const CardCounts hand = testing::random_hand(rng, 27);
      generate_leads(v, hand, moves);
      std::set<std::pair<int, uint64_t>> patterns;
      for (const Play& m : moves) {
        EXPECT_TRUE(hand.contains(m.cards)) << name;
        EXPECT_EQ(read_as(v, m.cards, m.kind), m) << name << " " << m.cards.to_string();
        EXPECT_TRUE(patterns.insert({static_cast<int>(m.kind), m.reading.bits()}).second)
            << "pattern listed twice: " << m.reading.to_string();
      }
    }
  }
}

// The largest move lists: a dense hand in every preset stays far below
// kMaxMoves. Adversarial: 8 each of three consecutive ranks plus all jokers.
TEST(MoveGen, CapacityHoldsForTheDensestHands) {
  MoveList moves;
  int largest = 0;
  const char* dense[] = {
      "7 7 7 7 7 7 7 7 8 8 8 8 8 8 8 8 9 9 9 9 9 9 9 SJ SJ BJ BJ",
      "5 5 5 5 5 5 6 6 6 6 6 6 7 7 7 7 7 7 8 8 8 8 8 SJ SJ BJ BJ",
      "3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 8 8 8 SJ SJ BJ BJ",
  };
  for (const auto& name : preset_names())
    for (const char* h : dense) {
      generate_leads(preset(name), CardCounts::parse(h), moves);
      largest = std::max(largest, moves.size());
    }
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 3000; ++trial) {
    // Hands concentrated on few ranks make the most chain bombs.
    CardCounts h;
    const int lo = std::uniform_int_distribution<int>(0, 8)(rng);
    h.add(kSmallJoker, 2);
    h.add(kBigJoker, 2);
    while (h.size() < 27) {
      const int r = lo + std::uniform_int_distribution<int>(0, 4)(rng);
      if (h.count(r) < 8) h.add(r);
    }
    generate_leads(preset("qianbian_collect"), h, moves);
    largest = std::max(largest, moves.size());
  }
  RecordProperty("largest_move_list", largest);
  EXPECT_LT(largest, kMaxMoves / 2) << "largest list " << largest;
  EXPECT_GT(largest, 200);  // the search did reach dense hands
}

TEST(MoveGen, EmptyHandHasNoMoves) {
  MoveList moves;
  generate_leads(preset("qianbian"), CardCounts(), moves);
  EXPECT_TRUE(moves.empty());
}

}  // namespace
}  // namespace shuangkou
