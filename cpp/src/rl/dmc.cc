#include "shuangkou/rl/dmc.h"

#include <omp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "shuangkou/rl/threads.h"

namespace shuangkou {
namespace {

VectorEnvOptions env_options(const DmcActorOptions& o) {
  VectorEnvOptions e;
  e.rules = o.rules;
  e.num_envs = o.num_envs;
  e.seed = o.seed;
  e.threads = o.threads;
  e.reward = o.reward;
  e.dense_mask = false;  // the actors read the legal ids and feature rows
  e.deals = o.deals;
  if (o.opponent) e.bots[1] = e.bots[3] = o.opponent;  // else every seat external
  return e;
}

void check_share(double p, const char* what) {
  if (!(p >= 0.0 && p <= 1.0))
    throw std::invalid_argument(std::string(what) + " must be in [0, 1], got " + std::to_string(p));
}

void check_network(const std::shared_ptr<const QNet>& net) {
  if (!net) throw std::invalid_argument("the actors need a network");
  if (net->shape().obs_size != observation_size() || net->shape().move_size != kMoveFeatureSize)
    throw std::invalid_argument("the network takes observations of " + std::to_string(net->shape().obs_size) +
                                " floats and moves of " + std::to_string(net->shape().move_size) +
                                "; this build's are " + std::to_string(observation_size()) + " and " +
                                std::to_string(kMoveFeatureSize));
}

void check_teacher_prob(double p, const DmcActorOptions& o) {
  check_share(p, "teacher_prob");
  if (p > 0 && !o.teacher) throw std::invalid_argument("teacher_prob is above 0 but there is no teacher");
}

// The options, checked before the env is built (its bots play their first moves then).
const DmcActorOptions& checked(const DmcActorOptions& o, const std::shared_ptr<const QNet>& net) {
  check_network(net);
  check_share(o.epsilon, "epsilon");
  check_teacher_prob(o.teacher_prob, o);
  if (o.teacher) o.teacher->check_variant(o.rules.variant());
  return o;
}

// The dmc bot on `net` where its metadata gives a heuristic prior (the actors
// then play as that bot does); null where it gives none. As without a prior,
// the network plays whatever rule set the actors deal (its "variant" metadata
// is not checked: the bot is only asked to step).
BotPtr prior_bot_of(const std::shared_ptr<const QNet>& net) {
  if (!net->metadata().contains("heuristic_prior")) return nullptr;
  return make_dmc_bot(net, "the actors' network");  // (refuses a bad prior, naming it)
}

// Refuses a collect after one that stopped in the middle of a step.
[[noreturn]] void refuse_interrupted() {
  throw std::runtime_error(
      "DmcActors.collect: an earlier collect was interrupted in the middle of a step, so some deals "
      "moved and others did not; these actors cannot go on (make new ones)");
}

// How many of the n envs have a player to act (-1: idle, or the deal finished).
int64_t count_deciding(const int8_t* current, int n) {
  int64_t k = 0;
  for (int j = 0; j < n; ++j) k += current[j] >= 0;
  return k;
}

// Appends one decision to a deal's trajectory: observation, move features, network version, seat.
template <class Trajectory>
void record_decision(Trajectory& t, const float* obs, int obs_size, const float* move, int64_t version,
                     int8_t seat) {
  t.obs.insert(t.obs.end(), obs, obs + obs_size);
  t.move.insert(t.move.end(), move, move + kMoveFeatureSize);
  t.version.push_back(version);
  t.seat.push_back(seat);
}

// Plays the step's actions; a cancel or an error (an opponent bot's) that stops the step
// midway, leaving the env interrupted, leaves the actors interrupted too.
void step_or_interrupt(VectorEnv& env, const std::vector<int32_t>& actions, const CancelFlag* cancel,
                       bool& interrupted) {
  try {
    env.step(actions, cancel);
  } catch (...) {
    interrupted = interrupted || env.interrupted();
    throw;
  }
}

}  // namespace

DmcActors::DmcActors(const DmcActorOptions& o, std::shared_ptr<const QNet> net, int64_t version,
                     const CancelFlag* cancel)
    : options_(checked(o, net)),
      net_(std::move(net)),
      prior_bot_(prior_bot_of(net_)),
      version_(version),
      env_(env_options(o), cancel) {
  teacher_prob_.store(o.teacher_prob);
  trajectories_.resize(static_cast<size_t>(env_.num_envs()));
  for (int j = 0; j < env_.num_envs(); ++j) rngs_.emplace_back(derive_seed(o.seed ^ 0xD3C0ACE5ULL, j));
  actions_.assign(static_cast<size_t>(env_.num_envs()), 0);
}

void DmcActors::set_teacher_prob(double p) {
  check_teacher_prob(p, options_);
  teacher_prob_.store(p);
}

void DmcActors::set_network(std::shared_ptr<const QNet> net, int64_t version) {
  check_network(net);
  BotPtr bot = prior_bot_of(net);
  std::lock_guard<std::mutex> lock(net_mutex_);
  net_.swap(net);
  prior_bot_.swap(bot);
  version_ = version;
}  // (the old network is freed here unless a running collect still holds it)

int DmcActors::bot_row(int j, const Bot& bot, MoveList& scratch, SplitMix64& rng, const CancelFlag* cancel) {
  const int64_t first = env_.legal_offsets[j];
  const int k = static_cast<int>(env_.legal_offsets[j + 1] - first);
  const Play p = choose_action(bot, env_.variant(), env_.state(j), env_.recent(j), scratch, rng, cancel);
  const int32_t id = env_.catalogue().id_of_generated(p);  // legal: it is found
  int row = 0;
  while (row < k - 1 && env_.legal_ids[static_cast<size_t>(first + row)] != id) ++row;
  return row;
}

int DmcActors::choose_row(int j, const QNet& net, const Bot* prior_bot, double teacher_prob,
                          MoveList& scratch, std::vector<float>& q, const CancelFlag* cancel) {
  const int64_t first = env_.legal_offsets[j];
  const int k = static_cast<int>(env_.legal_offsets[j + 1] - first);
  SplitMix64& rng = rngs_[j];
  const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
  if (u < options_.epsilon) return static_cast<int>(rng.below(static_cast<uint32_t>(k)));
  if (k <= 1) return 0;
  if (teacher_prob > 0 && static_cast<double>(rng.next() >> 11) * 0x1.0p-53 < teacher_prob)
    return bot_row(j, *options_.teacher, scratch, rng, cancel);
  if (prior_bot) return bot_row(j, *prior_bot, scratch, rng, cancel);  // (the bot's Q, prior added)
  q.resize(static_cast<size_t>(k));
  net.q_values(env_.observations() + static_cast<size_t>(j) * observation_size(),
               env_.legal_features.data() + first * kMoveFeatureSize, k, q.data());
  return static_cast<int>(std::max_element(q.begin(), q.end()) - q.begin());  // ties: the first
}

void DmcActors::harvest(DmcSamples& out) {
  const uint8_t* done = env_.dones();
  const float* rewards = env_.rewards();
  for (int j = 0; j < env_.num_envs(); ++j) {
    if (!done[j]) continue;
    Trajectory& t = trajectories_[j];
    const int64_t deal = options_.deals >= 0 ? env_.last_index(j) : deals_finished_.load();
    out.obs.insert(out.obs.end(), t.obs.begin(), t.obs.end());
    out.move.insert(out.move.end(), t.move.begin(), t.move.end());
    out.version.insert(out.version.end(), t.version.begin(), t.version.end());
    out.seat.insert(out.seat.end(), t.seat.begin(), t.seat.end());
    for (int8_t s : t.seat) {
      out.target.push_back(rewards[j * kNumSeats + s]);
      out.deal.push_back(deal);
    }
    t.obs.clear();
    t.move.clear();
    t.version.clear();
    t.seat.clear();
    ++deals_finished_;
  }
}

DmcSamples DmcActors::collect(int64_t min_samples, const CancelFlag* cancel) {
  if (interrupted_) refuse_interrupted();
  DmcSamples out;
  const int n = env_.num_envs();
  const int obs_size = observation_size();
  const int threads = resolve_threads(options_.threads);
  while (out.size() < min_samples) {
    if (cancel_requested(cancel)) throw Cancelled();  // between steps: the actors can go on
    // This step's network, version and teacher share (set_network may run meanwhile).
    std::shared_ptr<const QNet> net_in_use;
    BotPtr prior_bot;
    int64_t version = 0;
    {
      std::lock_guard<std::mutex> lock(net_mutex_);
      net_in_use = net_;
      prior_bot = prior_bot_;
      version = version_;
    }
    const double teacher_prob = teacher_prob_.load();
    const int8_t* current = env_.current_players();
    const int64_t deciding = count_deciding(current, n);
    if (deciding == 0) break;  // `deals` mode: every deal is finished
    const float* obs = env_.observations();
    const float* features = env_.legal_features.data();
    FirstError error;
#pragma omp parallel num_threads(std::max(1, std::min(threads, n / 8)))
    {
      thread_local std::vector<float> q;  // grown once a thread, then reused
      thread_local MoveList scratch;
#pragma omp for schedule(dynamic, 4)
      for (int j = 0; j < n; ++j) {
        if (current[j] < 0) continue;  // idle
        error.run([&] {
          const int row = choose_row(j, *net_in_use, prior_bot.get(), teacher_prob, scratch, q, cancel);
          const int64_t at = env_.legal_offsets[j] + row;
          record_decision(trajectories_[j], obs + static_cast<size_t>(j) * obs_size, obs_size,
                          features + at * kMoveFeatureSize, version, current[j]);
          actions_[j] = env_.legal_ids[static_cast<size_t>(at)];
        });
      }
    }
    if (error.failed()) {  // some decisions recorded, none played: as an interruption
      interrupted_ = true;
      error.rethrow();
    }
    if (cancel_requested(cancel)) {  // stopped while deciding: the decisions are recorded, not played
      interrupted_ = true;
      throw Cancelled();
    }
    decisions_ += deciding;
    step_or_interrupt(env_, actions_, cancel, interrupted_);
    harvest(out);
  }
  return out;
}

}  // namespace shuangkou
