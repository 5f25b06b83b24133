// Encodings for learning agents: the observation vector of a seat and
// per-move feature rows (DouZero style). The action catalogue, the fixed
// action space, is catalogue.h.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shuangkou/core/catalogue.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/pattern.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

// One named slice of the observation vector.
struct ObservationSlice {
  std::string name;
  int offset;
  int size;
  std::string meaning;
};

// How many past actions the observation shows.
inline constexpr int kRecentActions = 8;

// The last kRecentActions actions of a deal, oldest first: what runners keep
// for the observation (fixed size, no allocation).
class RecentActions {
 public:
  void clear() { count_ = 0; }
  void push(int seat, const Play& play) {
    if (count_ == kRecentActions) {
      for (int i = 1; i < kRecentActions; ++i) actions_[i - 1] = actions_[i];
      --count_;
    }
    actions_[count_++] = {seat, play};
  }
  std::span<const Action> view() const { return {actions_.data(), static_cast<size_t>(count_)}; }

 private:
  std::array<Action, kRecentActions> actions_{};
  int count_ = 0;
};
// Size of an observation vector, and its slices in order.
int observation_size();
const std::vector<ObservationSlice>& observation_layout();

// Writes the observation of `seat` (observation_size() floats): only what
// that seat may know. Players are listed relative to the seat: self, next,
// partner, previous. `recent` holds the last actions of the deal, oldest
// first (only the last kRecentActions are used).
void encode_observation(const Variant& v, const GameState& s, std::span<const Action> recent, int seat,
                        float* out);

// The full-information state of a position (for centralised critics and
// perfect-information training): the observation of `seat`, then every
// seat's hand (self, next, partner, previous: 15 counts / 8 each).
int state_size();
const std::vector<ObservationSlice>& state_layout();
void encode_state(const Variant& v, const GameState& s, std::span<const Action> recent, int seat, float* out);

// Per-move features (one row per legal move, pass included as a row of its
// own): reading counts, cards used, kind one-hot, size, stars, pass flag.
inline constexpr int kMoveFeatureSize = 15 + 15 + kNumKinds + 3;
void encode_move(const Play& p, float* out);
// The move-feature row's slices, as observation_layout() gives the observation's.
const std::vector<ObservationSlice>& move_feature_layout();

}  // namespace shuangkou
