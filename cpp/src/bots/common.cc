// What the bots share: a few plays picked from the legal ones
// (bots_internal.h).
#include <charconv>

#include "bots_internal.h"

namespace shuangkou::detail {

std::optional<int> whole_number(std::string_view text, int lo, int hi) {
  int n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < lo || n > hi) return std::nullopt;
  return n;
}

const Play* going_out(const GameState& s, const MoveList& moves) {
  const int left = s.hand(s.current_player()).size();
  for (const Play& m : moves)
    if (m.size == left) return &m;
  return nullptr;
}

const Play* weakest_bomb(const MoveList& moves) {
  const Play* best = nullptr;
  for (const Play& m : moves)
    if (is_bomb(m.kind) && (!best || m.power < best->power)) best = &m;
  return best;
}

namespace {

// Lowest rank a play's reading holds.
int lowest_rank(const Play& p) {
  for (int r = 0; r < kNumRanks; ++r)
    if (p.reading.count(r)) return r;
  return kNumRanks;
}

}  // namespace

const Play& lowest_lead(const MoveList& moves) {
  const Play* best = nullptr;
  for (const Play& m : moves) {
    if (is_bomb(m.kind)) continue;
    if (!best || lowest_rank(m) < lowest_rank(*best) ||
        (lowest_rank(m) == lowest_rank(*best) && m.size > best->size))
      best = &m;
  }
  return best ? *best : *weakest_bomb(moves);
}

}  // namespace shuangkou::detail
