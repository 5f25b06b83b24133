#include "shuangkou/core/game.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/match.h"
#include "test_util.h"

namespace shuangkou {
namespace {

std::array<CardCounts, kNumSeats> hands(const char* a, const char* b, const char* c, const char* d) {
  return {CardCounts::parse(a), CardCounts::parse(b), CardCounts::parse(c), CardCounts::parse(d)};
}

// Plays a script of "seat: cards" steps ("pass" to pass), checking that the
// seat to act is the one the script names.
void play_script(Game& g, const std::vector<std::pair<int, std::string>>& script) {
  for (size_t i = 0; i < script.size(); ++i) {
    const auto& [seat, cards] = script[i];
    ASSERT_FALSE(g.state().is_over()) << "step " << i;
    ASSERT_EQ(g.state().current_player(), seat) << "step " << i << " (" << cards << ")";
    if (cards == "pass")
      g.apply(kPass);
    else
      g.apply(g.reading_for_current_player(CardCounts::parse(cards)));
  }
}

std::vector<int> places_of(const Game& g) {
  const Places p = g.state().places();
  return {p.begin(), p.end()};
}

std::vector<int64_t> totals_of(const Game& g) {
  const auto t = g.state().score(g.variant()).total;
  return {t.begin(), t.end()};
}

// classic: seat 1 goes out on a pair, seat 3 on a five-card bomb: a double
// for {1, 3}, x2 for the winners' 5-card bomb.
TEST(GameDeals, ClassicDoubleWithBomb) {
  Game g(preset("classic"), hands("3 3 4", "5 5", "6 7", "8 8 8 8 8"), 0);
  play_script(g, {{0, "3 3"}, {1, "5 5"}, {2, "pass"}, {3, "8 8 8 8 8"}});
  ASSERT_TRUE(g.state().is_over());
  EXPECT_EQ(places_of(g), (std::vector<int>{1, 3, 0, 2}));
  EXPECT_EQ(g.state().score(g.variant()).outcome, Outcome::kDouble);
  EXPECT_EQ(g.state().score(g.variant()).multiplier, 2);
  EXPECT_EQ(totals_of(g), (std::vector<int64_t>{-8, 8, -8, 8}));
}

// baibian: 接风 when the last card wins the trick, twice; a draw (1st and
// 4th for {1, 3}).
TEST(GameDeals, BaibianJiefengWhenTheLastCardWins) {
  Game g(preset("baibian"), hands("3 4", "5 5 6 7", "9 9 T", "J Q"), 0);
  play_script(g, {{0, "4"},
                  {1, "7"},
                  {2, "T"},
                  {3, "Q"},
                  {0, "pass"},
                  {1, "pass"},
                  {2, "pass"},
                  {3, "J"},  // seat 3 goes out
                  {0, "pass"},
                  {1, "pass"},
                  {2, "pass"}});
  // Everyone passed seat 3's last card: its partner leads.
  EXPECT_EQ(g.state().current_player(), 1);
  EXPECT_TRUE(g.state().is_leading());
  play_script(g, {{1, "5 5"}, {2, "9 9"}, {0, "pass"}, {1, "pass"}});
  EXPECT_EQ(g.state().current_player(), 0);  // seat 2 went out on 9 9: seat 0 leads
  play_script(g, {{0, "3"}});
  ASSERT_TRUE(g.state().is_over());
  EXPECT_EQ(places_of(g), (std::vector<int>{3, 2, 0, 1}));
  EXPECT_EQ(g.state().score(g.variant()).outcome, Outcome::kDraw);
  EXPECT_EQ(totals_of(g), (std::vector<int64_t>{0, 1, 0, 1}));
}

// qianbian: seat 0 goes out but seat 1 beats its last card, so seat 1 (not
// seat 0's partner) leads next.
TEST(GameDeals, QianbianNoJiefengWhenTheFinishingPlayIsBeaten) {
  Game g(preset("qianbian"), hands("8", "9 3", "4 4", "5 6"), 0);
  play_script(g, {{0, "8"}, {1, "9"}, {2, "pass"}, {3, "pass"}});
  EXPECT_EQ(g.state().current_player(), 1);
  play_script(g, {{1, "3"}, {2, "4"}, {3, "5"}, {2, "pass"}, {3, "6"}});
  ASSERT_TRUE(g.state().is_over());
  EXPECT_EQ(places_of(g), (std::vector<int>{0, 1, 3, 2}));
  EXPECT_EQ(g.state().score(g.variant()).outcome, Outcome::kDraw);
  EXPECT_EQ(totals_of(g), (std::vector<int64_t>{1, 0, 1, 0}));
}

// qianbian_collect: two 5-card bombs collect to 6 stars (docs/rules.md §12); a
// single for {0, 2}; x4 and collected team contributions paid once each.
TEST(GameDeals, QianbianCollectCollectedStars) {
  Game g(preset("qianbian_collect"), hands("7 7 7 7 7 8 8 8 8 8 3", "4", "5 5 5 5 5 5 9", "6"), 0);
  play_script(g, {{0, "7 7 7 7 7"},
                  {1, "pass"},
                  {2, "pass"},
                  {3, "pass"},
                  {0, "8 8 8 8 8"},
                  {1, "pass"},
                  {2, "pass"},
                  {3, "pass"},
                  {0, "3"},
                  {1, "4"},
                  {2, "9"},
                  {3, "pass"},
                  {2, "5 5 5 5 5 5"}});
  ASSERT_TRUE(g.state().is_over());
  EXPECT_EQ(places_of(g), (std::vector<int>{0, 1, 2, 3}));
  const DealScore d = g.state().score(g.variant());
  EXPECT_EQ(d.outcome, Outcome::kSingle);
  EXPECT_EQ(star_level(g.state().bombs(), 0), 6);
  EXPECT_EQ(star_level(g.state().bombs(), 2), 6);
  EXPECT_EQ(d.multiplier, 4);
  EXPECT_EQ(std::vector<int64_t>(d.contribution.begin(), d.contribution.end()),
            (std::vector<int64_t>{12, -4, 12, -4}));
  EXPECT_EQ(totals_of(g), (std::vector<int64_t>{20, -12, 20, -12}));
  // Collected contributions are paid at the end, not when the bombs fall.
  Game partial(preset("qianbian_collect"), hands("7 7 7 7 7 8 8 8 8 8 3", "4", "5 5 5 5 5 5 9", "6"), 0);
  play_script(partial, {{0, "7 7 7 7 7"}});
  EXPECT_EQ(partial.state().running_scores(partial.variant()), (std::array<int64_t, 4>{0, 0, 0, 0}));
}

// jj: three kings (x2) beaten by a 7-card bomb (x3) that goes out; 接风; a
// double: 6 x 2 x 3 = 36.
TEST(GameDeals, JJStarProduct) {
  Game g(preset("jj"), hands("SJ SJ BJ 3", "4 4 4 4 4 4 4", "5", "6"), 0);
  play_script(g, {{0, "SJ SJ BJ"}, {1, "4 4 4 4 4 4 4"}, {2, "pass"}, {3, "pass"}, {0, "pass"}});
  EXPECT_EQ(g.state().current_player(), 3);  // 接风 to seat 1's partner
  play_script(g, {{3, "6"}});
  ASSERT_TRUE(g.state().is_over());
  EXPECT_EQ(places_of(g), (std::vector<int>{1, 3, 0, 2}));
  EXPECT_EQ(g.state().score(g.variant()).multiplier, 6);
  EXPECT_EQ(totals_of(g), (std::vector<int64_t>{-36, 36, -36, 36}));
}

// baibian: contributions are credited the moment the bomb is played.
TEST(GameDeals, BaibianContributionCreditedAtTheBomb) {
  Game g(preset("baibian"), hands("3 3 3 3 3 3 4", "5", "6", "7"), 0);
  play_script(g, {{0, "3 3 3 3 3 3"}});
  EXPECT_EQ(g.state().running_scores(g.variant()), (std::array<int64_t, 4>{6, -2, -2, -2}));
}

TEST(GameRules, IllegalActionsAreRejectedAndChangeNothing) {
  Game g(preset("baibian"), hands("3 3 4", "5 5", "6 7", "8 8 8 8"), 0);
  const GameState before = g.state();
  auto rejects = [&](const Play& p, const std::string& fragment) {
    try {
      g.apply(p);
      ADD_FAILURE() << "accepted " << p.cards.to_string();
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
    EXPECT_EQ(g.state(), before);
    EXPECT_TRUE(g.history().empty());
  };
  rejects(kPass, "may not pass");
  Play not_held = *read_best(g.variant(), CardCounts::parse("5 5"));
  rejects(not_held, "does not hold");
  Play wrong_kind = *read_best(g.variant(), CardCounts::parse("3 3"));
  wrong_kind.kind = Kind::kTriple;
  rejects(wrong_kind, "not a valid triple");
  g.apply(*read_best(g.variant(), CardCounts::parse("3 3")));
  const GameState after_lead = g.state();
  try {
    g.apply(*read_best(g.variant(), CardCounts::parse("5")));
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("does not beat"), std::string::npos) << e.what();
  }
  EXPECT_THROW(g.reading_for_current_player(CardCounts::parse("5 6")), std::invalid_argument);
  EXPECT_EQ(g.state(), after_lead);
}

TEST(GameRules, SetDealsAreValidated) {
  const Variant v = preset("classic");
  EXPECT_THROW(Game(v, hands("3", "", "5", "6"), 0), std::invalid_argument);
  EXPECT_THROW(Game(v, hands("3", "4", "5", "6"), 4), std::invalid_argument);
  EXPECT_THROW(Game(v, hands("7 7 7 7 7", "7 7 7 7", "5", "6"), 0), std::invalid_argument);
  EXPECT_THROW(Game(v, hands("3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 6 6 6 6", "4", "5", "6"), 0),
               std::invalid_argument);
  EXPECT_NO_THROW(Game(v, hands("3", "4 4", "5 5", "6 6"), 2));
}

// The revealed-card rule (docs/rules.md §6): the holder of the revealed card leads
// and the holder of its other copy becomes the partner. Search seeds for each
// of the three cases and compare with the same deal under fixed teams.
TEST(GameDeal, RevealedCardSeatSwapInAllThreeCases) {
  const Variant v = preset("baibian");
  Variant fixed = v;
  fixed.team_formation = TeamFormation::kFixed;
  std::map<std::string, int> seen;
  for (uint64_t seed = 0; seed < 2000 && seen.size() < 3; ++seed) {
    Game g(v, seed);
    Game raw(fixed, seed);
    const DealSetup& s = g.setup();
    const int leader = s.leader;
    ASSERT_EQ(leader, s.revealed_holder);
    ASSERT_EQ(raw.setup().revealed_card, s.revealed_card);
    const int rank = physical_rank(s.revealed_card);
    EXPECT_GE(g.initial_hands()[leader].count(rank), 1);
    std::string kind;
    if (s.other_copy_holder == leader) {
      kind = "same player";
      EXPECT_GE(g.initial_hands()[leader].count(rank), 2);
    } else if (s.other_copy_holder == partner_of(leader)) {
      kind = "already opposite";
    } else {
      kind = "swap";
      EXPECT_EQ(s.swapped[0], std::min(s.other_copy_holder, partner_of(leader)));
      EXPECT_EQ(s.swapped[1], std::max(s.other_copy_holder, partner_of(leader)));
      EXPECT_EQ(g.initial_hands()[partner_of(leader)], raw.initial_hands()[s.other_copy_holder]);
      EXPECT_EQ(g.initial_hands()[s.other_copy_holder], raw.initial_hands()[partner_of(leader)]);
    }
    if (kind != "swap") {
      EXPECT_EQ(s.swapped[0], -1);
      EXPECT_EQ(g.initial_hands(), raw.initial_hands());
    }
    EXPECT_EQ(raw.setup().swapped[0], -1);  // fixed teams never move
    seen[kind]++;
  }
  EXPECT_EQ(seen.size(), 3u);
}

TEST(GameDeal, SameSeedSameDealDifferentSeedDifferentDeal) {
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    EXPECT_EQ(Game(v, 42).state(), Game(v, 42).state()) << name;
    EXPECT_NE(Game(v, 42).initial_hands(), Game(v, 43).initial_hands()) << name;
    const Game g(v, 7);
    for (const auto& h : g.initial_hands()) EXPECT_EQ(h.size(), kHandSize);
  }
}

// A match under previous_winner: after a single or draw the previous first
// finisher leads; cumulative points add up; players keep their seats.
TEST(GameMatch, PreviousWinnerLeadsAndPointsAccumulate) {
  Match m(preset("classic"), 5, 30);
  MoveList scratch;
  SplitMix64 rng(17);
  std::array<int64_t, kNumSeats> sum{};
  int checked = 0;
  while (true) {
    Game& g = m.game();
    if (m.deals_played() > 0) {
      const auto& last = m.results().back();
      if (last.outcome != Outcome::kDouble) {
        EXPECT_EQ(g.setup().leader, last.places[0]);
        ++checked;
      }
    }
    while (!g.state().is_over()) {
      g.apply(random_action(g.variant(), g.state(), scratch, rng));
    }
    m.next_deal();
    for (int p = 0; p < kNumSeats; ++p) sum[p] += m.results().back().points_by_player[p];
    EXPECT_EQ(m.totals(), sum);
    for (int p = 0; p < kNumSeats; ++p) EXPECT_EQ(m.seat_of(p), p);  // classic: fixed seats
    if (m.is_over()) break;
  }
  EXPECT_EQ(m.deals_played(), 30);
  EXPECT_GT(checked, 5);
  EXPECT_THROW(m.next_deal(), std::logic_error);
}

// Under the revealed-card rule players move with their hands.
TEST(GameMatch, PlayersMoveWithTheSeatSwap) {
  Match m(preset("baibian"), 11, 20);
  MoveList scratch;
  SplitMix64 rng(17);
  int swaps = 0;
  std::array<int8_t, kNumSeats> seating{0, 1, 2, 3};
  while (true) {
    Game& g = m.game();
    if (g.setup().swapped[0] >= 0) {
      std::swap(seating[g.setup().swapped[0]], seating[g.setup().swapped[1]]);
      ++swaps;
    }
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(m.player_in_seat(s), seating[s]);
    while (!g.state().is_over()) {
      g.apply(random_action(g.variant(), g.state(), scratch, rng));
    }
    const auto score = g.state().score(g.variant()).total;
    m.next_deal();
    for (int s = 0; s < kNumSeats; ++s) EXPECT_EQ(m.results().back().points_by_player[seating[s]], score[s]);
    if (m.is_over()) break;
  }
  EXPECT_GT(swaps, 3);
}

TEST(Levels, TitlesOfSection12) {
  EXPECT_EQ(level_title(-500).level, 1);
  EXPECT_EQ(level_title(59).level, 1);
  EXPECT_EQ(level_title(60).level, 2);
  EXPECT_EQ(level_title(139).level, 2);
  EXPECT_EQ(level_title(140).title, "长工");
  EXPECT_EQ(level_title(6200).title, "掌柜");
  EXPECT_EQ(level_title(999999).level, 22);
  EXPECT_EQ(level_title(1000000).level, 23);
  EXPECT_EQ(level_title(1000000).title, "帝王");
}

}  // namespace
}  // namespace shuangkou
