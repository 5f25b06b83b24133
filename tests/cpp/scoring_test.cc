#include "shuangkou/core/scoring.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "shuangkou/core/pattern.h"
#include "test_util.h"

namespace shuangkou {
namespace {

BombTally tally(const Variant& v, const std::vector<std::pair<int, const char*>>& bombs) {
  BombTally t;
  for (const auto& [seat, cards] : bombs) t.add(seat, read_best(v, CardCounts::parse(cards))->stars);
  return t;
}

Places places(std::initializer_list<int> seats) {
  Places p{};
  int i = 0;
  for (int s : seats) p[i++] = static_cast<int8_t>(s);
  return p;
}

// docs/rules.md §16, scoring examples, from rules_examples.json.
TEST(ScoringExamples, FromRulesExamplesJson) {
  std::ifstream in(testing::test_data_dir() + "/rules_examples.json");
  ASSERT_TRUE(in) << "rules_examples.json not found under " << testing::test_data_dir();
  const auto examples = nlohmann::json::parse(in);
  ASSERT_GE(examples["scores"].size(), 2u);
  for (const auto& e : examples["scores"]) {
    const Variant v = preset(e["variant"].get<std::string>());
    BombTally t;
    for (const auto& b : e["bombs"])
      t.add(b[0].get<int>(), read_best(v, CardCounts::parse(b[1].get<std::string>()))->stars);
    Places p{};
    for (int i = 0; i < 4; ++i) p[i] = static_cast<int8_t>(e["finish_order"][i].get<int>());
    const DealScore d = score_deal(v, p, t);
    EXPECT_EQ(std::vector<int64_t>(d.total.begin(), d.total.end()), e["scores"].get<std::vector<int64_t>>())
        << e["note"];
  }
}

TEST(Scoring, OutcomesAndBaseTables) {
  EXPECT_EQ(outcome_of(places({0, 2, 1, 3})), Outcome::kDouble);
  EXPECT_EQ(outcome_of(places({1, 0, 3, 2})), Outcome::kSingle);
  EXPECT_EQ(outcome_of(places({3, 0, 2, 1})), Outcome::kDraw);
  const Variant classic = preset("classic"), common = preset("baibian"), jj = preset("jj");
  const BombTally none;
  auto totals = [&](const Variant& v, Places p) {
    const auto t = score_deal(v, p, none).total;
    return std::vector<int64_t>(t.begin(), t.end());
  };
  EXPECT_EQ(totals(classic, places({0, 2, 1, 3})), (std::vector<int64_t>{4, -4, 4, -4}));
  EXPECT_EQ(totals(classic, places({1, 0, 3, 2})), (std::vector<int64_t>{-2, 2, -2, 2}));
  EXPECT_EQ(totals(classic, places({3, 0, 2, 1})), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(totals(common, places({3, 0, 2, 1})), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(totals(jj, places({3, 0, 2, 1})), (std::vector<int64_t>{-1, 1, -1, 1}));
  EXPECT_EQ(totals(jj, places({0, 2, 1, 3})), (std::vector<int64_t>{6, -6, 6, -6}));
  EXPECT_EQ(totals(jj, places({1, 0, 3, 2})), (std::vector<int64_t>{-3, 3, -3, 3}));
}

TEST(Scoring, ClassicLargestBombFactorOfTheWinners) {
  const Variant v = preset("classic");
  const Places p = places({0, 2, 1, 3});
  EXPECT_EQ(score_deal(v, p, tally(v, {{0, "7 7 7 7"}})).multiplier, 1);
  EXPECT_EQ(score_deal(v, p, tally(v, {{2, "7 7 7 7 7"}})).multiplier, 2);
  EXPECT_EQ(score_deal(v, p, tally(v, {{2, "7 7 7 7 7 7"}})).multiplier, 3);
  EXPECT_EQ(score_deal(v, p, tally(v, {{0, "7 7 7 7 7 7 7"}})).multiplier, 4);
  EXPECT_EQ(score_deal(v, p, tally(v, {{0, "7 7 7 7 7 7 7 7"}, {2, "5 5 5 5 5"}})).multiplier, 5);
  EXPECT_EQ(score_deal(v, p, tally(v, {{0, "SJ SJ BJ BJ"}})).multiplier, 4);
  EXPECT_EQ(score_deal(v, p, tally(v, {{1, "7 7 7 7 7 7 7 7"}})).multiplier, 1);  // losers' bomb
}

TEST(Scoring, BaibianWinnersOnlyQianbianBoth) {
  const Places p = places({0, 2, 1, 3});
  const Variant b = preset("baibian"), q = preset("qianbian");
  EXPECT_EQ(score_deal(b, p, tally(b, {{1, "3 3 3 3 3 3 3"}})).multiplier, 1);
  EXPECT_EQ(score_deal(q, p, tally(q, {{1, "3 3 3 3 3 3 3"}})).multiplier, 8);
  EXPECT_EQ(score_deal(b, p, tally(b, {{0, "3 3 3 3 3"}})).multiplier, 2);
  EXPECT_EQ(score_deal(b, p, tally(b, {{0, "3 3 3 3 3 3 3 3"}, {2, "SJ SJ BJ"}})).multiplier, 16);
  // Team contribution: the bomber and partner +12, opponents -4 each.
  const auto d = score_deal(q, p, tally(q, {{1, "3 3 3 3 3 3 3"}}));
  EXPECT_EQ(std::vector<int64_t>(d.contribution.begin(), d.contribution.end()),
            (std::vector<int64_t>{-4, 12, -4, 12}));
}

TEST(Scoring, CollectedStarLevelsOfSection8a) {
  auto level = [](std::vector<int> stars) {
    BombTally t;
    for (int s : stars) t.add(0, s);
    return star_level(t, 0);
  };
  EXPECT_EQ(level({}), 0);
  EXPECT_EQ(level({5, 5}), 6);
  EXPECT_EQ(level({6, 6, 6}), 8);
  EXPECT_EQ(level({8, 8}), 9);
  EXPECT_EQ(level({9, 9, 9}), 11);
  EXPECT_EQ(level({7, 7, 7}), 9);  // a 7-star chain bomb plus two 7-card bombs
  EXPECT_EQ(level({4, 4, 4, 4}), 6);
  EXPECT_EQ(level({4, 4, 4, 4, 4}), 7);
  EXPECT_EQ(level({4, 4, 4, 4, 4, 4}), 8);
  EXPECT_EQ(level({4, 5}), 5);  // the 4-star bomb does not pair with the 5
  EXPECT_EQ(level({10}), 10);
}

TEST(Scoring, BadPlacesAreRejected) {
  const Variant v = preset("classic");
  EXPECT_THROW(score_deal(v, places({0, 0, 1, 3}), BombTally{}), std::invalid_argument);
  EXPECT_THROW(score_deal(v, places({0, 4, 1, 3}), BombTally{}), std::invalid_argument);
}

}  // namespace
}  // namespace shuangkou
