// Randomised invariants over many random-play games per variant, and exact
// replay of JSON records.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/game.h"

namespace shuangkou {
namespace {

constexpr int kGamesPerVariant = 10000;

// Scores recomputed from the history alone, straight from docs/rules.md
// 7, 8, 8a (deliberately not through scoring.cc's tally).
std::array<int64_t, 4> recompute_scores(const Variant& v, const std::vector<Action>& history,
                                        const Places& places) {
  struct Bomb {
    int seat, stars;
  };
  std::vector<Bomb> bombs;
  for (const auto& a : history)
    if (!is_pass(a.play) && is_bomb(a.play.kind)) bombs.push_back({a.seat, a.play.stars});
  const int winning_team = places[0] % 2;
  const bool double_win = places[1] % 2 == winning_team;
  const bool single_win = !double_win && places[2] % 2 == winning_team;
  static const int kTables[3][3][4] = {{{4, 4, -4, -4}, {2, -2, 2, -2}, {0, 0, 0, 0}},
                                       {{4, 4, -4, -4}, {2, -2, 2, -2}, {1, 0, 0, 1}},
                                       {{6, 6, -6, -6}, {3, -3, 3, -3}, {1, -1, -1, 1}}};
  const int row = double_win ? 0 : single_win ? 1 : 2;
  std::array<int64_t, 4> base{};
  for (int place = 0; place < 4; ++place)
    base[places[place]] = kTables[static_cast<int>(v.base_table)][row][place];

  auto is_counted = [&](int seat) {
    return v.multiplier_from == MultiplierFrom::kAll || seat % 2 == winning_team;
  };
  // Star levels: each seat's best bomb, or with collection the best of the
  // docs/rules.md §12 combinations.
  auto level_of = [&](int seat) {
    std::vector<int> mine;
    for (const auto& b : bombs)
      if (b.seat == seat) mine.push_back(b.stars);
    int best = 0;
    for (int s : mine) best = std::max(best, s);
    if (!v.collect_stars) return best;
    const int n = static_cast<int>(mine.size());
    if (n >= 4) best = std::max(best, n + 2);
    for (int x = 5; x <= 30; ++x) {
      const int at_least =
          static_cast<int>(std::count_if(mine.begin(), mine.end(), [&](int s) { return s >= x; }));
      if (at_least >= 2) best = std::max(best, x + at_least - 1);
    }
    return best;
  };
  int64_t multiplier = 1;
  if (v.multiplier == MultiplierRule::kStarProduct) {
    for (const auto& b : bombs)
      if (is_counted(b.seat)) multiplier *= b.stars >= 8 ? 4 : b.stars == 7 ? 3 : b.stars == 6 ? 2 : 1;
  } else {
    int top = 0;
    for (int seat = 0; seat < 4; ++seat)
      if (is_counted(seat)) top = std::max(top, level_of(seat));
    if (v.multiplier == MultiplierRule::kBombCountMax)
      multiplier = top >= 5 ? top - 3 : 1;
    else
      multiplier = top >= 8 ? 16 : top == 7 ? 8 : top == 6 ? 4 : top == 5 ? 2 : 1;
  }
  std::array<int64_t, 4> contribution{};
  auto pay = [&](int seat, int stars) {
    if (v.contribution == ContributionRule::kNone || stars < 6) return;
    const int gain = stars >= 8 ? 18 : stars == 7 ? 12 : 6;
    for (int s = 0; s < 4; ++s) {
      const bool with = s == seat || (v.contribution == ContributionRule::kTeam && s % 2 == seat % 2);
      contribution[s] += with ? gain : -gain / 3;
    }
  };
  if (v.collect_stars) {
    for (int seat = 0; seat < 4; ++seat) pay(seat, level_of(seat));
  } else {
    for (const auto& b : bombs) pay(b.seat, b.stars);
  }
  std::array<int64_t, 4> total{};
  for (int s = 0; s < 4; ++s) total[s] = base[s] * multiplier + contribution[s];
  return total;
}

// Team contributions pay the bomber's side more than the opponents lose, and
// the common draw row pays 1/0/0/1: everything else sums to zero.
bool zero_sum(const Variant& v, Outcome outcome) {
  if (v.contribution == ContributionRule::kTeam) return false;
  return !(v.base_table == BaseTable::kCommon && outcome == Outcome::kDraw);
}

TEST(GameInvariants, RandomPlayManyGamesPerVariant) {
  MoveList moves;
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    long long actions = 0, bombs = 0, jiefeng = 0;
    int outcomes[3] = {0, 0, 0};
    for (int i = 0; i < kGamesPerVariant; ++i) {
      Game g(v, derive_seed(1234, i));
      SplitMix64 rng(derive_seed(1234, i) + 1);  // the random players' own stream
      const auto initial = g.initial_hands();
      CardCounts all;
      for (const auto& h : initial) all = all + h;
      ASSERT_EQ(all.size(), kNumPhysicalCards);
      while (!g.state().is_over()) {
        const GameState& s = g.state();
        const int seat = s.current_player();
        ASSERT_FALSE(s.hand(seat).empty()) << name << " game " << i << ": a finished player acts";
        // Neither team is out while the deal goes on.
        for (int t = 0; t < 2; ++t) ASSERT_FALSE(s.hand(t).empty() && s.hand(t + 2).empty());
        const bool was_leading = s.is_leading();
        const int owner_before = s.top_owner();
        const Play a = random_action(v, s, moves, rng);
        g.apply(a);
        ++actions;
        if (!is_pass(a) && is_bomb(a.kind)) ++bombs;
        // 接风: a trick whose winner is out goes to the partner.
        if (!g.state().is_over() && g.state().is_leading() && !was_leading && owner_before >= 0 &&
            s.hand(owner_before).empty())
          ++jiefeng;
        for (int seat2 = 0; seat2 < kNumSeats; ++seat2)
          ASSERT_EQ(g.state().hand(seat2) + g.state().played(seat2), initial[seat2]) << name << " game " << i;
      }
      const GameState& s = g.state();
      // The deal ended exactly when a team went out.
      int teams_out = 0;
      for (int t = 0; t < 2; ++t) teams_out += s.hand(t).empty() && s.hand(t + 2).empty();
      ASSERT_EQ(teams_out, 1) << name << " game " << i;
      const Places places = s.places();
      const DealScore d = s.score(v);
      ASSERT_EQ(d.total, recompute_scores(v, g.history(), places)) << name << " game " << i << "\n"
                                                                   << g.to_json();
      if (zero_sum(v, d.outcome)) {
        int64_t sum = 0;
        for (auto x : d.total) sum += x;
        ASSERT_EQ(sum, 0) << name << " game " << i;
      }
      outcomes[static_cast<int>(d.outcome)]++;
      // Same seed, same game: the random policy draws from the game's stream.
      if (i % 500 == 0) {
        Game again(v, derive_seed(1234, i));
        for (const auto& act : g.history()) again.apply(act.play);
        EXPECT_EQ(again.state(), g.state());
      }
    }
    EXPECT_GT(outcomes[0], 0) << name;
    EXPECT_GT(outcomes[1], 0) << name;
    EXPECT_GT(outcomes[2], 0) << name;
    EXPECT_GT(bombs, kGamesPerVariant / 10) << name;
    EXPECT_GT(jiefeng, 0) << name;
    RecordProperty(name + "_actions_per_game", static_cast<int>(actions / kGamesPerVariant));
  }
}

TEST(GameInvariants, WhichDealsAreZeroSum) {
  EXPECT_TRUE(zero_sum(preset("classic"), Outcome::kDraw));
  EXPECT_TRUE(zero_sum(preset("jj"), Outcome::kDraw));
  EXPECT_TRUE(zero_sum(preset("baibian"), Outcome::kSingle));
  EXPECT_FALSE(zero_sum(preset("baibian"), Outcome::kDraw));
  EXPECT_FALSE(zero_sum(preset("qianbian"), Outcome::kDouble));
}

// to_json -> from_json reproduces every state of a game: replay each prefix.
TEST(GameReplay, EveryPrefixReplaysExactly) {
  MoveList moves;
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    for (int i = 0; i < 15; ++i) {
      Game g(v, derive_seed(99, i));
      SplitMix64 rng(i);
      while (true) {
        const Game back = Game::from_json(g.to_json());
        ASSERT_EQ(back.state(), g.state()) << name << " game " << i;
        ASSERT_EQ(back.to_json(), g.to_json());
        if (g.state().is_over()) break;
        g.apply(random_action(v, g.state(), moves, rng));
      }
    }
  }
}

TEST(GameReplay, BadRecordsAreRejected) {
  Game g(preset("baibian"), 3);
  MoveList moves;
  SplitMix64 rng(3);
  while (!g.state().is_over()) {
    g.apply(random_action(g.variant(), g.state(), moves, rng));
  }
  const std::string good = g.to_json();
  EXPECT_NO_THROW(Game::from_json(good));
  auto j = nlohmann::json::parse(good);
  auto expect_rejected = [](const nlohmann::json& bad, const std::string& fragment) {
    try {
      Game::from_json(bad.dump());
      ADD_FAILURE() << "accepted: " << fragment;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_rejected(nlohmann::json::object(), "format");
  {
    auto bad = j;
    bad["scores"][0] = bad["scores"][0].get<int>() + 1;
    expect_rejected(bad, "'scores' differs");
  }
  {
    auto bad = j;
    bad["variant"]["max_bomb"] = "99";
    expect_rejected(bad, "max_bomb");
  }
  {
    auto bad = j;
    bad["moves"][0]["seat"] = (bad["moves"][0]["seat"].get<int>() + 1) % 4;
    expect_rejected(bad, "record move 0");
  }
  {
    auto bad = j;
    bad["hands"][0] = "3 3 3";
    expect_rejected(bad, "differ from the deal");
  }
  EXPECT_THROW(Game::from_json("{not json"), std::invalid_argument);
}

}  // namespace
}  // namespace shuangkou
