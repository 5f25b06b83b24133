// The heuristic bot (docs/heuristic.md): it values a hand by the cheapest
// split of it into plays (hand_value.h), and plays to keep that value low
// while working with its partner and watching the opponents' cards.
#include <algorithm>

#include "bots_internal.h"
#include "shuangkou/bots/hand_value.h"

namespace shuangkou::detail {
namespace {

// Opponents at or below this many cards are "close to going out": the bot
// then stops them at almost any cost, bombs included.
constexpr int kDanger = 6;

// True if no unseen card set can beat the non-bomb `m` without a bomb: a
// single, pair or triple above which no unseen rank (with unseen wilds)
// holds enough cards, or any play longer than every opponent's hand.
bool unbeatable(const Variant& v, const SeatKnowledge& view, const Play& m) {
  bool longer_than_all = true;
  for (int i = 0; i < kNumSeats; ++i)
    if (view.opponent(i) && view.cards_left[i] >= m.size) longer_than_all = false;
  if (longer_than_all) return true;
  int width = 0;
  switch (m.kind) {
    case Kind::kSingle:
      width = 1;
      break;
    case Kind::kPair:
      width = 2;
      break;
    case Kind::kTriple:
      width = 3;
      break;
    default:
      return false;
  }
  int wilds = 0;
  if (width > 1) {
    if (v.big_joker_wild()) wilds += view.unseen.count(kBigJoker);
    if (v.small_joker_wild()) wilds += view.unseen.count(kSmallJoker);
  }
  const int top = width == 1 ? kNumRanks : kNumNaturalRanks;
  for (int r = m.key + 1; r < top; ++r)
    if (view.unseen.count(r) + (view.unseen.count(r) > 0 ? wilds : 0) >= width) return false;
  if (width == 2)  // SJ SJ / BJ BJ pairs
    for (int r = kSmallJoker; r <= kBigJoker; ++r)
      if (r > m.key && view.unseen.count(r) >= 2) return false;
  return true;
}

Play lead(const Variant& v, const GameState& s, const MoveList& moves, const SeatKnowledge& view) {
  const float base = hand_cost(v, view.hand);
  const int partner_left = view.cards_left[view.partner];
  const Play* best = nullptr;
  float best_score = 0;
  for (const Play& m : moves) {
    if (is_bomb(m.kind)) continue;
    // What is left is as easy to shed as possible: the weakest group goes first.
    float score = hand_cost(v, view.hand - m.cards);
    const bool safe = unbeatable(v, view, m);
    // An opponent holding exactly m.size cards could go out on it.
    for (int i = 0; i < kNumSeats; ++i)
      if (view.opponent(i) && view.cards_left[i] == m.size && !safe) score += 1.5f;
    // Near the end, a play nobody can beat keeps the lead for the last one.
    if (base <= 2.0f && safe) score -= 0.8f;
    // The partner close to going out: lead what the partner can follow.
    if (partner_left > 0 && partner_left <= 5) {
      if (view.partner_shown) {
        const CardCounts ph = s.hand(view.partner);
        if (ph.size() == m.size) {
          const auto reply = read_as(v, ph, m.kind);
          if (reply && beats(*reply, m)) score -= 3.0f;
        }
      } else if (m.size == partner_left && m.size <= 2 && m.key <= 7) {
        score -= 0.5f;
      }
    }
    if (!best || score < best_score - 1e-6f ||
        (score < best_score + 1e-6f && (m.key < best->key || (m.key == best->key && m.size > best->size)))) {
      best = &m;
      best_score = score;
    }
  }
  if (best) return *best;
  return *weakest_bomb(moves);  // only bombs left
}

Play follow(const Variant& v, const GameState& s, const MoveList& moves, const SeatKnowledge& view) {
  const int owner = s.top_owner();
  // The partner's play is let run: it keeps the lead with the team, and if
  // the partner has just gone out, passing hands the lead over (接风).
  if (owner == view.partner) return kPass;
  bool urgent = view.cards_left[owner] <= kDanger;
  for (int i = 0; i < kNumSeats; ++i)
    if (view.opponent(i) && view.cards_left[i] > 0 && view.cards_left[i] <= 3) urgent = true;
  const int left = view.cards_left[view.seat];
  const float base = hand_cost(v, view.hand);
  const Play* best = nullptr;
  float best_delta = 0;
  for (const Play& m : moves) {
    if (is_bomb(m.kind)) continue;
    const float delta = hand_cost(v, view.hand - m.cards) - base;
    if (!best || delta < best_delta - 1e-6f || (delta < best_delta + 1e-6f && m.power < best->power)) {
      best = &m;
      best_delta = delta;
    }
  }
  // How much worse the rest of the hand may get for taking the trick.
  const float tolerance = urgent ? 3.0f : left <= 10 ? 0.6f : 0.3f;
  if (best && best_delta <= tolerance) return *best;
  // Bombs decide deals: one is spent to stop an opponent close to going out,
  // or when the hand is then nearly done (the lead lets it finish).
  const Play* bomb = weakest_bomb(moves);
  if (bomb && (urgent || hand_cost(v, view.hand - bomb->cards) <= 1.0f)) return *bomb;
  return kPass;
}

}  // namespace

Play heuristic_action(const Variant& v, const GameState& s, const MoveList& moves) {
  if (const Play* out = going_out(s, moves)) return *out;
  const SeatKnowledge view(v, s);
  return s.is_leading() ? lead(v, s, moves, view) : follow(v, s, moves, view);
}

namespace {

class HeuristicBot final : public Bot {
 public:
  Play step(const Decision& d) const override {
    return d.moves.empty() ? kPass : heuristic_action(d.variant, d.state, d.moves);
  }
  std::string label() const override { return "heuristic"; }
};

}  // namespace

BotPtr make_heuristic_bot(std::string_view) { return std::make_shared<const HeuristicBot>(); }

}  // namespace shuangkou::detail
