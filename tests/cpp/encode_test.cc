#include "shuangkou/model/encode.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/rl/vector_env.h"
#include "test_util.h"

namespace shuangkou {
namespace {

TEST(Catalogue, IdsRoundTripAndCoverEveryCanonicalMove) {
  std::mt19937_64 rng(21);
  MoveList moves;
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    const ActionCatalogue c(v);
    EXPECT_TRUE(is_pass(c.pattern(0)));
    EXPECT_EQ(c.id_of(kPass), 0);
    for (int id = 1; id < c.size(); ++id) {
      ASSERT_EQ(c.id_of(c.pattern(id)), id) << name << " " << c.pattern(id).reading.to_string();
      ASSERT_LE(c.pattern(id).size, kHandSize);
    }
    for (int trial = 0; trial < 2000; ++trial) {
      const CardCounts hand = testing::random_hand(rng, 5 + trial % 23);
      generate_leads(v, hand, moves);
      std::set<int> ids;
      for (const Play& m : moves) {
        const int id = c.id_of(m);
        ASSERT_GT(id, 0) << name << " " << m.cards.to_string();
        ASSERT_LT(id, c.size());
        EXPECT_EQ(c.pattern(id).kind, m.kind);
        if (m.kind != Kind::kThreeKings) EXPECT_EQ(c.pattern(id).reading, m.reading);
        EXPECT_TRUE(ids.insert(id).second) << "two moves share id " << id;
      }
    }
  }
  // Sizes: no uneven chain bombs without uneven_chain; more with max_bomb 12.
  EXPECT_EQ(ActionCatalogue(preset("baibian")).size(), ActionCatalogue(preset("jj")).size());
  EXPECT_LT(ActionCatalogue(preset("classic")).size(), ActionCatalogue(preset("baibian")).size());
  EXPECT_LT(ActionCatalogue(preset("qianbian")).size(), ActionCatalogue(preset("qianbian_collect")).size());
}

TEST(Observation, LayoutIsContiguousAndEncodesTheSeatsView) {
  const auto& layout = observation_layout();
  int offset = 0;
  for (const auto& s : layout) {
    EXPECT_EQ(s.offset, offset) << s.name;
    EXPECT_FALSE(s.meaning.empty());
    offset += s.size;
  }
  EXPECT_EQ(offset, observation_size());
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    const Game g(v, 3);
    const int seat = g.state().current_player();
    std::vector<float> obs(observation_size());
    encode_observation(v, g.state(), {}, seat, obs.data());
    for (int r = 0; r < kNumRanks; ++r) EXPECT_FLOAT_EQ(obs[r], g.state().hand(seat).count(r) / 8.0f);
    float partner = 0;
    for (int r = 0; r < kNumRanks; ++r) partner += obs[15 + r];
    EXPECT_EQ(partner > 0, v.partner_visible) << name;
    EXPECT_FLOAT_EQ(obs[layout[11].offset], 1.0f);  // leading
  }
}

// The vector env steps exactly as Games dealt from its episode seeds and
// played with the same moves.
TEST(VectorEnvTest, MatchesGamesPlayedWithTheSameMoves) {
  for (const auto& name : preset_names()) {
    VectorEnvOptions o;
    o.rules = Rules::preset(name);
    o.num_envs = 3;
    o.seed = 9;
    o.threads = 2;
    VectorEnv env(o);
    const ActionCatalogue& c = env.catalogue();
    std::vector<Game> mirror;
    std::vector<int64_t> episode(3, 0);
    for (int j = 0; j < 3; ++j) mirror.emplace_back(o.rules.variant(), VectorEnv::episode_seed(o.seed, j, 0));
    std::mt19937_64 rng(1);
    std::vector<float> obs(observation_size());
    int deals = 0;
    for (int step = 0; step < 1500; ++step) {
      std::vector<int32_t> actions(3);
      for (int j = 0; j < 3; ++j) {
        ASSERT_EQ(env.state(j), mirror[j].state()) << name << " env " << j << " step " << step;
        const auto& h = mirror[j].history();
        const size_t first = h.size() > kRecentActions ? h.size() - kRecentActions : 0;
        encode_observation(o.rules.variant(), mirror[j].state(),
                           std::span<const Action>(h.data() + first, h.size() - first),
                           mirror[j].state().current_player(), obs.data());
        ASSERT_EQ(0, std::memcmp(obs.data(), env.observations() + j * observation_size(),
                                 obs.size() * sizeof(float)));
        const int64_t begin = env.legal_offsets[j], end = env.legal_offsets[j + 1];
        ASSERT_GT(end, begin);
        actions[j] = env.legal_ids[begin + static_cast<int64_t>(rng() % static_cast<uint64_t>(end - begin))];
        ASSERT_EQ(env.masks()[j * c.size() + actions[j]], 1);
      }
      env.step(actions);
      for (int j = 0; j < 3; ++j) {
        // Apply the same id to the mirror.
        MoveList moves;
        mirror[j].legal_moves(moves);
        Play chosen = kPass;
        for (const Play& m : moves)
          if (c.id_of(m) == actions[j]) chosen = m;
        mirror[j].apply(chosen);
        if (mirror[j].state().is_over()) {
          ASSERT_EQ(env.dones()[j], 1);
          const auto total = mirror[j].state().score(o.rules.variant()).total;
          for (int s = 0; s < 4; ++s) {
            EXPECT_EQ(env.final_scores()[j * 4 + s], total[s]);
            EXPECT_FLOAT_EQ(env.rewards()[j * 4 + s], static_cast<float>(total[s]));
          }
          mirror[j] = Game(o.rules.variant(), VectorEnv::episode_seed(o.seed, j, ++episode[j]));
          ++deals;
        } else {
          ASSERT_EQ(env.dones()[j], 0);
        }
      }
    }
    EXPECT_GT(deals, 3) << name;
  }
}

TEST(VectorEnvTest, BotsPlayTheirSeatsAndIllegalActionsChangeNothing) {
  VectorEnvOptions o;
  o.rules = Rules::preset("baibian");
  o.num_envs = 8;
  o.bots = {nullptr, make_bot("heuristic"), nullptr, make_bot("heuristic")};
  o.reward = RewardMode::kWin;
  VectorEnv env(o);
  std::mt19937_64 rng(2);
  int done = 0;
  for (int step = 0; step < 400; ++step) {
    std::vector<int32_t> actions(8);
    for (int j = 0; j < 8; ++j) {
      ASSERT_TRUE(env.current_players()[j] == 0 || env.current_players()[j] == 2);
      const int64_t b = env.legal_offsets[j], e = env.legal_offsets[j + 1];
      actions[j] = env.legal_ids[b + static_cast<int64_t>(rng() % static_cast<uint64_t>(e - b))];
    }
    env.step(actions);
    for (int j = 0; j < 8; ++j)
      if (env.dones()[j]) {
        ++done;
        const float r = env.rewards()[j * 4];
        EXPECT_TRUE(r == 1.0f || r == -1.0f || r == 0.0f);
        EXPECT_EQ(env.rewards()[j * 4], env.rewards()[j * 4 + 2]);
        EXPECT_EQ(env.rewards()[j * 4 + 1], -env.rewards()[j * 4]);
      }
  }
  EXPECT_GT(done, 5);
  // An illegal action anywhere: nothing moves.
  std::vector<GameState> before;
  for (int j = 0; j < 8; ++j) before.push_back(env.state(j));
  const std::vector<float> obs_before(env.observations(), env.observations() + 8 * observation_size());
  std::vector<int32_t> actions(8);
  for (int j = 0; j < 8; ++j) actions[j] = env.legal_ids[env.legal_offsets[j]];
  actions[5] = env.num_actions() + 3;
  EXPECT_THROW(env.step(actions), std::invalid_argument);
  for (int j = 0; j < 8; ++j) EXPECT_EQ(env.state(j), before[j]);
  EXPECT_EQ(obs_before, std::vector<float>(env.observations(), env.observations() + 8 * observation_size()));
  EXPECT_THROW(env.step(std::vector<int32_t>(3)), std::invalid_argument);
  o.bots = {make_bot("random"), make_bot("random"), make_bot("random"), make_bot("random")};
  EXPECT_THROW(VectorEnv{o}, std::invalid_argument);  // nobody left to act
}

}  // namespace
}  // namespace shuangkou
