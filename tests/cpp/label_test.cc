// The expert labeller (cpp/src/rl/label.cc, docs/labels.md): reproducible per
// deal whatever the threads or the split into shards, its values are the
// rollouts of the search bots computed here independently on the same worlds,
// the search's own choice scores at least as well as its default in them, and
// its labels do not change with the cards the seat cannot see; short rollouts
// end on the leaf bot's value.
#include "shuangkou/rl/label.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "shuangkou/bots/rollouts.h"
#include "shuangkou/core/infoset.h"
#include "shuangkou/core/rewards.h"
#include "shuangkou/model/encode.h"
#include "test_util.h"

namespace shuangkou {
namespace {

LabelOptions options(int64_t deals, int threads) {
  LabelOptions o;
  o.rules = Rules::preset("baibian");
  o.seed = 11;
  o.deals = deals;
  o.threads = threads;
  o.agents = {make_bot("heuristic"), make_bot("greedy")};
  o.weights = {1, 1};
  o.worlds = 4;
  o.label_prob = 0.3;
  o.guide = make_dmc_bot(
      std::make_shared<const QNet>(testing::random_qnet({observation_size(), kMoveFeatureSize, {16}}, 5)),
      "g");
  o.probe = o.guide;
  return o;
}

// Equal labels; the full-information state too where `state` (it shows every hand).
void expect_same(const LabelSet& a, const LabelSet& b, bool state = true) {
  EXPECT_EQ(a.obs, b.obs);
  if (state) EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.deal, b.deal);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.action, b.action);
  EXPECT_EQ(a.move, b.move);
  EXPECT_EQ(a.why, b.why);
  EXPECT_EQ(a.win, b.win);
  EXPECT_EQ(a.adv_se, b.adv_se);
  EXPECT_EQ(a.score, b.score);
  EXPECT_EQ(a.chosen, b.chosen);
  EXPECT_EQ(a.probe_best, b.probe_best);
  EXPECT_EQ(a.agent, b.agent);
}

TEST(Label, EachDealIsReproducibleWhateverTheThreadsOrTheShards) {
  const LabelSet one = label_deals(options(6, 1));
  ASSERT_GT(one.size(), 10);
  EXPECT_EQ(one.offset.size(), static_cast<size_t>(one.size() + 1));
  expect_same(label_deals(options(6, 2)), one);
  LabelOptions first = options(4, 2), second = options(2, 2);
  second.first = 4;
  LabelSet joined = label_deals(first);
  joined.append(label_deals(second));
  expect_same(joined, one);
  LabelOptions salted = options(6, 2);
  salted.world_salt = 1;  // the same decisions and candidates, other worlds
  const LabelSet fresh = label_deals(salted);
  EXPECT_EQ(fresh.action, one.action);
  EXPECT_EQ(fresh.obs, one.obs);
  EXPECT_NE(fresh.win, one.win);
}

// The play of `moves` (or the pass) whose features are row i of the labels.
Play play_of_row(const LabelSet& l, int64_t i, const MoveList& moves) {
  std::array<float, kMoveFeatureSize> f;
  for (int m = -1; m < moves.size(); ++m) {
    const Play p = m < 0 ? kPass : moves[m];
    encode_move(p, f.data());
    if (std::equal(f.begin(), f.end(), l.move.begin() + i * kMoveFeatureSize)) return p;
  }
  ADD_FAILURE() << "candidate " << i << " is no legal play";
  return kPass;
}

// The lead of a deal: many legal plays, so the candidates come from every source.
struct Lead {
  Variant v = preset("baibian");
  GameState s = GameState::deal(v, 99);
  MoveList moves;
  Lead() { s.legal_moves(v, moves); }
};

TEST(Label, ItsValuesAreTheHeuristicRolloutsOnTheStreamsWorlds) {
  LabelOptions o = options(0, 1);
  o.worlds = 6;
  const Lead lead;
  LabelSet l;
  ASSERT_TRUE(label_position(o, lead.s, {}, 7, l));
  ASSERT_EQ(l.size(), 1);
  const BotPtr heuristic = make_bot("heuristic");
  const int n = static_cast<int>(l.candidates());
  std::vector<double> win(n), score(n);
  WorldSampler sampler(lead.v, lead.s);
  SplitMix64 worlds(label_world_seed(7, 0)), unused(0);
  MoveList scratch;
  const int seat = lead.s.current_player();
  for (int w = 0; w < o.worlds; ++w) {
    const GameState world = sampler.sample(worlds);
    for (int i = 0; i < n; ++i) {
      GameState x = world;
      x.apply(lead.v, play_of_row(l, i, lead.moves));
      while (!x.is_over()) x.apply(lead.v, choose_action(*heuristic, lead.v, x, {}, scratch, unused));
      win[i] += deal_reward(RewardMode::kWin, x, lead.v, seat);
      score[i] += deal_reward(RewardMode::kScore, x, lead.v, seat);
    }
  }
  double mean = 0;
  for (int i = 0; i < n; ++i) {
    win[i] /= o.worlds;
    score[i] /= o.worlds;
    mean += win[i] / n;
  }
  for (int i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(l.win[i], win[i]) << "candidate " << i;
    EXPECT_FLOAT_EQ(l.score[i], score[i]) << "candidate " << i;
    EXPECT_NEAR(l.adv[i], win[i] - mean, 1e-5) << "candidate " << i;
  }
}

TEST(Label, TheSearchsChoiceOnTheSameWorldsScoresAtLeastItsDefault) {
  int changed = 0;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    LabelOptions o = options(0, 1);
    o.worlds = 16;
    const Lead lead;
    LabelSet l;
    ASSERT_TRUE(label_position(o, lead.s, {}, seed, l));
    std::array<Play, kMaxSearchCandidates> c;
    const int k = search_candidates(lead.v, lead.s, lead.moves, c);
    // The search bot with k * 16 rollouts scores its k candidates on the first 16 worlds.
    const BotPtr search = make_bot("search:" + std::to_string(k * o.worlds));
    SplitMix64 rng(label_world_seed(seed, 0));
    const Play chosen = search->step(Decision{lead.v, lead.s, {}, lead.moves, rng, nullptr});
    std::vector<Play> rows;
    for (int i = 0; i < l.candidates(); ++i) rows.push_back(play_of_row(l, i, lead.moves));
    for (int j = 0; j < k; ++j)
      EXPECT_NE(std::find(rows.begin(), rows.end(), c[j]), rows.end())
          << "search candidate " << j << " unlabelled";
    const auto row_of = [&](const Play& p) { return std::find(rows.begin(), rows.end(), p) - rows.begin(); };
    const auto row_default = row_of(c[0]), row_chosen = row_of(chosen);
    ASSERT_LT(row_chosen, l.candidates()) << "the search's choice is a candidate";
    EXPECT_GE(l.score[row_chosen], l.score[row_default]) << "seed " << seed;
    changed += row_chosen != row_default;
  }
  EXPECT_GT(changed, 0) << "the search never left its default: the check says nothing";
}

TEST(Label, ItsLabelsDoNotChangeWithTheCardsTheSeatCannotSee) {
  const LabelOptions o = options(0, 1);
  std::mt19937_64 redeal(3);
  const Variant v = preset("baibian");
  for (uint64_t seed = 0; seed < 6; ++seed) {
    GameState s = GameState::deal(v, seed);
    MoveList moves;
    SplitMix64 rng(seed);
    for (int k = 0; k < 9 + static_cast<int>(seed); ++k) s.apply(v, random_action(v, s, moves, rng));
    s.legal_moves(v, moves);
    if (moves.size() + (s.can_pass() ? 1 : 0) < 2) continue;
    LabelSet here, there;
    ASSERT_TRUE(label_position(o, s, {}, seed, here));
    ASSERT_TRUE(label_position(o, testing::same_information(v, s, redeal), {}, seed, there));
    expect_same(here, there, false);  // (the state is privileged: it shows the hidden hands)
  }
}

TEST(Label, BadOptionsAreRefusedNamingThem) {
  const auto refused = [](LabelOptions o, const std::string& what) {
    try {
      label_deals(o);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  LabelOptions o = options(1, 1);
  o.agents.clear();
  refused(o, "no agents");
  o = options(1, 1);
  o.weights = {1};
  refused(o, "weights");
  o = options(1, 1);
  o.worlds = 0;
  refused(o, "worlds");
  o = options(1, 1);
  o.label_prob = 0;
  refused(o, "label_prob");
  o = options(1, 1);
  o.max_candidates = 300;
  refused(o, "max_candidates");
  o = options(1, 1);
  o.all_legal_up_to = 20;
  refused(o, "all_legal_up_to");
  o = options(1, 1);
  o.leaf = make_bot("heuristic");
  refused(o, "leaf: bot 'heuristic' is no network");
  o.leaf = make_guided_search_bot(o.guide, 8, "g+search:8");
  refused(o, "leaf: bot 'g+search:8' is no network");
  o = options(1, 1);
  o.leaf = o.guide;
  o.leaf_plies = kMaxLeafPlies + 1;
  refused(o, "leaf_plies");
}

// A bot that rates every move and position `value` and plays its first legal play.
class ConstantBot final : public Bot {
 public:
  explicit ConstantBot(float value) : value_(value) {}
  Play step(const Decision& d) const override { return d.moves.empty() ? kPass : d.moves[0]; }
  std::string label() const override { return "constant"; }
  bool values(const Decision& /*d*/, std::span<float> out) const override {
    std::fill(out.begin(), out.end(), value_);
    return true;
  }
  std::optional<float> position_value(const Decision& /*d*/) const override { return value_; }

 private:
  float value_;
};

TEST(Label, ShortRolloutsEndOnTheLeafBotsValueForTheTeamToAct) {
  // After the leader's candidate, plies alternate the teams: the opponent acts
  // at the leaf after 0 or 2 plies (the value negated), the partner after 1 or 3.
  const Lead lead;
  for (int plies = 0; plies < 4; ++plies) {
    LabelOptions o = options(0, 1);
    o.leaf = std::make_shared<const ConstantBot>(0.25F);
    o.leaf_plies = plies;
    LabelSet l;
    ASSERT_TRUE(label_position(o, lead.s, {}, 7, l));
    ASSERT_GT(l.candidates(), 2);
    for (int64_t i = 0; i < l.candidates(); ++i) {
      EXPECT_FLOAT_EQ(l.win[i], plies % 2 == 0 ? -0.25F : 0.25F) << "plies " << plies << ", candidate " << i;
      EXPECT_FLOAT_EQ(l.adv[i], 0.0F);
    }
  }
}

TEST(Label, ShortRolloutsValueTheWorldSeenByTheSeatToAct) {
  // No plies: each candidate's win is minus the network's value of the
  // position for the next seat in each world, its observation showing the
  // candidate played.
  LabelOptions o = options(0, 1);
  o.leaf = o.guide;
  o.leaf_plies = 0;
  o.worlds = 5;
  const Lead lead;
  LabelSet l;
  ASSERT_TRUE(label_position(o, lead.s, {}, 7, l));
  const int n = static_cast<int>(l.candidates());
  std::vector<double> win(n);
  WorldSampler sampler(lead.v, lead.s);
  SplitMix64 worlds(label_world_seed(7, 0));
  MoveList moves;
  for (int w = 0; w < o.worlds; ++w) {
    const GameState world = sampler.sample(worlds);
    SplitMix64 bot_rng(worlds.next());
    for (int i = 0; i < n; ++i) {
      GameState x = world;
      const Play p = play_of_row(l, i, lead.moves);
      x.apply(lead.v, p);
      x.legal_moves(lead.v, moves);
      const std::array<Action, 1> recent{{{lead.s.current_player(), p}}};
      const std::optional<float> value =
          o.leaf->position_value(Decision{lead.v, x, recent, moves, bot_rng, nullptr});
      ASSERT_TRUE(value.has_value());
      win[i] -= std::clamp(*value, -1.0F, 1.0F);
    }
  }
  std::set<float> distinct;
  for (int i = 0; i < n; ++i) {
    EXPECT_NEAR(l.win[i], win[i] / o.worlds, 1e-6) << "candidate " << i;
    distinct.insert(l.win[i]);
  }
  EXPECT_GT(distinct.size(), 1U) << "every candidate valued alike: the check says little";
}

}  // namespace
}  // namespace shuangkou
