// A deal as the batch runners play it (self-play, the vector env, the DMC
// actors through it): the position, what its result counts, and the recent
// actions the observation shows. Every step, whoever chooses it, goes through
// DealInProgress::apply, and a bot's step through bot_step.
#pragma once

#include <optional>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/game.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/rl/results.h"

namespace shuangkou {

struct DealInProgress {
  GameState state;
  DealTally tally;
  RecentActions recent;

  // Plays `action`, legal for the current player: counts it for the result,
  // applies it, and records it among the recent actions.
  void apply(const Variant& v, const Play& action) {
    const int seat = state.current_player();
    tally.count(state, action);
    state.apply_legal(v, action);
    recent.push(seat, action);
  }
};

// The bot's step in `d`: it chooses for the current player (scratch: working
// space; rng: the game's agent stream), and the action is applied. Returns
// it, or nullopt, with nothing played, when `cancel` was set while the bot
// chose (a slow bot stopped early and its move is discarded).
inline std::optional<Play> bot_step(const Bot& bot, const Variant& v, DealInProgress& d, MoveList& scratch,
                                    SplitMix64& rng, const CancelFlag* cancel) {
  const Play a = choose_action(bot, v, d.state, d.recent.view(), scratch, rng, cancel);
  if (cancel_requested(cancel)) return std::nullopt;
  d.apply(v, a);
  return a;
}

}  // namespace shuangkou
