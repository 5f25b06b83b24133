// A batch of deals stepped together: the fast path for learners. Outputs live
// in buffers owned here (observations, masks, current players, rewards, done
// flags) that Python wraps without copying; the per-move features of the
// current legal moves are built fresh each step (ragged: flat rows + offsets).
//
// Seats are either external (their actions come from step()) or played inside
// C++ by a built-in bot. After an external action, bots play until an
// external seat must act again; a finished deal reports its rewards and is
// replaced by the next (auto-reset).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cancel.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/rewards.h"
#include "shuangkou/core/rules.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/rl/deal.h"
#include "shuangkou/rl/results.h"
#include "shuangkou/rl/threads.h"

namespace shuangkou {

struct VectorEnvOptions {
  Rules rules;  // its catalogue is the env's action space (shared, not rebuilt)
  int num_envs = 1;
  uint64_t seed = 0;
  int threads = 0;  // 0: every core OpenMP sees
  // Per seat: null for an external seat (played through step()), else the
  // bot played inside C++ (make_bot; shared, read-only).
  std::array<BotPtr, kNumSeats> bots{};
  RewardMode reward = RewardMode::kScore;
  bool dense_mask = true;  // fill the [num_envs, num_actions] mask
  // -1: each env plays its own endless sequence of deals (episode_seed).
  // n >= 0: the envs together play deals 0..n-1 of `seed`, deal i dealt from
  // derive_seed(seed, i) with its bots' stream seeded as in self-play, so
  // each deal plays out the same for any number of envs or threads (given
  // agents that decide from the observation alone). Envs take the next deal
  // in env order as they finish; with none left an env is idle: its current
  // player is -1, it has no legal moves and step() ignores its action.
  int64_t deals = -1;
  // `deals` mode: the deals played are first_deal..first_deal+deals-1 of
  // `seed` (a chunk of a longer run); indices (last_index) still count from 0.
  uint64_t first_deal = 0;
};

// Long calls (the constructor, reset, step: built-in search seats can take
// seconds a move) take an optional cancel flag, polled between moves: once
// another thread sets it, the call stops within a move and throws Cancelled.
// A step or reset stopped so leaves some envs moved and others not: the env is
// then interrupted() and step() and start_at() refuse (std::runtime_error)
// until a reset() completes. An error thrown while the deals move (a bot's)
// does the same: the call rethrows it and the env is interrupted().
class VectorEnv {
 public:
  explicit VectorEnv(const VectorEnvOptions& o, const CancelFlag* cancel = nullptr);

  // The deal seed of episode `episode` of env `env`.
  static uint64_t episode_seed(uint64_t seed, int env, int64_t episode) {
    return derive_seed(derive_seed(seed, static_cast<uint64_t>(env)), static_cast<uint64_t>(episode));
  }

  // Starts episode 0 everywhere (with a new base seed: deals of that seed).
  void reset(std::optional<uint64_t> seed = std::nullopt, const CancelFlag* cancel = nullptr);
  // Restarts env j at its episode `episode` (0-based) of the current seed,
  // as if every episode before it had been played (to restore a snapshot).
  void start_at(int env, int64_t episode);
  // One action id per env, for its current (external) player. If any is not
  // legal, throws std::invalid_argument naming the first such env, and no env
  // changes.
  void step(std::span<const int32_t> actions, const CancelFlag* cancel = nullptr);
  // True after a step or reset was cancelled or failed part-way (until a reset completes).
  bool interrupted() const { return interrupted_; }

  int num_envs() const { return static_cast<int>(envs_.size()); }
  int num_actions() const { return catalogue_.size(); }
  const ActionCatalogue& catalogue() const { return catalogue_; }
  const Rules& rules() const { return options_.rules; }
  const Variant& variant() const { return options_.rules.variant(); }

  // Buffers, rewritten by reset() and step().
  float* observations() { return obs_.data(); }  // [num_envs, observation_size()]
  int8_t* masks() { return mask_.data(); }       // [num_envs, num_actions] (dense_mask)
  bool has_dense_mask() const { return options_.dense_mask; }
  int8_t* current_players() { return current_.data(); }     // [num_envs]
  float* rewards() { return rewards_.data(); }              // [num_envs, 4], nonzero on the finishing step
  uint8_t* dones() { return dones_.data(); }                // [num_envs]
  int64_t* final_scores() { return final_scores_.data(); }  // [num_envs, 4], where done
  int64_t* episodes() { return episodes_.data(); }          // [num_envs]: episodes started
  // [num_envs, 4, observation_size()]: where dones()[j], the final
  // observation of the deal env j just finished, from each seat's view.
  float* final_observations() { return final_obs_.data(); }
  uint64_t seed() const { return options_.seed; }

  // Legal moves of each env's current player, this step: ids and feature
  // rows (kMoveFeatureSize floats) of env j are rows offsets[j]..offsets[j+1].
  // Rows in LegalActions' order (game.h): ids ascending, the pass (id 0)
  // first where legal.
  std::vector<int32_t> legal_ids;
  std::vector<int64_t> legal_offsets;
  std::vector<float> legal_features;

  // For tests and tools: env j's state.
  const GameState& state(int env) const { return envs_[env].deal.state; }
  // The last kRecentActions actions of env j's current deal, oldest first.
  std::span<const Action> recent(int env) const { return envs_[env].deal.recent.view(); }
  // The result of the deal env j finished last (meaningful where dones()[j]),
  // and its index in `deals` mode (-1 otherwise).
  const DealResult& last_result(int env) const { return envs_[env].last; }
  int64_t last_index(int env) const { return envs_[env].last_index; }
  bool idle(int env) const { return envs_[env].idle; }
  // Env j's current deal, and the deal it finished last (where dones()[j]),
  // as Games with their full record, replayed from the deal seed and the
  // actions (for rendering and to_json; not on the stepping path).
  Game current_game(int env) const;
  Game finished_game(int env) const;

 private:
  struct Env {
    DealInProgress deal;
    SplitMix64 rng{0};
    LegalActions legal;  // the current player's, computed once per position
    int leader = 0;
    DealResult last;
    uint64_t seed = 0, last_seed = 0;     // deal seeds of the current and the last finished deal
    int64_t index = -1, last_index = -1;  // their indices in `deals` mode
    bool idle = false;                    // `deals` mode: no deal left for this env
    bool pending = false;                 // `deals` mode: finished, waiting for its next deal
    // Every action of those deals, compact (16 bytes: the stepping path writes one per action).
    struct Recorded {
      uint64_t cards;  // CardCounts bits; 0 for a pass
      int8_t seat;
      uint8_t kind;
    };
    std::vector<Recorded> history, last_history;
  };

  void start_episode(int j);
  // Appends an action to the deal's compact record.
  static void record(Env& e, int seat, const Play& p);
  // Plays `play` in env j, then bots until an external seat acts; records a
  // finished deal and starts the next. Bots stop early once `cancel` is set.
  void advance(int j, const Play& play, MoveList& scratch, const CancelFlag* cancel);
  void play_bots(int j, MoveList& scratch, const CancelFlag* cancel);
  void finish(int j);
  void refresh_legal(int j, MoveList& scratch);
  void write_outputs();
  // `deals` mode: gives the envs that finished their next deals, in env order.
  void deal_pending(const CancelFlag* cancel);
  // After a parallel pass: if `cancel` was set, marks the env interrupted and throws Cancelled.
  void stop_if_cancelled(const CancelFlag* cancel);
  // After a parallel pass: if a deal threw, marks the env interrupted and throws that error.
  void stop_on_error(const FirstError& error);
  // step() and start_at() refuse an interrupted env.
  void check_not_interrupted(const char* what) const;
  Game replay(uint64_t seed, const std::vector<Env::Recorded>& history) const;

  VectorEnvOptions options_;
  const ActionCatalogue& catalogue_;  // options_.rules' catalogue
  int threads_;
  std::vector<Env> envs_;
  std::vector<float> obs_;
  std::vector<int8_t> mask_;
  std::vector<int8_t> current_;
  std::vector<float> rewards_;
  std::vector<uint8_t> dones_;
  std::vector<int64_t> final_scores_;
  std::vector<int64_t> episodes_;
  std::vector<float> final_obs_;
  std::vector<int> chosen_;  // step(): the legal-move index each env plays
  int64_t next_deal_ = 0;    // `deals` mode: the next deal to give out
  bool interrupted_ = false;
};

}  // namespace shuangkou
