// Batch self-play: many deals over several threads (OpenMP). Deal i is dealt
// from derive_seed(seed, i) and its agents draw from their own stream seeded
// from the same, so every result is identical whatever the thread count.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "shuangkou/bots.h"
#include "shuangkou/game.h"
#include "shuangkou/scoring.h"
#include "shuangkou/variant.h"

namespace shuangkou {

struct SelfPlayOptions {
  Variant variant;
  int64_t games = 1;
  int threads = 0;  // 0: every core OpenMP sees
  uint64_t seed = 0;
  std::array<BotKind, kNumSeats> agents{BotKind::kRandom, BotKind::kRandom, BotKind::kRandom,
                                        BotKind::kRandom};
  // The first `replays` deals (-1: all) are recorded (Game::to_json) and
  // handed to `on_records`, in deal order, one block of deals at a time, on
  // the calling thread; an exception it throws stops the run and propagates.
  int64_t replays = 0;
  std::function<void(const std::vector<std::string>& records)> on_records;
};

// What the summary needs of one deal (80 bytes).
struct DealResult {
  std::array<int64_t, kNumSeats> scores{};
  Places places{};
  std::array<uint8_t, kNumSeats> bombs{};      // bombs played, by seat
  std::array<uint8_t, kNumSeats> max_stars{};  // most stars of one bomb, by seat
  std::array<uint8_t, 24> bombs_by_stars{};    // bombs of each star count (0..23)
  uint16_t actions = 0;                        // plays and passes
  uint16_t plays = 0;
  Outcome outcome = Outcome::kDouble;
  int8_t leader = 0;
};

// The result of a finished deal.
DealResult make_deal_result(const Variant& v, const GameState& s, int leader, int plays);

// The agents' random stream of deal `deal_seed`.
constexpr uint64_t agent_seed(uint64_t deal_seed) { return mix64(deal_seed ^ 0xA6E47B07ULL); }

// Plays one deal; if `record` is given, also writes its JSON record there.
DealResult play_deal(const SelfPlayOptions& o, uint64_t index, MoveList& scratch,
                     std::string* record = nullptr);

// Plays deals [0, o.games) into `results` (resized). `progress(done)` is
// called on the calling thread between blocks of deals; returning false stops
// early (the results then hold the first `done` deals). Returns deals played.
int64_t run_selfplay(const SelfPlayOptions& o, std::vector<DealResult>& results,
                     const std::function<bool(int64_t done)>& progress = nullptr);

}  // namespace shuangkou
