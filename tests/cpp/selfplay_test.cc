#include "shuangkou/rl/selfplay.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "shuangkou/core/cancel.h"
#include "shuangkou/model/qnet.h"
#include "shuangkou/rl/dmc.h"
#include "shuangkou/rl/vector_env.h"
#include "test_util.h"

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
    o.agents = {make_bot("random"), make_bot("heuristic"), make_bot("random"), make_bot("heuristic")};
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
  o.agents = {make_bot("heuristic"), make_bot("random"), make_bot("heuristic"), make_bot("random")};
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
  o.replays = 0;
  o.agents[2] = nullptr;
  EXPECT_THROW(run_selfplay(o, results), std::invalid_argument);  // no bot for seat 2
}

// Sets `flag` after `ms` milliseconds on another thread (as Ctrl-C does from Python).
class SetLater {
 public:
  SetLater(CancelFlag& flag, int ms)
      : thread_([&flag, ms] {
          std::this_thread::sleep_for(std::chrono::milliseconds(ms));
          flag.store(true);
        }) {}
  ~SetLater() { thread_.join(); }

 private:
  std::thread thread_;
};

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST(SelfPlay, ACancelFlagStopsASearchRunWithinAMove) {
  SelfPlayOptions o;
  o.variant = preset("baibian");
  o.games = 2;
  o.threads = 1;
  o.agents = {make_bot("search:" + std::to_string(kMaxRollouts)),
              make_bot("search:" + std::to_string(kMaxRollouts)),
              make_bot("search:" + std::to_string(kMaxRollouts)),
              make_bot("search:" + std::to_string(kMaxRollouts))};  // hours a deal
  CancelFlag cancel{false};
  o.cancel = &cancel;
  std::vector<DealResult> results;
  const auto start = std::chrono::steady_clock::now();
  {
    SetLater later(cancel, 200);
    EXPECT_THROW(run_selfplay(o, results), Cancelled);
  }
  EXPECT_LT(seconds_since(start), 10.0);
  // A flag never set changes nothing: the same results as without one.
  CancelFlag never{false};
  SelfPlayOptions fast = o;
  fast.agents = {make_bot("search:8"), make_bot("heuristic"), make_bot("random"), make_bot("greedy")};
  fast.games = 20;
  std::vector<DealResult> with, without;
  fast.cancel = &never;
  run_selfplay(fast, with);
  fast.cancel = nullptr;
  run_selfplay(fast, without);
  ASSERT_EQ(with.size(), without.size());
  for (size_t i = 0; i < with.size(); ++i) EXPECT_TRUE(same(with[i], without[i])) << i;
}

TEST(VectorEnv, AStepCancelledPartWayRefusesToGoOnUntilReset) {
  VectorEnvOptions o;
  o.rules = Rules("baibian", preset("baibian"));
  o.num_envs = 4;
  o.threads = 1;
  o.bots = {nullptr, make_bot("search:" + std::to_string(kMaxRollouts)),
            make_bot("search:" + std::to_string(kMaxRollouts)),
            make_bot("search:" + std::to_string(kMaxRollouts))};
  CancelFlag at_once{true};
  EXPECT_THROW(VectorEnv(o, &at_once), Cancelled);  // the bots' opening moves stop too
  o.bots[1] = o.bots[2] = o.bots[3] = make_bot("heuristic");
  VectorEnv env(o);  // (heuristic bots: built at once)
  std::vector<int32_t> actions;
  for (int j = 0; j < env.num_envs(); ++j) actions.push_back(env.legal_ids[env.legal_offsets[j]]);
  EXPECT_THROW(env.step(actions, &at_once), Cancelled);
  EXPECT_TRUE(env.interrupted());
  EXPECT_THROW(env.step(actions), std::runtime_error);
  EXPECT_THROW(env.start_at(0, 1), std::runtime_error);
  env.reset();
  EXPECT_FALSE(env.interrupted());
  actions.clear();
  for (int j = 0; j < env.num_envs(); ++j) actions.push_back(env.legal_ids[env.legal_offsets[j]]);
  env.step(actions);  // goes on after the reset
}

// Plays as `heuristic` until armed, then throws from every step: an error inside
// the runners' OpenMP regions (where an escaping exception would end the process).
class FailingBot final : public Bot {
 public:
  Play step(const Decision& d) const override {
    if (armed.load()) throw std::runtime_error("the failing bot failed");
    return heuristic_->step(d);
  }
  std::string label() const override { return "failing"; }
  mutable std::atomic<bool> armed{false};

 private:
  BotPtr heuristic_ = make_bot("heuristic");
};

TEST(SelfPlay, AnErrorInADealReachesTheCallerAndEndsNothingElse) {
  auto failing = std::make_shared<FailingBot>();
  SelfPlayOptions o;
  o.variant = preset("baibian");
  o.games = 64;
  o.threads = 2;
  o.agents = {failing, make_bot("heuristic"), make_bot("heuristic"), make_bot("heuristic")};
  failing->armed = true;
  try {
    std::vector<DealResult> results;
    run_selfplay(o, results);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the failing bot failed");
  }
  failing->armed = false;  // the same options play once the bot plays
  std::vector<DealResult> results, again;
  run_selfplay(o, results);
  o.agents[0] = make_bot("heuristic");
  run_selfplay(o, again);
  ASSERT_EQ(results.size(), 64u);
  for (size_t i = 0; i < results.size(); ++i) EXPECT_TRUE(same(results[i], again[i])) << i;
}

TEST(VectorEnv, AStepWhoseBotFailsThrowsItsErrorAndRefusesToGoOnUntilReset) {
  auto failing = std::make_shared<FailingBot>();
  VectorEnvOptions o;
  o.rules = Rules("baibian", preset("baibian"));
  o.num_envs = 64;  // two threads' worth of envs
  o.threads = 2;
  o.bots = {nullptr, failing, failing, failing};
  VectorEnv env(o);
  std::vector<int32_t> actions;
  for (int j = 0; j < env.num_envs(); ++j) actions.push_back(env.legal_ids[env.legal_offsets[j]]);
  failing->armed = true;
  try {
    env.step(actions);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the failing bot failed");
  }
  EXPECT_TRUE(env.interrupted());
  try {
    env.step(actions);
    FAIL() << "an interrupted env stepped";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("call reset() first"), std::string::npos) << e.what();
  }
  EXPECT_THROW(env.reset(), std::runtime_error);  // the bots still fail at the deals' start
  EXPECT_TRUE(env.interrupted());
  failing->armed = false;
  env.reset();
  EXPECT_FALSE(env.interrupted());
  actions.clear();
  for (int j = 0; j < env.num_envs(); ++j) actions.push_back(env.legal_ids[env.legal_offsets[j]]);
  env.step(actions);  // goes on after the reset
}

TEST(DmcActors, AnOpponentsErrorReachesTheCallerAndTheActorsRefuseToGoOn) {
  auto failing = std::make_shared<FailingBot>();
  DmcActorOptions o;
  o.rules = Rules("baibian", preset("baibian"));
  o.num_envs = 64;
  o.threads = 2;
  o.opponent = failing;
  const auto net = std::make_shared<const QNet>(testing::random_qnet(
      QNetShape{observation_size(), kMoveFeatureSize, {8}}, 1, {{"variant", "baibian"}}));
  DmcActors actors(o, net, 0);
  EXPECT_GT(actors.collect(1).size(), 0u);  // plays while the opponent does
  failing->armed = true;
  try {
    actors.collect(1);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "the failing bot failed");
  }
  EXPECT_TRUE(actors.interrupted());
  failing->armed = false;
  try {
    actors.collect(1);
    FAIL() << "interrupted actors collected";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("make new ones"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shuangkou
