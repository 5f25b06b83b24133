// The expert labeller (label.h, docs/labels.md).
#include "shuangkou/rl/label.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "shuangkou/bots/rollouts.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/rl/deal.h"
#include "shuangkou/rl/threads.h"

namespace shuangkou {
namespace {

// The labeller's streams of a deal, apart from the agents': decisions and
// candidates, and worlds.
constexpr uint64_t kLabelSalt = 0x1ABE11EDULL, kWorldSalt = 0x3091D5ULL;
constexpr int64_t kMaxWorlds = 1 << 16;

// The candidates of one decision, each with why it is there.
struct Candidates {
  std::array<Play, kMaxRolloutCandidates> plays;
  std::array<uint8_t, kMaxRolloutCandidates> why{};
  int size = 0;
  int limit = kMaxRolloutCandidates;
  int find(const Play& p) const {
    for (int i = 0; i < size; ++i)
      if (plays[i] == p) return i;
    return -1;
  }
  void add(const Play& p, uint8_t source) {
    const int at = find(p);
    if (at >= 0) {
      why[at] |= source;
    } else if (size < limit) {
      plays[size] = p;
      why[size++] = source;
    }
  }
};

double uniform01(SplitMix64& rng) { return static_cast<double>(rng.next() >> 11) * 0x1.0p-53; }

// Whether `bot` values positions (Bot::position_value), asked at a deal's first decision.
bool values_positions(const Bot& bot, const Variant& v) {
  const GameState s = GameState::deal(v, 0);
  MoveList moves;
  s.legal_moves(v, moves);
  SplitMix64 rng(0);
  return bot.position_value(Decision{v, s, {}, moves, rng, nullptr}).has_value();
}

void check_options(const LabelOptions& o) {
  const auto bad = [](const std::string& what) { throw std::invalid_argument("label: " + what); };
  if (o.deals < 0 || o.first < 0) bad("first and deals must be >= 0");
  if (o.agents.empty()) bad("no agents: give at least one agent to play the deals");
  if (o.weights.size() != o.agents.size()) bad("weights: one weight an agent");
  for (size_t i = 0; i < o.agents.size(); ++i) {
    if (!o.agents[i]) bad("agent " + std::to_string(i) + " is null");
    if (!(o.weights[i] > 0 && std::isfinite(o.weights[i]))) bad("weights must be finite and > 0");
    o.agents[i]->check_variant(o.rules.variant());
  }
  if (o.agents.size() > 100) bad("at most 100 agents");
  if (!(o.label_prob > 0 && o.label_prob <= 1)) bad("label_prob must lie in (0, 1]");
  if (o.worlds < 1 || o.worlds > kMaxWorlds) bad("worlds must lie in 1.." + std::to_string(kMaxWorlds));
  if (o.max_candidates < 2 || o.max_candidates > kMaxRolloutCandidates)
    bad("max_candidates must lie in 2.." + std::to_string(kMaxRolloutCandidates));
  if (o.all_legal_up_to < 0 || o.all_legal_up_to > o.max_candidates)
    bad("all_legal_up_to must lie in 0..max_candidates");
  if (o.random_candidates < 0 || o.random_candidates > o.max_candidates)
    bad("random_candidates must lie in 0..max_candidates");
  if (o.guide_top < 1 || o.guide_top > o.max_candidates) bad("guide_top must lie in 1..max_candidates");
  for (const BotPtr& b : {o.guide, o.probe, o.leaf})
    if (b) b->check_variant(o.rules.variant());
  if (o.leaf_plies < 0 || o.leaf_plies > kMaxLeafPlies)
    bad("leaf_plies must lie in 0.." + std::to_string(kMaxLeafPlies));
  if (o.leaf && (o.leaf->slow() || !values_positions(*o.leaf, o.rules.variant())))
    bad("leaf: bot '" + clip(o.leaf->label(), 80) +
        "' is no network (a leaf plays a few actions and values the position: dmc or dmc:PATH)");
}

// The index of the highest of the first n values of `q` (ties: the lower), or
// the indexes of its k highest in that order.
void best_by_value(std::span<const float> q, int k, std::vector<int>& order) {
  order.resize(q.size());
  std::iota(order.begin(), order.end(), 0);
  k = std::min<int>(k, static_cast<int>(q.size()));
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](int a, int b) { return q[a] > q[b] || (q[a] == q[b] && a < b); });
  order.resize(static_cast<size_t>(k));
}

// The legal action i of a decision: moves in order, then the pass.
Play legal_at(const Decision& d, int i) { return i < d.moves.size() ? d.moves[i] : kPass; }
int legal_count(const Decision& d) { return d.moves.size() + (d.state.can_pass() ? 1 : 0); }

// The bot's best `k` legal actions by its values (empty if it rates none).
int rated_best(const Bot& bot, const Decision& d, int k, std::array<Play, kMaxRolloutCandidates>& out) {
  thread_local std::vector<float> q;
  thread_local std::vector<int> order;
  q.resize(static_cast<size_t>(legal_count(d)));
  if (!bot.values(d, q)) return 0;
  best_by_value(q, k, order);
  for (size_t i = 0; i < order.size(); ++i) out[i] = legal_at(d, order[i]);
  return static_cast<int>(order.size());
}

// The candidates of a decision (label.h: LabelOptions), in the order of their sources.
Candidates candidates(const LabelOptions& o, const Decision& d, SplitMix64& rng) {
  Candidates c;
  c.limit = o.max_candidates;
  const int n = legal_count(d);
  std::array<Play, kMaxSearchCandidates> search;
  const int found = search_candidates(d.variant, d.state, d.moves, search);
  if (n <= o.all_legal_up_to) {
    for (int i = 0; i < n; ++i) c.add(legal_at(d, i), kFromAllLegal);
    // Every legal action is in: the sources below only mark theirs.
    if (d.state.can_pass()) c.add(kPass, kFromPass);
    c.add(search[0], kFromHeuristic);
    for (int i = 0; i < found; ++i) c.add(search[i], kFromSearch);
    return c;
  }
  if (d.state.can_pass()) c.add(kPass, kFromPass);
  c.add(search[0], kFromHeuristic);  // (the search's first is the heuristic's choice)
  std::array<Play, kMaxRolloutCandidates> best;
  const int rated = o.guide ? rated_best(*o.guide, d, o.guide_top, best) : 0;
  for (int i = 0; i < rated; ++i) c.add(best[i], kFromGuide);
  for (int i = 0; i < found; ++i) c.add(search[i], kFromSearch);
  // Random plays, drawn among those not yet in; a place is kept for them.
  const int room = std::min(o.random_candidates, n - c.size);
  c.size = std::min(c.size, o.max_candidates - room);
  for (int added = 0; added < room;) {
    const Play p = legal_at(d, static_cast<int>(rng.below(static_cast<uint32_t>(n))));
    if (c.find(p) >= 0) continue;
    c.add(p, kFromRandom);
    ++added;
  }
  return c;
}

}  // namespace

namespace {

// The index of the bot's best action among the candidates (-1: outside, or the bot rates nothing).
int16_t rated_pick(const Bot* bot, const Decision& d, const Candidates& c) {
  if (!bot) return -1;
  std::array<Play, kMaxRolloutCandidates> best;
  return rated_best(*bot, d, 1, best) == 1 ? static_cast<int16_t>(c.find(best[0])) : int16_t{-1};
}

// Appends one decision's candidates and their rollout results to `out`.
void write_candidates(const Candidates& c, const ActionCatalogue& catalogue,
                      std::span<const RolloutTally> tally, int worlds, LabelSet& out) {
  const double n = worlds;
  const auto se = [&](double sum, double sum_sq) {
    const double mean = sum / n;
    return static_cast<float>(std::sqrt(std::max(0.0, sum_sq / n - mean * mean) / n));
  };
  for (int i = 0; i < c.size; ++i) {
    const RolloutTally& t = tally[i];
    out.action.push_back(catalogue.id_of_generated(c.plays[i]));
    const size_t at = out.move.size();
    out.move.resize(at + kMoveFeatureSize);
    encode_move(c.plays[i], out.move.data() + at);
    out.why.push_back(c.why[i]);
    out.win.push_back(static_cast<float>(t.win / n));
    out.win_se.push_back(se(t.win, t.win_sq));
    out.adv.push_back(static_cast<float>(t.rel / n));
    out.adv_se.push_back(se(t.rel, t.rel_sq));
    out.score.push_back(static_cast<float>(t.score / n));
    out.score_se.push_back(se(t.score, t.score_sq));
  }
  out.offset.push_back(static_cast<int64_t>(out.action.size()));
}

// What one deal's labelling knows besides the options.
struct DealContext {
  const LabelOptions& o;
  int64_t index;
  std::array<int8_t, kNumSeats> agent_of;  // index in o.agents of each seat's agent
};

// Labels the decision `d` of the deal: its candidates scored on shared
// worlds. `chosen` is the play the seat's agent makes (null: none). False if cancelled.
bool label_decision(const DealContext& k, const Decision& d, const Play* chosen, SplitMix64& rng,
                    SplitMix64& world_rng, LabelSet& out) {
  const LabelOptions& o = k.o;
  const Candidates c = candidates(o, d, rng);
  std::array<RolloutTally, kMaxRolloutCandidates> tally{};
  const RolloutLeaf leaf{o.leaf.get(), o.leaf_plies, d.recent};
  const int worlds = rollout_candidates(d.variant, d.state, std::span<const Play>(c.plays.data(), c.size),
                                        o.worlds, world_rng, o.cancel, tally, leaf);
  if (worlds < o.worlds) return false;
  const int seat = d.state.current_player();
  const size_t at = out.obs.size();
  out.obs.resize(at + static_cast<size_t>(observation_size()));
  encode_observation(d.variant, d.state, d.recent, seat, out.obs.data() + at);
  if (o.with_state) {
    const size_t s = out.state.size();
    out.state.resize(s + static_cast<size_t>(state_size()));
    encode_state(d.variant, d.state, d.recent, seat, out.state.data() + s);
  }
  out.deal.push_back(k.index);
  out.ply.push_back(static_cast<int16_t>(d.state.num_actions()));
  out.seat.push_back(static_cast<int8_t>(seat));
  out.agent.push_back(k.agent_of[seat]);
  out.legal.push_back(static_cast<int16_t>(legal_count(d)));
  out.worlds.push_back(worlds);
  out.chosen.push_back(static_cast<int16_t>(chosen ? c.find(*chosen) : -1));
  out.probe_best.push_back(rated_pick(o.probe.get(), d, c));
  write_candidates(c, o.rules.catalogue(), tally, worlds, out);
  return true;
}

int8_t draw_agent(const LabelOptions& o, SplitMix64& rng) {
  const double total = std::accumulate(o.weights.begin(), o.weights.end(), 0.0);
  double u = uniform01(rng) * total;
  for (size_t i = 0; i + 1 < o.weights.size(); ++i) {
    if (u < o.weights[i]) return static_cast<int8_t>(i);
    u -= o.weights[i];
  }
  return static_cast<int8_t>(o.weights.size() - 1);
}

// Plays deal `index` with its drawn agents, labelling sampled decisions into
// `out` (empty at the call). False if cancelled.
bool label_deal(const LabelOptions& o, int64_t index, MoveList& moves, LabelSet& out) {
  const Variant& v = o.rules.variant();
  const uint64_t seed = derive_seed(o.seed, static_cast<uint64_t>(index));
  SplitMix64 agent_rng(agent_seed(seed)), label_rng(mix64(seed ^ kLabelSalt));
  SplitMix64 world_rng(label_world_seed(seed, o.world_salt));
  DealContext k{o, index, {}};
  const int8_t team0 = draw_agent(o, label_rng), team1 = draw_agent(o, label_rng);
  for (int s = 0; s < kNumSeats; ++s) k.agent_of[s] = s % 2 == 0 ? team0 : team1;
  DealInProgress d{GameState::deal(v, seed), {}, {}};
  out.offset.assign(1, 0);
  while (!d.state.is_over()) {
    if (cancel_requested(o.cancel)) return false;
    const int seat = d.state.current_player();
    d.state.legal_moves(v, moves);
    const Decision dec{v, d.state, d.recent.view(), moves, agent_rng, o.cancel};
    const bool labelled = legal_count(dec) >= 2 && uniform01(label_rng) < o.label_prob;
    const Play a = moves.empty() ? kPass : o.agents[k.agent_of[seat]]->step(dec);
    if (cancel_requested(o.cancel)) return false;
    if (labelled && !label_decision(k, dec, &a, label_rng, world_rng, out)) return false;
    d.apply(v, a);
  }
  return true;
}

}  // namespace

uint64_t label_world_seed(uint64_t stream_seed, uint64_t world_salt) {
  return mix64(stream_seed ^ kWorldSalt ^ mix64(world_salt));
}

bool label_position(const LabelOptions& o, const GameState& s, std::span<const Action> recent,
                    uint64_t stream_seed, LabelSet& out) {
  if (s.is_over()) throw std::invalid_argument("label_position: the deal is over");
  const Variant& v = o.rules.variant();
  MoveList moves;
  s.legal_moves(v, moves);
  SplitMix64 agent_rng(agent_seed(stream_seed)), label_rng(mix64(stream_seed ^ kLabelSalt));
  SplitMix64 world_rng(label_world_seed(stream_seed, o.world_salt));
  const Decision d{v, s, recent, moves, agent_rng, o.cancel};
  if (legal_count(d) < 2)
    throw std::invalid_argument("label_position: the player to act has one legal action");
  if (out.offset.empty()) out.offset.push_back(0);
  const DealContext k{o, -1, {-1, -1, -1, -1}};
  return label_decision(k, d, nullptr, label_rng, world_rng, out);
}

namespace {

template <typename T>
void append_rows(std::vector<T>& to, const std::vector<T>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

}  // namespace

void LabelSet::append(const LabelSet& o) {
  const int64_t base = offset.empty() ? 0 : offset.back();
  if (offset.empty()) offset.push_back(0);
  for (size_t i = 1; i < o.offset.size(); ++i) offset.push_back(base + o.offset[i]);
  append_rows(obs, o.obs), append_rows(state, o.state), append_rows(deal, o.deal);
  append_rows(ply, o.ply), append_rows(seat, o.seat), append_rows(agent, o.agent);
  append_rows(legal, o.legal), append_rows(worlds, o.worlds), append_rows(chosen, o.chosen);
  append_rows(probe_best, o.probe_best), append_rows(action, o.action), append_rows(move, o.move);
  append_rows(why, o.why), append_rows(win, o.win), append_rows(win_se, o.win_se);
  append_rows(adv, o.adv), append_rows(adv_se, o.adv_se), append_rows(score, o.score);
  append_rows(score_se, o.score_se);
}

LabelSet label_deals(const LabelOptions& o, const std::function<bool(int64_t)>& progress) {
  check_options(o);
  const int threads = resolve_threads(o.threads);
  const int64_t block = std::max<int64_t>(8, 4 * threads);
  LabelSet all;
  all.offset.assign(1, 0);
  std::vector<LabelSet> parts;
  for (int64_t done = 0; done < o.deals;) {
    const int64_t end = std::min(o.deals, done + block);
    parts.assign(static_cast<size_t>(end - done), LabelSet{});
    FirstError error;
#pragma omp parallel num_threads(threads)
    {
      MoveList moves;
#pragma omp for schedule(dynamic, 1)  // a deal's labels take about a second
      for (int64_t i = done; i < end; ++i)
        if (!cancel_requested(o.cancel))
          error.run([&] { label_deal(o, o.first + i, moves, parts[i - done]); });
    }
    error.rethrow();
    if (cancel_requested(o.cancel)) throw Cancelled();
    for (const LabelSet& p : parts) all.append(p);
    done = end;
    if (progress && !progress(done)) break;
  }
  return all;
}

}  // namespace shuangkou
