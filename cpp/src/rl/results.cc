#include "shuangkou/rl/results.h"

#include <algorithm>

namespace shuangkou {

DealResult make_deal_result(const Variant& v, const GameState& s, int leader, const DealTally& tally) {
  DealResult r;
  const DealScore d = s.score(v);
  r.scores = d.total;
  r.places = s.places();
  r.outcome = d.outcome;
  r.actions = static_cast<uint16_t>(s.num_actions());
  r.plays = static_cast<uint16_t>(tally.plays);
  r.overtakes = tally.overtakes;
  r.leader = static_cast<int8_t>(leader);
  const BombTally& b = s.bombs();
  for (int seat = 0; seat < kNumSeats; ++seat) {
    r.bombs[seat] = b.count[seat];
    r.max_stars[seat] = static_cast<uint8_t>(b.max_stars(seat));
    for (int i = 0; i < b.count[seat]; ++i) r.bombs_by_stars[std::min<int>(b.stars[seat][i], 23)]++;
  }
  return r;
}

}  // namespace shuangkou
