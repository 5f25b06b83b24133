// InfoView and WorldSampler (shuangkou/core/infoset.h): a view gives nothing
// away of the cards its seat cannot see, and its worlds are complete games
// consistent with what the seat knows, drawn by the search bots' sampler.
#include "shuangkou/core/infoset.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>

#include "shuangkou/core/seats.h"
#include "test_util.h"

namespace shuangkou {
namespace {

// Games of `preset` stopped at random points (a random legal move at each
// step), `count` of them, each with at least one action played.
std::vector<Game> random_positions(const std::string& preset, int count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Game> out;
  const Rules rules = Rules::preset(preset);
  for (int k = 0; k < count; ++k) {
    Game g(rules, seed * 1000 + static_cast<uint64_t>(k));
    const int steps = 1 + static_cast<int>(rng() % 120);
    for (int i = 0; i < steps && !g.state().is_over(); ++i) {
      const auto& ids = g.legal_action_ids();
      g.apply_action(ids[rng() % ids.size()]);
    }
    out.push_back(g);
  }
  return out;
}

// The game with the cards the player to act cannot see dealt anew
// by the tests' own reference (test_util.h), not by the sampler under test.
Game redealt_by_reference(const Game& g, std::mt19937_64& rng) {
  const GameState world = testing::same_information(g.variant(), g.state(), rng);
  std::array<CardCounts, kNumSeats> hands;
  for (int i = 0; i < kNumSeats; ++i) hands[i] = world.hand(i);
  return g.redealt(hands);
}

class InfoViewTest : public ::testing::TestWithParam<std::string> {};

TEST_P(InfoViewTest, GivesNothingAwayOfTheHiddenCards) {
  std::mt19937_64 rng(7);
  for (const Game& g : random_positions(GetParam(), 40, 3)) {
    if (g.state().is_over()) continue;
    const int seat = g.state().current_player();
    const InfoView view(g, seat);
    for (int k = 0; k < 5; ++k) {
      const Game other = redealt_by_reference(g, rng);
      const InfoView again(other, seat);
      EXPECT_EQ(view.to_string(), again.to_string());
      EXPECT_TRUE(view == again);
      EXPECT_EQ(view.legal_action_ids(), again.legal_action_ids());
      // The same seed draws the same world from either game: the worlds depend
      // on what the seat knows and the seed only.
      EXPECT_EQ(view.sample_world(11).to_json(), again.sample_world(11).to_json());
    }
  }
}

TEST_P(InfoViewTest, WorldsAreCompleteGamesConsistentWithTheSeat) {
  for (const Game& g : random_positions(GetParam(), 30, 5)) {
    const int seat = g.state().is_over() ? 0 : g.state().current_player();
    const InfoView view(g, seat);
    std::set<std::string> worlds;
    for (uint64_t seed = 0; seed < 6; ++seed) {
      const Game w = view.sample_world(seed);
      SCOPED_TRACE(GetParam() + " world " + std::to_string(seed));
      // What the seat knows is unchanged: the view of the world is the view.
      EXPECT_TRUE(InfoView(w, seat) == view);
      EXPECT_EQ(w.state().current_player(), g.state().current_player());
      EXPECT_EQ(w.state().hand(seat), g.state().hand(seat));
      if (g.variant().partner_visible)
        EXPECT_EQ(w.state().hand(partner_of(seat)), g.state().hand(partner_of(seat)));
      CardCounts hidden_before, hidden_after;
      for (int i = 0; i < kNumSeats; ++i) {
        EXPECT_EQ(w.state().hand(i).size(), g.state().hand(i).size());
        EXPECT_EQ(w.state().played(i), g.state().played(i));
        hidden_before = hidden_before + g.state().hand(i);
        hidden_after = hidden_after + w.state().hand(i);
      }
      EXPECT_EQ(hidden_before, hidden_after);  // the same cards, dealt otherwise
      EXPECT_EQ(w.history().size(), g.history().size());
      // A set deal whose record replays to the same position.
      const Game replayed = Game::from_json(w.to_json());
      EXPECT_TRUE(replayed.state() == w.state());
      EXPECT_FALSE(w.setup().dealt);
      // Deterministic in the seed.
      EXPECT_TRUE(view.sample_world(seed).state() == w.state());
      worlds.insert(w.to_json());
    }
    // Two or more hidden hands holding cards of several ranks: the worlds differ.
    const SeatKnowledge known(g.variant(), g.state(), seat);
    int ranks = 0, hidden_hands = 0;
    for (int r = 0; r < kNumRanks; ++r) ranks += known.unseen.count(r) > 0;
    for (int i = 0; i < kNumSeats; ++i)
      hidden_hands += i != seat && !(known.partner_shown && i == known.partner) && known.cards_left[i] > 0;
    if (!g.state().is_over() && ranks >= 3 && hidden_hands >= 2 && known.unseen.size() >= 6)
      EXPECT_GT(worlds.size(), 1u);
  }
}

TEST_P(InfoViewTest, DrawsTheWorldsOfTheSearchBotsSampler) {
  for (const Game& g : random_positions(GetParam(), 20, 9)) {
    if (g.state().is_over()) continue;
    const InfoView view(g, g.state().current_player());
    SplitMix64 rng(42);
    WorldSampler sampler(g.variant(), g.state());
    EXPECT_TRUE(view.sample_world(42).state() == sampler.sample(rng));
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPreset, InfoViewTest, ::testing::ValuesIn(preset_names()));

TEST(InfoView, AnotherSeatsViewHasNoLegalActionsAndSeesOnlyItsOwnHand) {
  Game g(Rules::preset("classic"), 5);
  const int to_act = g.state().current_player();
  const int other = (to_act + 1) % kNumSeats;
  const InfoView view(g, other);
  EXPECT_TRUE(view.legal_action_ids().empty());
  EXPECT_EQ(view.observation().own_hand, g.state().hand(other));
  EXPECT_FALSE(view.observation().partner_hand.has_value());
  const Game w = view.sample_world(1);
  EXPECT_EQ(w.state().hand(other), g.state().hand(other));
  EXPECT_EQ(w.state().current_player(), to_act);
}

TEST(InfoView, TheSeedOfADealtGameIsNotPartOfTheView) {
  const Game g(Rules::preset("classic"), 123456789);
  const InfoView view(g, 0);
  EXPECT_EQ(view.to_string().find("123456789"), std::string::npos);
  EXPECT_EQ(view.sample_world(1).to_json().find("123456789"), std::string::npos);
}

TEST(InfoView, RefusesASeatOutsideTheTable) {
  const Game g(Rules::preset("classic"), 1);
  EXPECT_THROW(InfoView(g, 4), std::invalid_argument);
  EXPECT_THROW(InfoView(g, -1), std::invalid_argument);
}

}  // namespace
}  // namespace shuangkou
