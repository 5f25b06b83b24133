// The guided search ("dmc+search", cpp/src/bots/guided.cc): its names, its
// errors, the guide's choice with no budget, and what it counts. Legality,
// determinism and blindness on every preset are the conformance test's
// (conformance_test.cc plays "dmc+search" there).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "shuangkou/bots/bot.h"
#include "shuangkou/bots/rollouts.h"
#include "shuangkou/model/encode.h"
#include "test_util.h"

namespace shuangkou {
namespace {

BotPtr random_dmc(uint64_t seed) {
  return make_dmc_bot(
      std::make_shared<const QNet>(testing::random_qnet({observation_size(), kMoveFeatureSize, {16}}, seed)),
      "random weights");
}

// The actions of one deal with `bot` in every seat, keeping the recent
// actions as the runners do.
std::vector<Play> deal_actions(const Variant& v, uint64_t seed, const Bot& bot) {
  GameState s = GameState::deal(v, seed);
  SplitMix64 rng(agent_seed(seed));
  RecentActions recent;
  MoveList scratch;
  std::vector<Play> out;
  while (!s.is_over()) {
    const Play a = choose_action(bot, v, s, recent.view(), scratch, rng);
    EXPECT_EQ(s.check(v, a), "") << bot.label();
    recent.push(s.current_player(), a);
    s.apply(v, a);
    out.push_back(a);
  }
  return out;
}

std::map<std::string, uint64_t> counters_of(const Bot& bot) {
  std::map<std::string, uint64_t> out;
  for (const auto& [name, value] : bot.counters()) out[name] = value;
  return out;
}

TEST(GuidedSearch, WithNoBudgetItPlaysTheGuidesChoiceInEveryPreset) {
  const BotPtr guide = random_dmc(3);
  const BotPtr guided = make_guided_search_bot(guide, 0, "guided:0");
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    for (int d = 0; d < 3; ++d)
      EXPECT_EQ(deal_actions(v, derive_seed(31, d), *guided), deal_actions(v, derive_seed(31, d), *guide))
          << name << " deal " << d;
  }
  const auto c = counters_of(*guided);
  EXPECT_GT(c.at("decisions"), 0u);
  EXPECT_EQ(c.at("searched"), 0u);
  EXPECT_EQ(c.at("changed"), 0u);
  EXPECT_FALSE(guided->slow());
}

TEST(GuidedSearch, SearchesNearTiesAndCountsWhatItDid) {
  // A random network's values lie close together: many decisions are searched.
  const BotPtr guided = make_guided_search_bot(random_dmc(4), 16, "guided:16");
  EXPECT_TRUE(guided->slow());
  const Variant v = preset("baibian");
  for (int d = 0; d < 2; ++d) deal_actions(v, derive_seed(41, d), *guided);
  const auto c = counters_of(*guided);
  EXPECT_GT(c.at("searched"), 0u);
  EXPECT_LE(c.at("searched"), c.at("decisions"));
  EXPECT_LE(c.at("changed"), c.at("searched"));
  EXPECT_GT(c.at("changed"), 0u);  // the rollouts overrule a random network somewhere
}

TEST(GuidedSearch, ItsValuesAreTheGuides) {
  const BotPtr guide = random_dmc(5);
  const BotPtr guided = make_guided_search_bot(guide, 8, "guided");
  const Variant v = preset("classic");
  const GameState s = GameState::deal(v, 9);
  MoveList moves;
  s.legal_moves(v, moves);
  SplitMix64 rng(1);
  const Decision d{v, s, {}, moves, rng, nullptr};
  std::vector<float> a(moves.size()), b(moves.size());
  ASSERT_TRUE(guide->values(d, a));
  ASSERT_TRUE(guided->values(d, b));
  EXPECT_EQ(a, b);
}

TEST(GuidedSearch, NamesMakeItAndBadNamesAreRefusedNamingThem) {
  if (testing::register_shipped_models().empty()) GTEST_SKIP() << "no shipped model";
  const std::string path = testing::shipped_baibian_model();
  for (const std::string& name : std::vector<std::string>{
           "dmc+search", "dmc+search:16", "dmc+search:0", "dmc:" + path + "+search",
           "dmc:" + path + "+search:8", "dmc+search:16:4", "dmc:" + path + "+search:8:0"})
    EXPECT_EQ(make_bot(name)->label(), name);
  EXPECT_EQ(make_bot("dmc+search:0")->slow(), false);
  // (name, a part of the message)
  const std::pair<std::string, std::string> bad[] = {
      {"dmc+search:-1", "integer 0.."},
      {"dmc+search:x", "integer 0.."},
      {"dmc+search:2000000", "integer 0.."},
      {"dmc+search:", "needs its ROLLOUTS"},
      {"dmc+search:16:", "PLIES after '+search:ROLLOUTS:'"},
      {"dmc+search:16:65", "integer 0..64"},
      {"dmc+search:16:x", "integer 0..64"},
      {"dmc:missing.safetensors+search", "missing.safetensors"},
      {"heuristic+search", "rates its moves (dmc"},
      {"search:8+search", "not 'search:8'"},
      {"dmc+search+search", "not 'dmc+search'"},
      {"+search", "rates its moves"},
  };
  for (const auto& [name, part] : bad) {
    try {
      make_bot(name);
      ADD_FAILURE() << name << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(name.substr(0, name.find('+'))), std::string::npos) << what;
      EXPECT_NE(what.find(part), std::string::npos) << name << ": " << what;
    }
  }
  EXPECT_THROW(make_guided_search_bot(nullptr, 4, "x"), std::invalid_argument);
  EXPECT_THROW(make_guided_search_bot(make_bot("dmc"), -1, "x"), std::invalid_argument);
  EXPECT_THROW(make_guided_search_bot(make_bot("dmc"), 4, "x", kMaxLeafPlies + 1), std::invalid_argument);
}

TEST(GuidedSearch, ShortRolloutsCompareTheGuidesValuesAndChangeItsChoiceSomewhere) {
  // The same network with short rollouts: legal, searched where the heuristic's
  // rollouts search, and its values at the leaves overrule its first choice somewhere.
  const BotPtr guided = make_guided_search_bot(random_dmc(4), 16, "guided:16:2", 2);
  const Variant v = preset("baibian");
  const std::vector<Play> first = deal_actions(v, derive_seed(41, 0), *guided);
  EXPECT_EQ(deal_actions(v, derive_seed(41, 0), *guided), first) << "not reproducible";
  const auto c = counters_of(*guided);
  EXPECT_GT(c.at("searched"), 0u);
  EXPECT_GT(c.at("changed"), 0u);
  const BotPtr full = make_guided_search_bot(random_dmc(4), 16, "guided:16");
  EXPECT_NE(deal_actions(v, derive_seed(41, 0), *full), first) << "the leaf changed nothing";
}

}  // namespace
}  // namespace shuangkou
