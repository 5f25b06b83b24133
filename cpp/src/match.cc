#include "shuangkou/match.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace shuangkou {

namespace {
int checked_deals(int n) {
  if (n < 1) throw std::invalid_argument("a match needs at least 1 deal, got " + std::to_string(n));
  return n;
}
}  // namespace

Match::Match(const Variant& v, uint64_t seed, int num_deals)
    : variant_(v), seed_(seed), num_deals_(checked_deals(num_deals)), game_(start_deal()) {}

int Match::seat_of(int player) const {
  for (int s = 0; s < kNumSeats; ++s)
    if (player_in_seat_[s] == player) return s;
  throw std::invalid_argument("player must be 0..3, got " + std::to_string(player));
}

Game Match::start_deal() {
  // previous_winner: after a single or draw, the previous first finisher
  // (a player, who may have moved seats since) leads.
  int previous = -1;
  if (!results_.empty() && results_.back().outcome != Outcome::kDouble) {
    const DealResult& last = results_.back();
    previous = seat_of(last.player_in_seat[last.places[0]]);
  }
  Game g(variant_, derive_seed(seed_, results_.size()), previous);
  const auto& swapped = g.setup().swapped;
  if (swapped[0] >= 0) std::swap(player_in_seat_[swapped[0]], player_in_seat_[swapped[1]]);
  return g;
}

void Match::next_deal() {
  if (is_over()) throw std::invalid_argument("the match is over: all its deals are played");
  if (!game_.state().is_over())
    throw std::invalid_argument("the current deal is not over: play it to the end before next_deal()");
  const DealScore score = game_.state().score(variant_);
  DealResult r;
  r.player_in_seat = player_in_seat_;
  r.places = game_.state().places();
  r.outcome = score.outcome;
  r.points_by_player = {};
  for (int seat = 0; seat < kNumSeats; ++seat) {
    r.points_by_player[player_in_seat_[seat]] = score.total[seat];
    totals_[player_in_seat_[seat]] += score.total[seat];
  }
  results_.push_back(r);
  if (!is_over()) game_ = start_deal();
}

}  // namespace shuangkou
