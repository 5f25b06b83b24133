#include "shuangkou/core/cards.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "test_util.h"

namespace shuangkou {
namespace {

TEST(Cards, RankTokensRoundTrip) {
  for (int r = 0; r < kNumRanks; ++r) EXPECT_EQ(parse_rank(rank_token(r)), r);
  EXPECT_EQ(parse_rank("10"), 7);
  EXPECT_EQ(parse_rank("t"), 7);
  EXPECT_EQ(parse_rank("sj"), kSmallJoker);
  EXPECT_EQ(parse_rank("1"), -1);
  EXPECT_EQ(parse_rank("JJ"), -1);
  EXPECT_EQ(parse_rank(""), -1);
}

TEST(Cards, ParseAndFormatSortsLowToHighJokersLast) {
  const CardCounts c = CardCounts::parse("BJ 5 10 2 SJ 3 T");
  EXPECT_EQ(c.to_string(), "3 5 T T 2 SJ BJ");
  EXPECT_EQ(c.size(), 7);
  EXPECT_EQ(c.count(7), 2);
  EXPECT_EQ(c.jokers(), 2);
  EXPECT_EQ(c.naturals().to_string(), "3 5 T T 2");
  EXPECT_TRUE(CardCounts::parse("").empty());
  EXPECT_TRUE(CardCounts::parse("   ").empty());
  EXPECT_EQ(CardCounts::parse("5,6 ,7").to_string(), "5 6 7");
}

TEST(Cards, ParseRejectsUnknownTokensNamingThem) {
  try {
    CardCounts::parse("5 6 X 7");
    FAIL() << "expected invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'X'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(CardCounts::parse("11"), std::invalid_argument);
  EXPECT_THROW(CardCounts::parse("H7"), std::invalid_argument);
  EXPECT_THROW(CardCounts::parse("RJ"), std::invalid_argument);
}

TEST(Cards, ParseRejectsMoreCopiesThanTwoDecksHold) {
  EXPECT_NO_THROW(CardCounts::parse("7 7 7 7 7 7 7 7"));
  EXPECT_THROW(CardCounts::parse("7 7 7 7 7 7 7 7 7"), std::invalid_argument);
  EXPECT_NO_THROW(CardCounts::parse("SJ SJ BJ BJ"));
  EXPECT_THROW(CardCounts::parse("SJ SJ SJ"), std::invalid_argument);
  try {
    CardCounts::parse("BJ BJ BJ");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("BJ"), std::string::npos);
  }
}

TEST(Cards, SizeContainsAndPlanesAgreeWithCounts) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const CardCounts a = testing::random_hand(rng, 1 + trial % 27);
    const CardCounts b = testing::random_hand(rng, 1 + (trial * 7) % 27);
    int size = 0;
    bool contains = true;
    for (int r = 0; r < kNumRanks; ++r) {
      size += a.count(r);
      contains &= a.count(r) >= b.count(r);
    }
    EXPECT_EQ(a.size(), size);
    EXPECT_EQ(a.contains(b), contains);
    EXPECT_TRUE(a.contains(a));
    EXPECT_TRUE(a.fits_two_decks());
    if (contains) EXPECT_EQ((a - b) + b, a);
    for (int k = 1; k <= 8; ++k)
      for (int r = 0; r < kNumRanks; ++r) EXPECT_EQ((a.plane(k) >> r) & 1, a.count(r) >= k ? 1u : 0u);
  }
  // Full nibbles (up to 15, as in readings) compare correctly too.
  EXPECT_TRUE(CardCounts(0xF).contains(CardCounts(0x8)));
  EXPECT_FALSE(CardCounts(0x8).contains(CardCounts(0xF)));
  EXPECT_FALSE(CardCounts(uint64_t{12} << 4).fits_two_decks());
}

TEST(Cards, SpreadMask) {
  EXPECT_EQ(spread_mask(0), 0u);
  EXPECT_EQ(spread_mask(0b101), 0x101u);
  EXPECT_EQ(spread_mask(1u << 14), uint64_t{1} << 56);
}

TEST(Cards, PhysicalIdsCoverTwoDecks) {
  CardCounts all;
  for (int id = 0; id < kNumPhysicalCards; ++id) all.add(physical_rank(id));
  for (int r = 0; r < kNumRanks; ++r) EXPECT_EQ(all.count(r), r >= kSmallJoker ? 2 : 8);
  EXPECT_THROW(physical_rank(108), std::out_of_range);
  EXPECT_THROW(physical_rank(-1), std::out_of_range);
}

}  // namespace
}  // namespace shuangkou
