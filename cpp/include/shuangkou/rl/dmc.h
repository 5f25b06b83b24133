// Deep Monte-Carlo actors: many deals stepped together, the learning seats
// choosing with one shared Q network (qnet.h) and ε-greedy exploration, all
// in C++ (no Python, no GIL while acting). A network whose metadata gives a
// "heuristic_prior" is played as the dmc bot plays it (bot.h: the prior added
// to the Q of the heuristic's choice), so the samples follow the policy it
// is shipped with. The learning seats are all four
// (self-play) or, with an opponent bot, seats 0 and 2 against it; a teacher
// bot may choose a share of their decisions (a warm start that anneals). Each finished deal yields one
// training sample per decision: the observation, the chosen move's features, and as target the deal's final
// reward for the seat that decided (the Monte-Carlo return), with the version of the weights that chose it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cancel.h"
#include "shuangkou/core/rewards.h"
#include "shuangkou/core/rules.h"
#include "shuangkou/model/qnet.h"
#include "shuangkou/rl/vector_env.h"

namespace shuangkou {

struct DmcActorOptions {
  Rules rules;
  int num_envs = 64;  // deals played side by side
  uint64_t seed = 0;
  int threads = 0;  // 0: every core OpenMP sees
  RewardMode reward = RewardMode::kWin;
  double epsilon = 0.01;  // probability of a uniformly random legal move
  // -1: endless deals (episode seeds per env); n >= 0: deals 0..n-1 of
  // `seed`, dealt as self-play deals them (see VectorEnvOptions::deals).
  int64_t deals = -1;
  // Plays seats 1 and 3 inside C++ (the network learns seats 0 and 2, which
  // alone yield samples); none: self-play, every seat learns.
  BotPtr opponent;  // null: none
  // With probability teacher_prob (after the ε draw) a learning seat plays
  // the teacher's move instead of the network's; the sample is labelled the
  // same way (the Monte-Carlo return of the mixed policy).
  BotPtr teacher;  // null: none
  double teacher_prob = 0.0;
};

// Decisions of finished deals, one row each.
struct DmcSamples {
  std::vector<float> obs;        // [n, observation_size()]
  std::vector<float> move;       // [n, kMoveFeatureSize]: the move played
  std::vector<float> target;     // [n]: the deal's reward for the deciding seat
  std::vector<int64_t> version;  // [n]: weights version that chose the move
  std::vector<int8_t> seat;      // [n]
  std::vector<int64_t> deal;     // [n]: the deal's seed index ("deals" mode) or its finishing order
  int64_t size() const { return static_cast<int64_t>(target.size()); }
};

// Threads: one collect() at a time (the caller serialises it). set_network,
// set_teacher_prob, deals_finished and decisions are safe from any thread at
// any time, a collect() running or not: a running collect takes the network,
// its version and the teacher's share afresh at each step (a network it is
// using stays alive until that step ends).
class DmcActors {
 public:
  // Throws std::invalid_argument for a network whose input sizes are not this
  // build's observation and move sizes, or bad options. Built-in seats play
  // their first moves here: `cancel` stops that as in collect().
  DmcActors(const DmcActorOptions& o, std::shared_ptr<const QNet> net, int64_t version,
            const CancelFlag* cancel = nullptr);

  // The network (and its version) used from the next step on.
  void set_network(std::shared_ptr<const QNet> net, int64_t version);
  // The teacher's share from the next step on; std::invalid_argument
  // outside [0, 1] (or above 0 without a teacher).
  void set_teacher_prob(double p);
  double teacher_prob() const { return teacher_prob_.load(); }
  // Plays until finished deals hold at least `min_samples` decisions (or, in
  // `deals` mode, every deal is finished) and returns those decisions.
  // `cancel` is polled between steps and between moves: once set, collect
  // throws Cancelled and the decisions gathered are lost; stopped in the
  // middle of a step, the actors are interrupted() and every later collect
  // throws std::runtime_error (make new actors). An error raised while
  // deciding or stepping (an opponent bot's) is rethrown the same way, and
  // leaves the actors interrupted where some deals moved.
  DmcSamples collect(int64_t min_samples, const CancelFlag* cancel = nullptr);
  bool interrupted() const { return interrupted_; }
  int64_t deals_finished() const { return deals_finished_.load(); }
  int64_t decisions() const { return decisions_.load(); }
  // The options as constructed (set_teacher_prob does not change them).
  const DmcActorOptions& options() const { return options_; }

 private:
  struct Trajectory {
    std::vector<float> obs, move;
    std::vector<int64_t> version;
    std::vector<int8_t> seat;
  };
  // The legal row (of env_'s rows for env j) env j plays this step: a random
  // one with probability epsilon, else the teacher's move with probability
  // teacher_prob, else the network's best (`prior_bot`'s choice where the
  // network has a heuristic prior). `scratch` and `q`: working space.
  int choose_row(int j, const QNet& net, const Bot* prior_bot, double teacher_prob, MoveList& scratch,
                 std::vector<float>& q, const CancelFlag* cancel);
  // The legal row of env j that plays `bot`'s choice.
  int bot_row(int j, const Bot& bot, MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel);
  // Moves the decisions of the deals that just finished into `out`, each
  // labelled with its seat's reward.
  void harvest(DmcSamples& out);

  DmcActorOptions options_;
  mutable std::mutex net_mutex_;  // guards net_, prior_bot_ and version_
  std::shared_ptr<const QNet> net_;
  BotPtr prior_bot_;  // the dmc bot on net_ where it has a "heuristic_prior" (else null)
  int64_t version_ = 0;
  std::atomic<double> teacher_prob_{0.0};
  VectorEnv env_;
  std::vector<Trajectory> trajectories_;  // the current deal of each env
  std::vector<SplitMix64> rngs_;          // exploration, one stream per env
  std::vector<int32_t> actions_;
  std::atomic<int64_t> deals_finished_{0};
  std::atomic<int64_t> decisions_{0};
  bool interrupted_ = false;
};

}  // namespace shuangkou
