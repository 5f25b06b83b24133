#include "shuangkou/selfplay.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace shuangkou {
namespace {

bool same(const DealResult& a, const DealResult& b) {
  return a.scores == b.scores && a.places == b.places && a.bombs == b.bombs && a.max_stars == b.max_stars &&
         a.bombs_by_stars == b.bombs_by_stars && a.actions == b.actions && a.plays == b.plays &&
         a.outcome == b.outcome && a.leader == b.leader;
}

TEST(SelfPlay, ResultsDoNotDependOnTheThreadCount) {
  for (const auto& name : preset_names()) {
    SelfPlayOptions o;
    o.variant = preset(name);
    o.games = 3000;
    o.seed = 77;
    o.agents = {Bot{BotKind::kRandom}, Bot{BotKind::kHeuristic}, Bot{BotKind::kRandom},
                Bot{BotKind::kHeuristic}};
    std::vector<DealResult> one, two;
    o.threads = 1;
    run_selfplay(o, one);
    o.threads = 2;
    run_selfplay(o, two);
    ASSERT_EQ(one.size(), 3000u);
    ASSERT_EQ(two.size(), 3000u);
    for (size_t i = 0; i < one.size(); ++i) ASSERT_TRUE(same(one[i], two[i])) << name << " deal " << i;
    // Different deals differ.
    int distinct = 0;
    for (size_t i = 1; i < one.size(); ++i) distinct += !same(one[i], one[i - 1]);
    EXPECT_GT(distinct, 2900);
  }
}

TEST(SelfPlay, ReplaysReplayToTheSameResults) {
  SelfPlayOptions o;
  o.variant = preset("qianbian");
  o.games = 9000;  // more than one block, so records arrive in two calls
  o.seed = 5;
  o.threads = 2;
  o.replays = 8500;
  std::vector<std::string> records;
  std::vector<size_t> calls;
  o.on_records = [&](const std::vector<std::string>& block) {
    calls.push_back(block.size());
    records.insert(records.end(), block.begin(), block.end());
  };
  std::vector<DealResult> results;
  run_selfplay(o, results);
  EXPECT_EQ(calls, (std::vector<size_t>{8192, 308}));
  ASSERT_EQ(records.size(), 8500u);
  for (size_t n = 0; n < records.size(); n += 97) {
    const Game g = Game::from_json(records[n]);
    ASSERT_TRUE(g.state().is_over());
    EXPECT_EQ(g.state().score(g.variant()).total, results[n].scores) << "deal " << n;
    EXPECT_EQ(g.state().places(), results[n].places);
    EXPECT_EQ(g.history().size(), results[n].actions);
  }
}

TEST(SelfPlay, ARecordSinkErrorStopsTheRun) {
  SelfPlayOptions o;
  o.variant = preset("classic");
  o.games = 20000;
  o.replays = -1;
  int calls = 0;
  o.on_records = [&](const std::vector<std::string>&) {
    ++calls;
    throw std::runtime_error("disk full");
  };
  std::vector<DealResult> results;
  EXPECT_THROW(run_selfplay(o, results), std::runtime_error);
  EXPECT_EQ(calls, 1);
}

TEST(SelfPlay, ProgressIsReportedAndCanStop) {
  SelfPlayOptions o;
  o.variant = preset("classic");
  o.games = 20000;
  std::vector<DealResult> results;
  std::vector<int64_t> reports;
  const int64_t done = run_selfplay(o, results, [&](int64_t d) {
    reports.push_back(d);
    return d < 10000;
  });
  EXPECT_EQ(done, 16384);  // two blocks of 8192, then stopped
  EXPECT_EQ(results.size(), 16384u);
  EXPECT_EQ(reports, (std::vector<int64_t>{8192, 16384}));
}

TEST(SelfPlay, HeuristicBeatsRandom) {
  SelfPlayOptions o;
  o.variant = preset("baibian");
  o.variant.team_formation = TeamFormation::kFixed;  // pairs stay together
  o.games = 4000;
  o.agents = {Bot{BotKind::kHeuristic}, Bot{BotKind::kRandom}, Bot{BotKind::kHeuristic},
              Bot{BotKind::kRandom}};
  std::vector<DealResult> results;
  run_selfplay(o, results);
  int wins = 0;
  double points = 0;
  for (const auto& r : results) {
    wins += r.places[0] % 2 == 0;
    points += static_cast<double>(r.scores[0] + r.scores[2]);
  }
  EXPECT_GT(wins, 4000 * 0.6) << wins;
  EXPECT_GT(points, 0);
}

TEST(SelfPlay, BadOptionsAreRejected) {
  SelfPlayOptions o;
  std::vector<DealResult> results;
  o.games = -1;
  EXPECT_THROW(run_selfplay(o, results), std::invalid_argument);
  o.games = 10;
  o.replays = 5;
  EXPECT_THROW(run_selfplay(o, results), std::invalid_argument);  // no record sink
  EXPECT_THROW(parse_bot("smart"), std::invalid_argument);
  EXPECT_EQ(parse_bot("heuristic"), Bot{BotKind::kHeuristic});
  EXPECT_EQ(parse_bot("search:40"), (Bot{BotKind::kSearch, 40}));
  EXPECT_EQ(bot_label(parse_bot("search:40")), "search:40");
  EXPECT_THROW(parse_bot("search:0"), std::invalid_argument);
  EXPECT_THROW(parse_bot("search:4x"), std::invalid_argument);
  EXPECT_THROW(parse_bot("greedy:4"), std::invalid_argument);
}

}  // namespace
}  // namespace shuangkou
