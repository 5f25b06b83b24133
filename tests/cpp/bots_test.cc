// The built-in bots: legal, deterministic, blind to what their seat cannot
// see, and doing what docs/heuristic.md says they do.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "shuangkou/bots/bot.h"
#include "shuangkou/bots/hand_value.h"
#include "shuangkou/bots/rollouts.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/rl/selfplay.h"
#include "test_util.h"

namespace shuangkou {
namespace {

const std::vector<BotPtr>& all_bots() {
  static const std::vector<BotPtr> bots = {make_bot("random"), make_bot("simple"), make_bot("greedy"),
                                           make_bot("heuristic"), make_bot("search:16")};
  return bots;
}

// Plays a deal with `bots` by seat, checking every action with GameState::check
// (the bots' plays go through the checked path), and calls `visit` before each.
template <typename Visit>
GameState play_checked(const Variant& v, uint64_t seed, const std::array<BotPtr, 4>& bots, Visit visit) {
  GameState s = GameState::deal(v, seed);
  SplitMix64 rng(agent_seed(seed));
  MoveList scratch;
  while (!s.is_over()) {
    const Play a = choose_action(*bots[s.current_player()], v, s, {}, scratch, rng);
    visit(s, a);
    EXPECT_EQ(s.check(v, a), "") << bots[s.current_player()]->label();
    s.apply(v, a);
  }
  return s;
}

TEST(Bots, EveryBotPlaysOnlyLegalMovesInEveryPreset) {
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    for (const BotPtr& bot : all_bots()) {
      const int deals = bot->slow() ? 3 : 40;
      for (int d = 0; d < deals; ++d) {
        const GameState end = play_checked(v, derive_seed(11, d), {bot, bot, bot, bot}, [](auto&, auto&) {});
        EXPECT_TRUE(end.is_over()) << name << " " << bot->label();
      }
    }
  }
}

BotPtr random_dmc(uint64_t seed) {
  return make_dmc_bot(
      std::make_shared<const QNet>(testing::random_qnet({observation_size(), kMoveFeatureSize, {16}}, seed)),
      "random weights");
}

TEST(Bots, DmcPlaysLegallyAndReadsTheRecentActions) {
  // Through the runner that keeps the recent actions (self-play), in every preset.
  for (const auto& name : preset_names()) {
    SelfPlayOptions o;
    o.variant = preset(name);
    o.games = 20;
    const BotPtr dmc = random_dmc(1);
    o.agents = {dmc, make_bot("greedy"), dmc, make_bot("greedy")};
    std::vector<DealResult> a, b;
    run_selfplay(o, a);
    o.threads = 1;
    run_selfplay(o, b);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(a[i].scores, b[i].scores) << name;
  }
  // The recent actions are part of its input: with and without them it may choose differently.
  const Variant v = preset("baibian");
  const BotPtr dmc = random_dmc(2);
  int differ = 0;
  for (int d = 0; d < 20; ++d) {
    GameState s = GameState::deal(v, derive_seed(2, d));
    RecentActions recent;
    MoveList scratch;
    SplitMix64 rng(1);
    while (!s.is_over()) {
      const Play with = choose_action(*dmc, v, s, recent.view(), scratch, rng);
      const Play without = choose_action(*dmc, v, s, {}, scratch, rng);
      differ += !(with == without);
      EXPECT_EQ(s.check(v, with), "");
      recent.push(s.current_player(), with);
      s.apply(v, with);
    }
  }
  EXPECT_GT(differ, 0);
}

TEST(Bots, DmcValuesAPositionByTheQOfItsPlayWithoutItsPrior) {
  if (testing::register_shipped_models().empty()) GTEST_SKIP() << "no shipped model";
  const BotPtr dmc = make_bot("dmc:" + testing::shipped_baibian_model());
  const float prior = 0.05F;  // the shipped baibian file's heuristic_prior (docs/dmc_model.md)
  const Variant v = preset("baibian");
  int steered = 0;
  for (int d = 0; d < 6; ++d) {
    GameState s = GameState::deal(v, derive_seed(3, d));
    MoveList moves;
    SplitMix64 rng(1);
    for (int k = 0; k < 40 && !s.is_over(); ++k) {
      s.legal_moves(v, moves);
      if (moves.empty()) {  // the pass alone
        s.apply(v, kPass);
        continue;
      }
      const Decision dec{v, s, {}, moves, rng, nullptr};
      std::vector<float> q(static_cast<size_t>(moves.size() + (s.can_pass() ? 1 : 0)));
      ASSERT_TRUE(dmc->values(dec, q));
      const auto best = static_cast<int>(std::max_element(q.begin(), q.end()) - q.begin());
      const Play play = best < moves.size() ? moves[best] : kPass;
      const bool heuristics = play == heuristic_play(v, s, moves);
      // values() carries the prior on the heuristic's play; the position's value does not.
      EXPECT_NEAR(*dmc->position_value(dec), q[best] - (heuristics ? prior : 0.0F), 1e-6) << "deal " << d;
      steered += heuristics;
      s.apply(v, choose_action(*dmc, v, s, {}, moves, rng));
    }
  }
  EXPECT_GT(steered, 0);
  const GameState s = GameState::deal(v, 1);
  MoveList moves;
  s.legal_moves(v, moves);
  SplitMix64 rng(1);
  EXPECT_FALSE(make_bot("heuristic")->position_value(Decision{v, s, {}, moves, rng, nullptr}));
}

TEST(Bots, DeterministicGivenTheDealSeed) {
  const Variant v = preset("baibian");
  for (const BotPtr& bot : all_bots()) {
    const std::array<BotPtr, 4> seats{bot, make_bot("greedy"), bot, make_bot("random")};
    for (int d = 0; d < 3; ++d) {
      std::vector<Play> first, second;
      play_checked(v, derive_seed(5, d), seats, [&](auto&, const Play& a) { first.push_back(a); });
      play_checked(v, derive_seed(5, d), seats, [&](auto&, const Play& a) { second.push_back(a); });
      EXPECT_EQ(first, second) << bot->label();
    }
  }
}

using testing::same_information;  // (test_util.h)

TEST(Bots, DecideFromWhatTheirSeatMayKnowOnly) {
  std::mt19937_64 rng(3);
  // The guided search on a random network: its values lie close together, so
  // it searches often.
  const std::vector<BotPtr> bots = {make_bot("simple"), make_bot("greedy"), make_bot("heuristic"),
                                    make_bot("search:8"),
                                    make_guided_search_bot(random_dmc(7), 8, "guided:8")};
  for (const char* name : {"baibian", "jj", "qianbian"}) {
    const Variant v = preset(name);
    int compared = 0;
    for (int d = 0; d < 30; ++d) {
      const std::array<BotPtr, 4> heuristic{make_bot("heuristic"), make_bot("heuristic"),
                                            make_bot("heuristic"), make_bot("heuristic")};
      play_checked(v, derive_seed(9, d), heuristic, [&](const GameState& s, const Play& a) {
        MoveList scratch;
        for (const BotPtr& bot : bots) {
          if (bot->slow() && s.num_actions() % 17 != 0) continue;  // (slow: a sample)
          SplitMix64 r1(42), r2(42);
          const Play here = choose_action(*bot, v, s, {}, scratch, r1);
          const Play there = choose_action(*bot, v, same_information(v, s, rng), {}, scratch, r2);
          EXPECT_EQ(here, there) << name << " " << bot->label();
          ++compared;
        }
        (void)a;
      });
    }
    EXPECT_GT(compared, 1000) << name;
  }
}

// Plays from set hands: seat 0 to act, following `top` made by `owner`.
GameState following(const Variant& v, const std::array<const char*, 4>& hands, int owner, const char* top) {
  std::array<CardCounts, kNumSeats> h;
  for (int i = 0; i < kNumSeats; ++i) h[i] = CardCounts::parse(hands[i]);
  GameState s = GameState::from_hands(h, owner);
  s.apply(v, *read_best(v, CardCounts::parse(top)));
  for (int seat = (owner + 1) % 4; seat != 0; seat = (seat + 1) % 4) s.apply(v, kPass);
  return s;
}

Play act(std::string_view name, const Variant& v, const GameState& s) {
  MoveList scratch;
  SplitMix64 rng(1);
  return choose_action(*make_bot(name), v, s, {}, scratch, rng);
}

TEST(Bots, GreedyFollowsWithTheWeakestPlayThatBeatsAndBombsOnlyToStopAnOpponent) {
  const Variant v = preset("classic");
  // Seat 3 (an opponent) led a 5 with many cards left: greedy beats it with its 6.
  GameState s =
      following(v, {"6 9 K 4 4 4 4", "3 3 3 3 3 3 3 3 5", "8 8 8 8 8 8 8 8", "5 7 7 7 7 7 7 7 7"}, 3, "5");
  EXPECT_EQ(act("greedy", v, s).cards, CardCounts::parse("6"));
  // The same over the partner (seat 2): greedy beats it anyway; heuristic lets it run.
  s = following(v, {"6 9 K 4 4 4 4", "3 3 3 3 3 3 3 3 9", "5 8 8 8 8 8 8 8", "7 7 7 7 7 7 7 7"}, 2, "5");
  EXPECT_EQ(act("greedy", v, s).cards, CardCounts::parse("6"));
  EXPECT_TRUE(is_pass(act("heuristic", v, s)));
  // Only a bomb beats the opponent's A: greedy bombs when that opponent holds at most 6 cards.
  s = following(v, {"6 9 K 4 4 4 4", "3 3 3 3 3 3 3 3 5", "8 8 8 8 8 8 8 8", "A 7 7 7 7 7"}, 3, "A");
  EXPECT_EQ(act("greedy", v, s).kind, Kind::kBomb);
  s = following(v, {"6 9 K 4 4 4 4", "3 3 3 3 3 3 3 3 5", "8 8 8 8 8 8 8 8", "A 7 7 7 7 7 7 7 7 9 9"}, 3,
                "A");
  EXPECT_TRUE(is_pass(act("greedy", v, s)));
}

TEST(Bots, HeuristicOvertakesItsPartnerOnlyToGoOut) {
  int overtakes = 0;
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    const BotPtr h = make_bot("heuristic");
    for (int d = 0; d < 200; ++d)
      play_checked(v, derive_seed(21, d), {h, h, h, h}, [&](const GameState& s, const Play& a) {
        if (is_pass(a) || s.is_leading() || s.top_owner() != partner_of(s.current_player())) return;
        ++overtakes;
        EXPECT_EQ(a.size, s.hand(s.current_player()).size()) << name << ": an overtake that does not go out";
      });
  }
  EXPECT_GT(overtakes, 0);  // going out over the partner does happen
}

TEST(Bots, HeuristicBeatsGreedyAndSearchBeatsHeuristicOverDuplicateDeals) {
  // A small duplicate match each: the strength order docs/heuristic.md reports.
  auto duplicate_total = [](const Variant& v, const BotPtr& a, const BotPtr& b, int deals) {
    SelfPlayOptions o;
    o.variant = v;
    o.variant.team_formation = TeamFormation::kFixed;
    o.games = deals;
    o.seed = 3;
    std::vector<DealResult> first, second;
    o.agents = {a, b, a, b};
    run_selfplay(o, first);
    o.agents = {b, a, b, a};
    run_selfplay(o, second);
    int won = 0;
    for (int i = 0; i < deals; ++i) {
      const auto& f = first[i].scores;
      const auto& s = second[i].scores;
      const int64_t total = (f[0] + f[2] - f[1] - f[3]) + (s[1] + s[3] - s[0] - s[2]);
      won += total > 0 ? 2 : total == 0 ? 1 : 0;
    }
    return won / (2.0 * deals);
  };
  const Variant v = preset("baibian");
  EXPECT_GT(duplicate_total(v, make_bot("heuristic"), make_bot("random"), 200), 0.9);
  EXPECT_GT(duplicate_total(v, make_bot("heuristic"), make_bot("greedy"), 300), 0.7);
  EXPECT_GT(duplicate_total(v, make_bot("search:32"), make_bot("heuristic"), 40), 0.5);
}

TEST(HandValue, CostsFollowTheSplit) {
  const Variant classic = preset("classic"), baibian = preset("baibian");
  auto cost = [](const Variant& v, const char* cards) { return hand_cost(v, CardCounts::parse(cards)); };
  EXPECT_EQ(cost(classic, ""), 0.0f);
  EXPECT_FLOAT_EQ(cost(classic, "3 4 5 6 7"), group_cost(false, true, 4, 5));  // one straight
  EXPECT_FLOAT_EQ(cost(classic, "3"), group_cost(false, false, 0, 1));
  EXPECT_LT(cost(classic, "9 9 9 9"), 0.0f);          // a bomb wins the lead back
  EXPECT_LT(cost(classic, "2"), cost(classic, "3"));  // high cards are cheaper
  // A straight beats five singles; a pair chain three pairs.
  EXPECT_LT(cost(classic, "3 4 5 6 7"), 5 * group_cost(false, false, 4, 1));
  EXPECT_FLOAT_EQ(cost(classic, "5 5 6 6 7 7"), group_cost(false, true, 5, 6));
  // A wild big joker fills the straight's gap in baibian, not in classic.
  EXPECT_FLOAT_EQ(cost(baibian, "3 4 6 7 BJ"), group_cost(false, true, 5, 5));
  EXPECT_GT(cost(classic, "3 4 6 7 BJ"), 1.0f);
  // ... and raises a triple to a bomb.
  EXPECT_LT(cost(baibian, "8 8 8 BJ"), 0.0f);
  // The per-thread memo changes no value: costs computed after thousands of
  // other hands (evicting and reusing slots) equal the first ones.
  std::mt19937_64 rng(1);
  std::vector<CardCounts> hands;
  std::vector<float> first;
  for (int i = 0; i < 300; ++i) {
    hands.push_back(testing::random_hand(rng, 27));
    first.push_back(hand_cost(baibian, hands.back()));
  }
  for (int i = 0; i < 3000; ++i) hand_cost(baibian, testing::random_hand(rng, 20));
  for (size_t i = 0; i < hands.size(); ++i) EXPECT_EQ(hand_cost(baibian, hands[i]), first[i]);
  // Different rule sets never share memo entries.
  EXPECT_NE(hand_cost(baibian, CardCounts::parse("3 4 6 7 BJ")),
            hand_cost(classic, CardCounts::parse("3 4 6 7 BJ")));
}

}  // namespace
}  // namespace shuangkou

namespace shuangkou {
namespace {

TEST(BotRegistry, NamesMakeTheirBotsAndBadNamesAreRefused) {
  std::vector<std::string> names;
  for (const BotEntry& e : bot_registry()) names.emplace_back(e.name);
  EXPECT_EQ(names, bot_names());
  ASSERT_GE(names.size(), 6u);  // the built-in six first; a bot added later comes after them
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 6),
            (std::vector<std::string>{"random", "simple", "greedy", "heuristic", "search", "dmc"}));
  for (const char* name : {"random", "simple", "greedy", "heuristic", "search", "search:40"})
    EXPECT_EQ(make_bot(name)->label(), name);
  EXPECT_TRUE(make_bot("search:40")->slow());
  EXPECT_FALSE(make_bot("heuristic")->slow());
  for (const char* bad : {"smart", "search:0", "search:4x", "greedy:4", "search:", "dmc:", ""})
    EXPECT_THROW(make_bot(bad), std::invalid_argument) << bad;
  try {
    make_bot("greedy:4");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("search:ROLLOUTS, dmc:PATH"), std::string::npos) << e.what();
  }
}

TEST(BotRegistry, TheDmcBotRefusesANetworkOfOtherSizes) {
  auto net =
      std::make_shared<const QNet>(testing::random_qnet({observation_size() + 1, kMoveFeatureSize, {4}}, 1));
  EXPECT_THROW(make_dmc_bot(net, "wrong"), std::invalid_argument);
  EXPECT_THROW(make_dmc_bot(nullptr, "none"), std::invalid_argument);
}

// What `bot` says when asked to play `v` ("" when it can).
std::string refusal(const Bot& bot, const Variant& v) {
  try {
    bot.check_variant(v);
    return "";
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
}

TEST(BotRegistry, TheBuiltInDmcPlaysTheNetworkOfTheRuleSetBeingPlayed) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "shuangkou_builtin_models_test";
  std::filesystem::create_directories(dir);
  const QNetShape shape{observation_size(), kMoveFeatureSize, {8}};
  const auto write = [&](const std::string& name, uint64_t seed, const std::string& trained) {
    const std::string path = (dir / name).string();
    std::ofstream(path, std::ios::binary)
        << testing::random_qnet(shape, seed, {{"variant", trained}}).to_bytes();
    return path;
  };
  const std::string baibian = write("b.safetensors", 1, "baibian"), jj = write("j.safetensors", 2, "jj");
  const auto before = builtin_models();
  set_builtin_models({{"baibian", baibian}, {"JJ", jj}});
  EXPECT_EQ(builtin_models(),
            (std::vector<std::pair<std::string, std::string>>{{"baibian", baibian}, {"jj", jj}}));
  const BotPtr dmc = make_bot("dmc"), guided = make_bot("dmc+search:0");
  // Each preset's decisions are the ones its own network makes.
  for (const auto& [name, path] : builtin_models()) {
    const BotPtr own = make_bot("dmc:" + path);
    const Variant v = preset(name);
    for (uint64_t seed = 0; seed < 4; ++seed) {
      std::vector<float> mine, theirs;
      GameState s = GameState::deal(v, seed);
      MoveList moves;
      s.legal_moves(v, moves);
      SplitMix64 rng(seed);
      const Decision d{v, s, {}, moves, rng, nullptr};
      mine.resize(static_cast<size_t>(moves.size()) + (s.can_pass() ? 1 : 0));
      theirs = mine;
      ASSERT_TRUE(dmc->values(d, mine));
      ASSERT_TRUE(own->values(d, theirs));
      EXPECT_EQ(mine, theirs) << name;
      EXPECT_EQ(dmc->step(d), own->step(d)) << name;
      EXPECT_EQ(guided->step(d), own->step(d)) << name;
    }
    EXPECT_EQ(refusal(*dmc, v), "");
  }
  // A rule set without a network is refused, naming it and the shipped ones;
  // so is a runner given it, before any deal.
  for (const BotPtr& bot : {dmc, guided}) {
    const std::string why = refusal(*bot, preset("classic"));
    EXPECT_NE(why.find("no network is shipped for the rule set 'classic'"), std::string::npos) << why;
    EXPECT_NE(why.find("plays baibian, jj"), std::string::npos) << why;
    EXPECT_NE(why.find("dmc:" + baibian), std::string::npos) << why;
  }
  Variant own = preset("baibian");
  own.team_formation = TeamFormation::kFixed;  // (the arena's: seats fixed, the same game)
  EXPECT_EQ(refusal(*dmc, own), "");
  own.max_bomb = 10;
  EXPECT_NE(refusal(*dmc, own).find("no network is shipped for this rule set (it is none of the presets)"),
            std::string::npos);
  SelfPlayOptions o;
  o.variant = preset("classic");
  o.games = 1;
  o.agents = {dmc, make_bot("random"), make_bot("random"), make_bot("random")};
  std::vector<DealResult> results;
  EXPECT_THROW(run_selfplay(o, results), std::invalid_argument);
  // Bad registrations change nothing; a file trained for another rule set is
  // refused when "dmc" is made.
  EXPECT_THROW(set_builtin_models({{"baibian", baibian}, {"nosuch", jj}}), std::invalid_argument);
  EXPECT_THROW(set_builtin_models({{"jj", jj}, {"jj", jj}}), std::invalid_argument);
  EXPECT_EQ(builtin_models().size(), 2U);
  set_builtin_models({{"qianbian", jj}});
  try {
    make_bot("dmc");
    ADD_FAILURE() << "a jj network registered for qianbian was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("registered for qianbian but was trained for jj"), std::string::npos)
        << e.what();
  }
  set_builtin_models(before);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shuangkou
