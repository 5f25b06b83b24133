#include "shuangkou/rl/vector_env.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "shuangkou/rl/threads.h"

namespace shuangkou {

VectorEnv::VectorEnv(const VectorEnvOptions& o, const CancelFlag* cancel)
    : options_(o),
      catalogue_(options_.rules.catalogue()),
      // A thread per at least 32 envs: waking threads for a handful of envs
      // costs more than it saves, badly so on a busy machine.
      threads_(std::clamp(o.num_envs / 32, 1, resolve_threads(o.threads))) {
  if (o.num_envs < 1)
    throw std::invalid_argument("num_envs must be at least 1, got " + std::to_string(o.num_envs));
  bool external = false;
  for (const BotPtr& b : o.bots) {
    external |= !b;
    if (b) b->check_variant(options_.rules.variant());
  }
  if (!external) throw std::invalid_argument("at least one seat must be external (played through step())");
  const size_t n = static_cast<size_t>(o.num_envs);
  envs_.resize(n);
  obs_.assign(n * observation_size(), 0.0f);
  if (o.dense_mask) mask_.assign(n * static_cast<size_t>(catalogue_.size()), 0);
  current_.assign(n, 0);
  rewards_.assign(n * kNumSeats, 0.0f);
  dones_.assign(n, 0);
  final_scores_.assign(n * kNumSeats, 0);
  episodes_.assign(n, 0);
  final_obs_.assign(n * kNumSeats * observation_size(), 0.0f);
  for (auto& e : envs_) {
    e.history.reserve(256);  // a deal's actions: no allocation while stepping
    e.last_history.reserve(256);
  }
  legal_offsets.assign(n + 1, 0);
  reset(std::nullopt, cancel);
}

void VectorEnv::start_episode(int j) {
  Env& e = envs_[j];
  const uint64_t seed = options_.deals >= 0
                            ? derive_seed(options_.seed, options_.first_deal + static_cast<uint64_t>(e.index))
                            : episode_seed(options_.seed, j, episodes_[j]);
  DealSetup setup;
  e.deal = DealInProgress{GameState::deal(options_.rules.variant(), seed, -1, &setup), {}, {}};
  e.rng = SplitMix64(agent_seed(seed));
  e.seed = seed;
  e.history.clear();
  e.leader = setup.leader;
  ++episodes_[j];
}

void VectorEnv::record(Env& e, int seat, const Play& p) {
  e.history.push_back({p.cards.bits(), static_cast<int8_t>(seat), static_cast<uint8_t>(p.kind)});
}

void VectorEnv::finish(int j) {
  Env& e = envs_[j];
  e.last = make_deal_result(options_.rules.variant(), e.deal.state, e.leader, e.deal.tally);
  for (int s = 0; s < kNumSeats; ++s) {
    rewards_[j * kNumSeats + s] =
        static_cast<float>(deal_reward(options_.reward, e.deal.state, options_.rules.variant(), s));
    final_scores_[j * kNumSeats + s] = e.last.scores[s];
  }
  dones_[j] = 1;
  const std::span<const Action> recent = e.deal.recent.view();
  for (int s = 0; s < kNumSeats; ++s)
    encode_observation(options_.rules.variant(), e.deal.state, recent, s,
                       final_obs_.data() + (static_cast<size_t>(j) * kNumSeats + s) * observation_size());
  e.last_seed = e.seed;
  e.last_index = e.index;
  std::swap(e.history, e.last_history);  // the next deal reuses the other buffer
}

Game VectorEnv::replay(uint64_t seed, const std::vector<Env::Recorded>& history) const {
  Game g(options_.rules, seed);
  for (const Env::Recorded& a : history) {
    Play p = kPass;
    if (a.cards) {
      p.cards = CardCounts(a.cards);
      p.kind = static_cast<Kind>(a.kind);
    }
    g.apply(p);
  }
  return g;
}

Game VectorEnv::current_game(int env) const { return replay(envs_.at(env).seed, envs_.at(env).history); }

Game VectorEnv::finished_game(int env) const {
  return replay(envs_.at(env).last_seed, envs_.at(env).last_history);
}

void VectorEnv::play_bots(int j, MoveList& scratch, const CancelFlag* cancel) {
  Env& e = envs_[j];
  while (!cancel_requested(cancel)) {
    if (e.deal.state.is_over()) {
      finish(j);
      if (options_.deals >= 0) {  // the next deal is given out in env order, after this pass
        e.pending = true;
        return;
      }
      start_episode(j);
      continue;  // a new deal may open with bots to play
    }
    const int seat = e.deal.state.current_player();
    const BotPtr& bot = options_.bots[seat];
    if (!bot) return;
    const std::optional<Play> a = bot_step(*bot, options_.rules.variant(), e.deal, scratch, e.rng, cancel);
    if (!a) return;  // (a slow bot stopped early: its move is not played)
    record(e, seat, *a);
  }
}

void VectorEnv::advance(int j, const Play& play, MoveList& scratch, const CancelFlag* cancel) {
  Env& e = envs_[j];
  const int seat = e.deal.state.current_player();
  e.deal.apply(options_.rules.variant(), play);
  record(e, seat, play);
  play_bots(j, scratch, cancel);
}

void VectorEnv::refresh_legal(int j, MoveList& scratch) {
  Env& e = envs_[j];
  e.legal.fill(catalogue_, options_.rules.variant(), e.deal.state, scratch);
}

void VectorEnv::stop_if_cancelled(const CancelFlag* cancel) {
  if (!cancel_requested(cancel)) return;
  interrupted_ = true;
  throw Cancelled();
}

void VectorEnv::stop_on_error(const FirstError& error) {
  if (!error.failed()) return;
  interrupted_ = true;  // some deals moved and others did not, as when cancelled
  error.rethrow();
}

void VectorEnv::check_not_interrupted(const char* what) const {
  if (interrupted_)
    throw std::runtime_error(std::string("VectorEnv.") + what +
                             ": an earlier step or reset was interrupted part-way, so some deals moved and "
                             "others did not; call reset() first");
}

void VectorEnv::start_at(int j, int64_t episode) {
  check_not_interrupted("start_at");
  if (j < 0 || j >= num_envs()) throw std::invalid_argument("env index out of range");
  if (episode < 0) throw std::invalid_argument("episode must be >= 0");
  episodes_[j] = episode;
  MoveList scratch;
  start_episode(j);
  play_bots(j, scratch, nullptr);
  refresh_legal(j, scratch);
  dones_[j] = 0;
  std::fill(rewards_.begin() + j * kNumSeats, rewards_.begin() + (j + 1) * kNumSeats, 0.0f);
  write_outputs();
}

void VectorEnv::deal_pending(const CancelFlag* cancel) {
  const int n = num_envs();
  bool any = false;
  for (int j = 0; j < n; ++j) {
    Env& e = envs_[j];
    if (!e.pending) continue;
    e.pending = false;
    if (next_deal_ < options_.deals) {
      e.index = next_deal_++;
      any = true;
    } else {
      e.idle = true;
      e.legal.clear();
    }
  }
  if (!any) return;
  FirstError error;
#pragma omp parallel num_threads(threads_)
  {
    MoveList scratch;
#pragma omp for schedule(dynamic, 16)
    for (int j = 0; j < n; ++j) {
      Env& e = envs_[j];
      if (e.idle || !e.deal.state.is_over()) continue;  // only the envs just given a deal
      error.run([&] {
        start_episode(j);
        play_bots(j, scratch, cancel);  // cannot end the deal: an external seat holds 27 cards
        refresh_legal(j, scratch);
      });
    }
  }
  stop_on_error(error);
  stop_if_cancelled(cancel);
}

void VectorEnv::reset(std::optional<uint64_t> seed, const CancelFlag* cancel) {
  if (seed) options_.seed = *seed;
  interrupted_ = true;  // until this reset completes
  std::fill(dones_.begin(), dones_.end(), 0);
  std::fill(rewards_.begin(), rewards_.end(), 0.0f);
  std::fill(episodes_.begin(), episodes_.end(), 0);
  const int n = num_envs();
  next_deal_ = 0;
  for (int j = 0; j < n; ++j) {
    Env& e = envs_[j];
    e.pending = false;
    e.idle = options_.deals >= 0 && j >= options_.deals;
    e.index = options_.deals >= 0 && !e.idle ? next_deal_++ : -1;
    e.last_index = -1;
    if (e.idle) {
      e.legal.clear();
    }
  }
  FirstError error;
#pragma omp parallel num_threads(threads_)
  {
    MoveList scratch;
#pragma omp for schedule(static)
    for (int j = 0; j < n; ++j) {
      if (envs_[j].idle) continue;
      error.run([&] {
        start_episode(j);
        play_bots(j, scratch, cancel);
        refresh_legal(j, scratch);
      });
    }
  }
  stop_on_error(error);
  stop_if_cancelled(cancel);
  std::fill(dones_.begin(), dones_.end(),
            0);  // bots finishing a deal before anyone acts is not an episode end
  std::fill(rewards_.begin(), rewards_.end(), 0.0f);
  write_outputs();
  interrupted_ = false;
}

void VectorEnv::step(std::span<const int32_t> actions, const CancelFlag* cancel) {
  check_not_interrupted("step");
  const int n = num_envs();
  if (static_cast<int>(actions.size()) != n)
    throw std::invalid_argument("step needs one action per env: " + std::to_string(n) + ", got " +
                                std::to_string(actions.size()));
  // Check every action before changing anything.
  std::vector<int>& chosen = chosen_;  // reused: no allocation per step
  chosen.assign(static_cast<size_t>(n), -1);
  for (int j = 0; j < n; ++j) {
    const int a = actions[j];
    const Env& e = envs_[j];
    if (e.idle) continue;  // `deals` mode, nothing left to play: the action is ignored
    const auto it = std::lower_bound(e.legal.ids.begin(), e.legal.ids.end(), a);  // ascending
    if (it != e.legal.ids.end() && *it == a) chosen[j] = static_cast<int>(it - e.legal.ids.begin());
    if (chosen[j] < 0)
      throw std::invalid_argument("env " + std::to_string(j) + ": action " + std::to_string(a) + " " +
                                  illegal_action_reason(a, catalogue_.size(), e.deal.state));
  }
  std::fill(dones_.begin(), dones_.end(), 0);
  std::fill(rewards_.begin(), rewards_.end(), 0.0f);
  FirstError error;
#pragma omp parallel num_threads(threads_)
  {
    MoveList scratch;
#pragma omp for schedule(dynamic, 16)
    for (int j = 0; j < n; ++j) {
      if (envs_[j].idle) continue;
      error.run([&] {
        advance(j, envs_[j].legal.moves[chosen[j]], scratch, cancel);
        if (!envs_[j].pending) refresh_legal(j, scratch);
      });
    }
  }
  stop_on_error(error);
  stop_if_cancelled(cancel);
  if (options_.deals >= 0) deal_pending(cancel);
  write_outputs();
}

void VectorEnv::write_outputs() {
  const int n = num_envs();
  legal_offsets.resize(static_cast<size_t>(n) + 1);  // the arrays may have been handed over
  legal_offsets[0] = 0;
  for (int j = 0; j < n; ++j)
    legal_offsets[j + 1] = legal_offsets[j] + static_cast<int64_t>(envs_[j].legal.size());
  legal_ids.resize(static_cast<size_t>(legal_offsets[n]));
  legal_features.resize(static_cast<size_t>(legal_offsets[n]) * kMoveFeatureSize);
  const int obs_size = observation_size();
  const int actions = catalogue_.size();
#pragma omp parallel for num_threads(threads_) schedule(static)
  for (int j = 0; j < n; ++j) {
    const Env& e = envs_[j];
    const int seat = e.idle ? -1 : e.deal.state.current_player();
    current_[j] = static_cast<int8_t>(seat);
    float* o = obs_.data() + static_cast<size_t>(j) * obs_size;
    if (e.idle)
      std::fill(o, o + obs_size, 0.0f);
    else
      encode_observation(options_.rules.variant(), e.deal.state, e.deal.recent.view(), seat, o);
    int8_t* mask = options_.dense_mask ? mask_.data() + static_cast<size_t>(j) * actions : nullptr;
    if (mask) std::memset(mask, 0, static_cast<size_t>(actions));
    for (int k = 0; k < e.legal.size(); ++k) {
      const size_t row = static_cast<size_t>(legal_offsets[j]) + k;
      const int id = e.legal.ids[k];
      legal_ids[row] = id;
      if (mask) mask[id] = 1;
      encode_move(e.legal.moves[k], legal_features.data() + row * kMoveFeatureSize);
    }
  }
}

}  // namespace shuangkou
