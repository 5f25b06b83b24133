// The expert labeller (docs/labels.md): deals played by a mix of agents, and
// at sampled decisions every candidate play scored by determinized rollouts
// (rollouts.h: the search bots' own comparison), so that a network can learn
// what the search knows (expert iteration).
//
// Reproducible: deal i of a run is dealt from derive_seed(seed, i); its
// agents, the decisions labelled and the worlds come from streams of that
// deal's seed alone, so a deal's labels do not depend on the thread count or
// on which other deals are labelled with it. The positions are those the
// agents reach: labelling draws from its own streams, never the agents': one
// picks the decisions labelled and the random candidates, another (salted by
// world_salt) draws the worlds.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cancel.h"
#include "shuangkou/core/rules.h"

namespace shuangkou {

// Why a candidate was labelled (bits of LabelSet::why). Where every legal action is
// labelled, the heuristic's, search's and pass bits still mark their candidates.
enum CandidateSource : uint8_t {
  kFromAllLegal = 1,   // the decision had few legal actions: every one is labelled
  kFromHeuristic = 2,  // the heuristic's choice
  kFromSearch = 4,     // one of the search bot's candidates
  kFromGuide = 8,      // one of the guide's best by value
  kFromPass = 16,      // the pass, always labelled where legal
  kFromRandom = 32,    // a random legal play
};

struct LabelOptions {
  Rules rules;
  uint64_t seed = 0;
  int64_t first = 0;  // deals first..first+deals-1 of the seed
  int64_t deals = 0;
  int threads = 0;  // 0: every core OpenMP sees
  // The agents whose play makes the positions: each deal, each team draws
  // one of them (both its seats play it), with probability proportional to
  // its weight.
  std::vector<BotPtr> agents;
  std::vector<double> weights;
  double label_prob = 0.25;  // chance a decision with two or more legal actions is labelled
  int worlds = 32;           // worlds each labelled decision's candidates share
  int all_legal_up_to = 12;  // every legal action is a candidate where there are at most this many
  int max_candidates = 16;   // otherwise at most this many (the sources below, in their order)
  int random_candidates = 2;
  BotPtr guide;  // optional: a bot that rates its moves; its guide_top best are candidates
  int guide_top = 4;
  BotPtr probe;            // optional: a bot that rates its moves; where its best lies is recorded
  bool with_state = true;  // also write the full-information state (encode_state)
  // Optional: a network (a bot that values positions and does not search)
  // ends every rollout (RolloutLeaf, rollouts.h): it plays leaf_plies actions
  // after the candidate, then its value of the position is the win. None: the
  // heuristic plays to the end.
  BotPtr leaf;
  int leaf_plies = 4;
  // The worlds' stream of a deal is salted with this: another salt scores the
  // same decisions' same candidates on fresh worlds (an unbiased second
  // estimate, for the regret of a choice made on the first).
  uint64_t world_salt = 0;
  const CancelFlag* cancel = nullptr;
};

// The labelled decisions, in deal order and play order within a deal. Rows
// of decision i's candidates: offset[i] .. offset[i+1]-1.
struct LabelSet {
  // One per decision.
  std::vector<float> obs;           // [n, observation_size()]
  std::vector<float> state;         // [n, state_size()] (empty unless with_state)
  std::vector<int64_t> deal;        // the deal's index
  std::vector<int16_t> ply;         // actions played before the decision
  std::vector<int8_t> seat;         // the deciding seat
  std::vector<int8_t> agent;        // index in `agents` of the agent that plays the seat
  std::vector<int16_t> legal;       // legal actions (the pass included)
  std::vector<int32_t> worlds;      // worlds the candidates were scored on
  std::vector<int16_t> chosen;      // the candidate the agent then played (-1: outside the set)
  std::vector<int16_t> probe_best;  // the probe's best candidate (-1: outside the set or no probe)
  std::vector<int64_t> offset;      // [n + 1]
  // One per candidate.
  std::vector<int32_t> action;  // catalogue id
  std::vector<float> move;      // [m, kMoveFeatureSize]
  std::vector<uint8_t> why;     // CandidateSource bits
  // The deciding seat's results over the worlds: the mean win reward and its
  // standard error, the mean relative to the candidates' mean in the same
  // worlds and its (paired) standard error, and the mean deal score and its
  // standard error.
  std::vector<float> win, win_se, adv, adv_se, score, score_se;

  int64_t size() const { return static_cast<int64_t>(deal.size()); }
  int64_t candidates() const { return static_cast<int64_t>(action.size()); }
  void append(const LabelSet& other);  // other's rows after this one's
};

// Labels deals first..first+deals-1 (LabelOptions). `progress(done)` is
// called between blocks of deals with the deals finished and returns false
// to stop; throws std::invalid_argument naming a bad option, and Cancelled
// once `cancel` is set (the labels are lost).
LabelSet label_deals(const LabelOptions& o, const std::function<bool(int64_t)>& progress = {});

// Labels the decision of the player to act in `s` (two or more legal actions;
// `recent`: the deal's last actions, for the observation) as label_deals
// labels a decision: its candidates (the random ones drawn from a stream of
// `stream_seed`) scored on the worlds of label_world_seed(stream_seed,
// o.world_salt), the stream's first worlds. Appends one decision to `out`
// (deal -1, agent -1, chosen -1). For tests and tools; throws
// std::invalid_argument for a finished deal or a single legal action. False,
// with nothing appended, if cancelled.
bool label_position(const LabelOptions& o, const GameState& s, std::span<const Action> recent,
                    uint64_t stream_seed, LabelSet& out);

// The seed of the worlds' stream of a deal dealt from `deal_seed`.
uint64_t label_world_seed(uint64_t deal_seed, uint64_t world_salt);

}  // namespace shuangkou
