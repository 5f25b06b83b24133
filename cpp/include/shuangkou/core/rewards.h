// Rewards of a finished deal for learning agents: one function every env
// uses (the vector env, the Gymnasium and PettingZoo envs, Game.rewards).
#pragma once

#include <cstdint>
#include <string_view>

#include "shuangkou/core/game.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

enum class RewardMode : uint8_t {
  kScore,  // the deal score
  kWin,    // +1 / -1 by team result, 0 for a draw (平扣)
  kLog,    // sign(score) * log(1 + |score|)
};

// "score", "win", "log"; throws std::invalid_argument naming the allowed ones.
RewardMode parse_reward_mode(std::string_view name);
// The reward of `seat` for a finished deal.
double deal_reward(RewardMode mode, const GameState& finished, const Variant& v, int seat);

}  // namespace shuangkou
