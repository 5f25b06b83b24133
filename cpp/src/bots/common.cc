// What the bots share: the player's view of the cards and a few plays
// picked from the legal ones (bots_internal.h).
#include "bots_internal.h"

namespace shuangkou::detail {

View::View(const Variant& v, const GameState& s)
    : seat(s.current_player()), partner(partner_of(s.current_player())), hand(s.hand(s.current_player())) {
  partner_shown = v.partner_visible;
  CardCounts known = hand;
  if (partner_shown) known = known + s.hand(partner);
  for (int i = 0; i < kNumSeats; ++i) {
    known = known + s.played(i);
    cards_left[i] = s.hand(i).size();
  }
  uint64_t full = 0;
  for (int r = 0; r < kNumRanks; ++r) full |= static_cast<uint64_t>(copies_in_two_decks(r)) << (4 * r);
  unseen = CardCounts(full) - known;
}

WorldSampler::WorldSampler(const Variant& v, const GameState& s) : state_(s), view_(v, s) {
  for (int r = 0; r < kNumRanks; ++r)
    for (int k = 0; k < view_.unseen.count(r); ++k) pool_[pool_size_++] = static_cast<uint8_t>(r);
  for (int i = 0; i < kNumSeats; ++i)
    if (i != view_.seat && !(view_.partner_shown && i == view_.partner) && view_.cards_left[i] > 0)
      hidden_[num_hidden_++] = i;
}

GameState WorldSampler::sample(SplitMix64& rng) {
  for (int i = pool_size_ - 1; i > 0; --i)
    std::swap(pool_[i], pool_[rng.below(static_cast<uint32_t>(i + 1))]);
  std::array<CardCounts, kNumSeats> hands;
  for (int i = 0; i < kNumSeats; ++i) hands[i] = state_.hand(i);
  int next = 0;
  for (int h = 0; h < num_hidden_; ++h) {
    CardCounts dealt;
    for (int k = 0; k < view_.cards_left[hidden_[h]]; ++k) dealt.add(pool_[next++]);
    hands[hidden_[h]] = dealt;
  }
  return state_.redealt(hands);
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
