#include "shuangkou/core/infoset.h"

#include <stdexcept>
#include <utility>

#include "shuangkou/core/config.h"
#include "shuangkou/core/seats.h"

namespace shuangkou {

SeatKnowledge::SeatKnowledge(const Variant& v, const GameState& s, int seat_)
    : seat(seat_), partner(partner_of(seat_)), hand(s.hand(seat_)) {
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

WorldSampler::WorldSampler(const Variant& v, const GameState& s, int seat) : state_(s), known_(v, s, seat) {
  for (int r = 0; r < kNumRanks; ++r)
    for (int k = 0; k < known_.unseen.count(r); ++k) pool_[pool_size_++] = static_cast<uint8_t>(r);
  for (int i = 0; i < kNumSeats; ++i)
    if (i != known_.seat && !(known_.partner_shown && i == known_.partner) && known_.cards_left[i] > 0)
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
    for (int k = 0; k < known_.cards_left[hidden_[h]]; ++k) dealt.add(pool_[next++]);
    hands[hidden_[h]] = dealt;
  }
  return state_.redealt(hands);
}

namespace {

int checked_seat(int seat) {
  if (seat < 0 || seat >= kNumSeats)
    throw std::invalid_argument("seat must be 0..3, got " + std::to_string(seat));
  return seat;
}

}  // namespace

InfoView::InfoView(const Game& game, int seat)
    : game_(game), seat_(checked_seat(seat)), obs_(game.observation(seat)) {}

std::vector<int32_t> InfoView::legal_action_ids() const {
  if (current_player() != seat_) return {};
  return game_.legal_action_ids();
}

Game InfoView::sample_world(uint64_t seed) const {
  SplitMix64 rng(seed);
  WorldSampler sampler(game_.variant(), game_.state(), seat_);
  const GameState world = sampler.sample(rng);
  std::array<CardCounts, kNumSeats> hands;
  for (int i = 0; i < kNumSeats; ++i) hands[i] = world.hand(i);
  return game_.redealt(hands);
}

std::string InfoView::to_string() const {
  std::string out = "rules " + rules().name() + " (";
  bool first = true;
  for (const auto& [key, value] : params(rules().variant())) {
    out += (first ? "" : ", ") + key + "=" + value;
    first = false;
  }
  out += ")\nseat " + std::to_string(seat_) + "\nleader " + std::to_string(leader());
  out += "\nhand " + obs_.own_hand.to_string();
  if (obs_.partner_hand) out += "\npartner hand " + obs_.partner_hand->to_string();
  out += "\nactions";
  for (const Action& a : history()) {
    out += " " + std::to_string(a.seat) + ":";
    out += is_pass(a.play) ? std::string("pass")
                           : std::string(kind_name(a.play.kind)) + "=" + a.play.cards.to_string();
  }
  return out;
}

bool InfoView::operator==(const InfoView& other) const { return to_string() == other.to_string(); }

}  // namespace shuangkou
