// Conformance: what every bot of the registry and every preset owe, checked
// for each pair the way OpenSpiel's RandomSimTest checks every game. A new
// preset (a row of variant.cc's table) or a new bot (a row of
// cpp/src/bots/registry.inc) is tested here with no edit:
//
//   1. legal moves only: every action a bot chooses passes GameState::check;
//   2. determinism: the same (preset, seed) played twice gives the same record;
//   3. blind to hidden cards: at sampled decisions the bot chooses the same
//      action (from the same random stream) when the cards its seat cannot see
//      are dealt anew among the seats that hold them, every count kept;
//   4. records replay: Game::from_json of the record reproduces the final
//      state and scores and writes the same text, as does Game::replay of the
//      actions;
//   5. the deal ends within a bound on the number of actions.
//
// The game alone gets the same battery under random play through the action
// ids (Game::legal_action_ids, apply_action), where "blind" means that the
// observation and its encoding do not change with the hidden cards.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/rules.h"
#include "shuangkou/core/variant.h"
#include "shuangkou/model/encode.h"
#include "test_util.h"

namespace shuangkou {
namespace {

// More actions than any deal can take: each play sheds a card of the 108 and
// at most three passes follow it.
constexpr int kMaxActions = 4 * 108 + 8;

// Arguments that keep a bot's test short where its default is slow. A bot
// that requires an argument and has none here is skipped, saying so.
const std::map<std::string, std::string>& test_arguments() {
  static const std::map<std::string, std::string> args = {{"search", "8"}, {"dmc+search", "16"}};
  return args;
}

const BotEntry& entry_of(const std::string& name) {
  for (const BotEntry& e : bot_registry())
    if (e.name == name) return e;
  throw std::logic_error("no registry row " + name);
}

// The bots the conformance test plays: every row of the registry, and the
// guided search on each row that guides one ("dmc+search").
std::vector<std::string> conformance_bots() {
  std::vector<std::string> names = bot_names();
  for (const BotEntry& e : bot_registry())
    if (e.guides_search) names.push_back(std::string(e.name) + "+search");
  return names;
}

// The shipped models stand in for the built-in ones the Python package
// registers at import, so that "dmc" plays here too.
void register_shipped_model() {
  static const bool once = [] {
    testing::register_shipped_models();
    return true;
  }();
  (void)once;
}

// Where play_deal checks a bot's blindness: at every `every`-th decision (none
// for 0), with hidden cards dealt anew from `redeal`; `done` counts the checks.
struct Probes {
  int every = 0;
  std::mt19937_64 redeal{7};
  int done = 0;
};

// One deal of `bot` in every seat. Checks each action (1) before applying it,
// the bot's blindness (3) where `probes` says, and the bound (5).
Game play_deal(const Rules& rules, uint64_t seed, const Bot& bot, Probes& probes) {
  const Variant& v = rules.variant();
  Game g(rules, seed);
  SplitMix64 rng(agent_seed(seed));
  RecentActions recent;
  MoveList scratch;
  while (!g.state().is_over()) {
    if (static_cast<int>(g.history().size()) >= kMaxActions) {
      ADD_FAILURE() << "the deal did not end within " << kMaxActions << " actions";
      break;
    }
    const GameState& s = g.state();
    const SplitMix64 before = rng;
    const Play a = choose_action(bot, v, s, recent.view(), scratch, rng);
    const std::string why = s.check(v, a);
    if (!why.empty()) {
      ADD_FAILURE() << "illegal action at action " << g.history().size() << ": " << why;
      break;
    }
    if (probes.every > 0 && s.num_actions() % probes.every == 0) {
      SplitMix64 again = before;  // the same draws as the call above
      const Play there = choose_action(bot, v, testing::same_information(v, s, probes.redeal), recent.view(),
                                       scratch, again);
      EXPECT_EQ(a, there) << "the action changed with the cards seat " << s.current_player()
                          << " cannot see, at action " << s.num_actions();
      ++probes.done;
    }
    recent.push(s.current_player(), a);
    g.apply(a);
  }
  return g;
}

// (4): the record reads back to the same deal, and the actions replay to it.
void expect_replays(const Game& g) {
  const std::string text = g.to_json();
  const Game read = Game::from_json(text);
  EXPECT_EQ(read.to_json(), text);
  EXPECT_TRUE(read.state() == g.state());
  EXPECT_EQ(read.history().size(), g.history().size());
  if (g.state().is_over() && read.state().is_over()) {
    EXPECT_EQ(read.state().score(read.variant()).total, g.state().score(g.variant()).total);
    EXPECT_EQ(read.state().places(), g.state().places());
  }
  const Game again = Game::replay(g.rules(), g.setup().seed, g.history());
  EXPECT_TRUE(again.state() == g.state());
  EXPECT_EQ(again.to_json(), text);
}

// ---------------------------------------------------------------- every bot on every preset

class BotConformance : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(BotConformance, LegalDeterministicBlindAndReplayable) {
  const auto& [preset_name, bot_name] = GetParam();
  const size_t plus = bot_name.find('+');
  const BotEntry& row = entry_of(bot_name.substr(0, plus));
  std::string spec = bot_name;
  if (const auto it = test_arguments().find(spec); it != test_arguments().end())
    spec += ":" + it->second;
  else if (plus == std::string::npos && row.arg == BotEntry::Arg::kRequired)
    GTEST_SKIP() << "bot '" << spec << "' requires an argument: give it one in test_arguments()";
  register_shipped_model();
  BotPtr bot;
  try {
    bot = make_bot(spec);
  } catch (const std::invalid_argument& e) {
    if (row.name == "dmc" && !std::filesystem::exists(testing::shipped_baibian_model()))
      GTEST_SKIP() << "no model for 'dmc': " << e.what();
    FAIL() << "make_bot(\"" << spec << "\"): " << e.what();
  }
  const Rules rules = Rules::preset(preset_name);
  try {
    bot->check_variant(rules.variant());
  } catch (const std::invalid_argument& e) {
    // The built-in dmc ships no network for this preset: it says so, and the
    // baibian network plays here by its file instead (?variant=any: it was
    // trained for baibian).
    ASSERT_EQ(spec.rfind("dmc", 0), 0U) << spec << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("no network is shipped for the rule set '" + preset_name + "'"),
              std::string::npos)
        << e.what();
    spec.replace(0, 3, "dmc:" + testing::shipped_baibian_model() + "?variant=any");
    bot = make_bot(spec);
    bot->check_variant(rules.variant());
  }
  // Slow bots: two deals, probed at every fifth decision; the others: eight
  // deals, probed at every decision.
  const int deals = bot->slow() ? 2 : 8;
  Probes probes{.every = bot->slow() ? 5 : 1};
  for (int d = 0; d < deals; ++d) {
    const uint64_t seed = derive_seed(2024, d);
    SCOPED_TRACE(preset_name + " " + bot->label() + " seed " + std::to_string(seed));
    const Game g = play_deal(rules, seed, *bot, probes);
    ASSERT_TRUE(g.state().is_over());
    expect_replays(g);
    if (d == 0) {  // (2), without the probes: they draw from copies of the stream only
      Probes none;
      EXPECT_EQ(play_deal(rules, seed, *bot, none).to_json(), g.to_json());
    }
  }
  EXPECT_GE(probes.done, deals * 10 / probes.every);
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<std::string, std::string>>& info) {
  std::string bot = std::get<1>(info.param);
  std::replace(bot.begin(), bot.end(), '+', '_');  // "dmc+search": a test name holds letters, digits and _
  return std::get<0>(info.param) + "_" + bot;
}

INSTANTIATE_TEST_SUITE_P(Conformance, BotConformance,
                         ::testing::Combine(::testing::ValuesIn(preset_names()),
                                            ::testing::ValuesIn(conformance_bots())),
                         param_name);

// ---------------------------------------------------------------- the game alone, random play by action id

class GameConformance : public ::testing::TestWithParam<std::string> {};

std::vector<float> encoded(const Variant& v, const GameState& s, std::span<const Action> recent, int seat) {
  std::vector<float> out(observation_size());
  encode_observation(v, s, recent, seat, out.data());
  return out;
}

// What observe() shows, as one comparable tuple.
auto shown(const Observation& o) {
  return std::tuple(o.seat, o.own_hand, o.partner_hand, o.cards_left, o.played, o.top, o.top_owner, o.passes,
                    o.finish_order, o.num_finished, o.running_scores);
}

// A deal played by uniform choice among the legal action ids, checking the
// id lists and the observation's blindness at every position.
Game random_deal(const Rules& rules, uint64_t seed, std::mt19937_64& redeal) {
  const Variant& v = rules.variant();
  Game g(rules, seed);
  SplitMix64 rng(agent_seed(seed));
  RecentActions recent;
  while (!g.state().is_over()) {
    if (static_cast<int>(g.history().size()) >= kMaxActions) {
      ADD_FAILURE() << "the deal did not end within " << kMaxActions << " actions";
      break;
    }
    const GameState& s = g.state();
    const std::vector<int32_t> ids = g.legal_action_ids();
    EXPECT_FALSE(ids.empty());
    if (ids.empty()) break;
    for (size_t i = 1; i < ids.size(); ++i) EXPECT_LT(ids[i - 1], ids[i]) << "ids not ascending";
    EXPECT_EQ(ids.front() == 0, s.can_pass()) << "the pass is the first id exactly where it is legal";
    const int seat = s.current_player();
    const GameState other = testing::same_information(v, s, redeal);
    EXPECT_EQ(encoded(v, s, recent.view(), seat), encoded(v, other, recent.view(), seat))
        << "the observation's encoding changed with the hidden cards, at action " << s.num_actions();
    EXPECT_TRUE(shown(observe(v, s, seat)) == shown(observe(v, other, seat)))
        << "the observation changed with the hidden cards, at action " << s.num_actions();
    const size_t before = g.history().size();
    g.apply_action(ids[rng.below(static_cast<uint32_t>(ids.size()))]);
    EXPECT_EQ(g.history().size(), before + 1);
    recent.push(g.history().back().seat, g.history().back().play);
  }
  return g;
}

TEST_P(GameConformance, RandomPlayByIdIsLegalDeterministicBlindAndReplayable) {
  const Rules rules = Rules::preset(GetParam());
  std::mt19937_64 redeal(11);
  for (int d = 0; d < 40; ++d) {
    const uint64_t seed = derive_seed(99, d);
    SCOPED_TRACE(GetParam() + " seed " + std::to_string(seed));
    const Game g = random_deal(rules, seed, redeal);
    ASSERT_TRUE(g.state().is_over());
    expect_replays(g);
    std::mt19937_64 other_redeal(d);  // the redeals draw from their own stream: the deal is the same
    EXPECT_EQ(random_deal(rules, seed, other_redeal).to_json(), g.to_json());
  }
}

INSTANTIATE_TEST_SUITE_P(Conformance, GameConformance, ::testing::ValuesIn(preset_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace shuangkou
