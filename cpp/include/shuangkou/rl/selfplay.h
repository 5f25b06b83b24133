// Batch self-play: many deals over several threads (OpenMP). Deal i is dealt
// from derive_seed(seed, i) and its agents draw from their own stream seeded
// from the same, so every result is identical whatever the thread count.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cancel.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/scoring.h"
#include "shuangkou/core/variant.h"
#include "shuangkou/rl/results.h"

namespace shuangkou {

struct SelfPlayOptions {
  Variant variant;
  int64_t games = 1;
  // Plays deals first..first+games-1 of `seed` (a chunk of a longer run:
  // each deal is the same whatever the chunks).
  uint64_t first = 0;
  int threads = 0;  // 0: every core OpenMP sees
  uint64_t seed = 0;
  // One bot a seat (make_bot; shared, read-only); random everywhere by default.
  std::array<BotPtr, kNumSeats> agents{make_bot("random"), make_bot("random"), make_bot("random"),
                                       make_bot("random")};
  // The first `replays` deals (-1: all) are recorded (Game::to_json) and
  // handed to `on_records`, in deal order, one block of deals at a time, on
  // the calling thread; an exception it throws stops the run and propagates.
  int64_t replays = 0;
  std::function<void(const std::vector<std::string>& records)> on_records;
  // Polled between moves (and by search bots between samples): once another
  // thread sets it, run_selfplay stops within a move and throws Cancelled.
  const CancelFlag* cancel = nullptr;
};

// Plays one deal; if `record` is given, also writes its JSON record there.
// Stopped by o.cancel, it returns an empty result (to be discarded).
DealResult play_deal(const SelfPlayOptions& o, uint64_t index, MoveList& scratch,
                     std::string* record = nullptr);

// Plays deals [o.first, o.first + o.games) into `results` (resized; result
// i is deal o.first + i). `progress(done)` is
// called on the calling thread between blocks of deals; returning false stops
// early (the results then hold the first `done` deals). Returns deals played.
// Throws Cancelled when o.cancel is set (the results are then meaningless).
int64_t run_selfplay(const SelfPlayOptions& o, std::vector<DealResult>& results,
                     const std::function<bool(int64_t done)>& progress = nullptr);

}  // namespace shuangkou
