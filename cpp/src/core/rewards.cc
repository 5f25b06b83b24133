#include "shuangkou/core/rewards.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace shuangkou {

RewardMode parse_reward_mode(std::string_view name) {
  if (name == "score") return RewardMode::kScore;
  if (name == "win") return RewardMode::kWin;
  if (name == "log") return RewardMode::kLog;
  throw std::invalid_argument("reward must be 'score', 'win' or 'log', got '" + std::string(name) + "'");
}

double deal_reward(RewardMode mode, const GameState& finished, const Variant& v, int seat) {
  const DealScore d = finished.score(v);
  switch (mode) {
    case RewardMode::kScore:
      return static_cast<double>(d.total[seat]);
    case RewardMode::kWin:
      if (d.outcome == Outcome::kDraw) return 0.0;
      return team_of(seat) == team_of(finished.places()[0]) ? 1.0 : -1.0;
    case RewardMode::kLog: {
      const double x = static_cast<double>(d.total[seat]);
      return std::copysign(std::log1p(std::fabs(x)), x);
    }
  }
  return 0.0;
}

}  // namespace shuangkou
