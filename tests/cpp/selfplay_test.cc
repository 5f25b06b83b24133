#include "shuangkou/selfplay.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

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
    o.agents = {BotKind::kRandom, BotKind::kHeuristic, BotKind::kRandom, BotKind::kHeuristic};
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
  const std::string path =
      (std::filesystem::temp_directory_path() / "shuangkou_selfplay_test.jsonl.gz").string();
  SelfPlayOptions o;
  o.variant = preset("qianbian");
  o.games = 500;
  o.seed = 5;
  o.threads = 2;
  o.replays = 120;
  o.replay_path = path;
  std::vector<DealResult> results;
  run_selfplay(o, results);
  gzFile f = gzopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string line;
  char buf[1 << 16];
  int n = 0;
  while (gzgets(f, buf, sizeof buf)) {
    line += buf;
    if (line.empty() || line.back() != '\n') continue;
    line.pop_back();
    const Game g = Game::from_json(line);
    ASSERT_TRUE(g.state().is_over());
    EXPECT_EQ(g.state().score(g.variant()).total, results[n].scores) << "deal " << n;
    EXPECT_EQ(g.state().places(), results[n].places);
    EXPECT_EQ(g.history().size(), results[n].actions);
    ++n;
    line.clear();
  }
  gzclose(f);
  EXPECT_EQ(n, 120);
  std::remove(path.c_str());
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
  o.agents = {BotKind::kHeuristic, BotKind::kRandom, BotKind::kHeuristic, BotKind::kRandom};
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
  EXPECT_THROW(run_selfplay(o, results), std::invalid_argument);  // no path
  o.replay_path = "/nonexistent-dir/x.jsonl.gz";
  EXPECT_THROW(run_selfplay(o, results), std::invalid_argument);
  EXPECT_THROW(parse_bot("smart"), std::invalid_argument);
  EXPECT_EQ(parse_bot("heuristic"), BotKind::kHeuristic);
}

}  // namespace
}  // namespace shuangkou
