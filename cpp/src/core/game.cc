#include "shuangkou/core/game.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace shuangkou {
namespace {

std::string seat_name(int seat) { return "seat " + std::to_string(seat); }

std::string describe(const Play& p) {
  return "'" + p.cards.to_string() + "' (" + std::string(kind_name(p.kind)) + ")";
}

}  // namespace

GameState GameState::from_hands(const std::array<CardCounts, kNumSeats>& hands, int leader) {
  CardCounts all;
  for (int s = 0; s < kNumSeats; ++s) {
    const int n = hands[s].size();
    if (n == 0) throw std::invalid_argument("the hand of " + seat_name(s) + " is empty");
    if (n > kHandSize)
      throw std::invalid_argument("the hand of " + seat_name(s) + " holds " + std::to_string(n) +
                                  " cards; a deal gives at most " + std::to_string(kHandSize));
    for (int r = 0; r < kNumRanks; ++r) {
      all.add(r, hands[s].count(r));
      const int limit = copies_in_two_decks(r);
      if (all.count(r) > limit)
        throw std::invalid_argument("the hands hold more than " + std::to_string(limit) + " copies of '" +
                                    std::string(rank_token(r)) + "': two decks hold only " +
                                    std::to_string(limit));
    }
  }
  if (leader < 0 || leader >= kNumSeats)
    throw std::invalid_argument("leader must be a seat 0..3, got " + std::to_string(leader));
  GameState g;
  g.hands_ = hands;
  g.current_ = static_cast<int8_t>(leader);
  return g;
}

GameState GameState::deal(const Variant& v, uint64_t seed, int previous_first_finisher, DealSetup* setup) {
  SplitMix64 rng(seed);
  std::array<uint8_t, kNumPhysicalCards> deck;
  std::iota(deck.begin(), deck.end(), 0);
  for (int i = kNumPhysicalCards - 1; i > 0; --i) std::swap(deck[i], deck[rng.below(i + 1)]);
  std::array<CardCounts, kNumSeats> hands{};
  for (int i = 0; i < kNumPhysicalCards; ++i) hands[i / kHandSize].add(physical_rank(deck[i]));

  DealSetup info;
  info.seed = seed;
  info.dealt = true;
  info.previous_first_finisher = previous_first_finisher;
  switch (v.first_lead) {
    case FirstLead::kRevealedCard: {
      const int position = static_cast<int>(rng.below(kNumPhysicalCards));
      const int card = deck[position];
      const int other = (card + 54) % kNumPhysicalCards;  // same rank and suit, other deck
      const int leader = position / kHandSize;
      const int holder =
          static_cast<int>(std::find(deck.begin(), deck.end(), other) - deck.begin()) / kHandSize;
      info.revealed_card = card;
      info.revealed_holder = leader;
      info.other_copy_holder = holder;
      info.leader = leader;
      if (v.team_formation == TeamFormation::kByRule && holder != leader && holder != partner_of(leader)) {
        std::swap(hands[holder], hands[partner_of(leader)]);
        info.swapped = {static_cast<int8_t>(std::min(holder, partner_of(leader))),
                        static_cast<int8_t>(std::max(holder, partner_of(leader)))};
      }
      break;
    }
    case FirstLead::kPreviousWinner:
      info.leader =
          previous_first_finisher >= 0 ? previous_first_finisher : static_cast<int>(rng.below(kNumSeats));
      break;
    case FirstLead::kRandom:
      info.leader = static_cast<int>(rng.below(kNumSeats));
      break;
  }
  GameState g;
  g.hands_ = hands;
  g.current_ = static_cast<int8_t>(info.leader);
  if (setup) *setup = info;
  return g;
}

Places GameState::places() const {
  if (!is_over()) throw std::logic_error("places are known once the deal is over");
  Places p = finished_;
  int n = num_finished_;
  // Players still holding cards follow in turn order after the last finisher.
  for (int step = 1, last = finished_[n - 1]; step < kNumSeats; ++step) {
    const int seat = (last + step) % kNumSeats;
    if (!hands_[seat].empty()) p[n++] = static_cast<int8_t>(seat);
  }
  return p;
}

int GameState::next_holding(int seat) const {
  for (int step = 1; step <= kNumSeats; ++step) {
    const int s = (seat + step) % kNumSeats;
    if (!hands_[s].empty()) return s;
  }
  return -1;
}

void GameState::legal_moves(const Variant& v, MoveList& out) const {
  if (is_over()) {
    out.clear();
    return;
  }
  if (is_leading())
    generate_leads(v, hands_[current_], out);
  else
    generate_follows(v, hands_[current_], top_, out);
}

std::string GameState::check(const Variant& v, const Play& play, Play* normalised) const {
  if (is_over()) return "the deal is over";
  const std::string who = seat_name(current_);
  if (is_pass(play)) {
    if (is_leading()) return who + " leads this trick and may not pass";
    if (normalised) *normalised = kPass;
    return "";
  }
  if (!hands_[current_].contains(play.cards))
    return who + " does not hold '" + play.cards.to_string() + "' (hand: " + hands_[current_].to_string() +
           ")";
  const auto read = read_as(v, play.cards, play.kind);
  if (!read) return "'" + play.cards.to_string() + "' is not a valid " + std::string(kind_name(play.kind));
  if (!is_leading() && !beats(*read, top_)) return describe(*read) + " does not beat " + describe(top_);
  if (normalised) *normalised = *read;
  return "";
}

void GameState::apply(const Variant& v, const Play& play) {
  Play p;
  const std::string error = check(v, play, &p);
  if (!error.empty()) throw std::invalid_argument(error);
  apply_legal(v, p);
}

void GameState::apply_legal(const Variant& v, const Play& play) {
  (void)v;
  const int seat = current_;
  ++num_actions_;
  if (is_pass(play)) {
    ++passes_;
    int others = 0;  // players still holding cards, besides the one who played last
    for (int s = 0; s < kNumSeats; ++s) others += s != owner_ && !hands_[s].empty();
    if (passes_ >= others) {
      // Trick over: its winner leads, or their partner if they are out (接风).
      current_ = static_cast<int8_t>(hands_[owner_].empty() ? partner_of(owner_) : owner_);
      owner_ = -1;
      passes_ = 0;
      top_ = Play{};
    } else {
      current_ = static_cast<int8_t>(next_holding(seat));
    }
    return;
  }
  hands_[seat] = hands_[seat] - play.cards;
  played_[seat] = played_[seat] + play.cards;
  if (is_bomb(play.kind)) bombs_.add(seat, play.stars);
  top_ = play;
  owner_ = static_cast<int8_t>(seat);
  passes_ = 0;
  if (hands_[seat].empty()) {
    finished_[num_finished_++] = static_cast<int8_t>(seat);
    if (hands_[partner_of(seat)].empty()) {  // the team is out: the deal ends now
      current_ = -1;
      return;
    }
  }
  current_ = static_cast<int8_t>(next_holding(seat));
}

std::array<int64_t, kNumSeats> GameState::running_scores(const Variant& v) const {
  if (is_over()) return score(v).total;
  return running_contribution(v, bombs_);
}

DealScore GameState::score(const Variant& v) const { return score_deal(v, places(), bombs_); }

Observation observe(const Variant& v, const GameState& s, int seat) {
  if (seat < 0 || seat >= kNumSeats) throw std::invalid_argument("seat must be 0..3");
  Observation o;
  o.seat = seat;
  o.own_hand = s.hand(seat);
  if (v.partner_visible) o.partner_hand = s.hand(partner_of(seat));
  for (int i = 0; i < kNumSeats; ++i) {
    o.cards_left[i] = s.hand(i).size();
    o.played[i] = s.played(i);
  }
  o.top = s.top();
  o.top_owner = s.top_owner();
  o.passes = s.passes();
  o.finish_order = s.finish_order();
  o.num_finished = s.num_finished();
  o.running_scores = s.running_scores(v);
  return o;
}

// --- Game ---------------------------------------------------------------

Game::Game(const Rules& r, uint64_t seed, int previous_first_finisher) : rules_(r) {
  if (previous_first_finisher < -1 || previous_first_finisher >= kNumSeats)
    throw std::invalid_argument("previous first finisher must be a seat 0..3 or -1");
  state_ = GameState::deal(variant(), seed, previous_first_finisher, &setup_);
  for (int s = 0; s < kNumSeats; ++s) initial_[s] = state_.hand(s);
}

Game::Game(const Rules& r, const std::array<CardCounts, kNumSeats>& hands, int leader)
    : rules_(r), state_(GameState::from_hands(hands, leader)), initial_(hands) {
  setup_.leader = leader;
}

Game::Game(const Variant& v, uint64_t seed, int previous_first_finisher)
    : Game(Rules("custom", v), seed, previous_first_finisher) {}

Game::Game(const Variant& v, const std::array<CardCounts, kNumSeats>& hands, int leader)
    : Game(Rules("custom", v), hands, leader) {}

void LegalActions::fill(const ActionCatalogue& c, const Variant& v, const GameState& s, MoveList& scratch) {
  clear();
  if (s.is_over()) return;
  s.legal_moves(v, scratch);
  // The generator lists moves nearly in id order (by kind, then rank): most
  // positions take the fast path, a check and a copy.
  bool ascending = true;
  if (s.can_pass()) ids.push_back(ActionCatalogue::kPass);
  for (int k = 0; k < scratch.size(); ++k) {
    const int32_t id = c.id_of_generated(scratch[k]);
    ascending &= ids.empty() || ids.back() < id;
    ids.push_back(id);
  }
  if (ascending) {
    if (s.can_pass()) moves.push_back(kPass);
    moves.insert(moves.end(), scratch.begin(), scratch.end());
    return;
  }
  // Else sort keys (id << 32 | position), position 0 for the pass and k + 1
  // for the generator's k-th move: by id, then in the generator's order; of
  // moves sharing an id, the first the generator made stays.
  order_.clear();
  for (size_t k = 0; k < ids.size(); ++k) {
    const uint32_t position = s.can_pass() ? static_cast<uint32_t>(k) : static_cast<uint32_t>(k + 1);
    order_.push_back(static_cast<uint64_t>(ids[k]) << 32 | position);
  }
  std::sort(order_.begin(), order_.end());
  ids.clear();
  for (const uint64_t key : order_) {
    const auto id = static_cast<int32_t>(key >> 32);
    if (!ids.empty() && ids.back() == id) continue;
    const auto position = static_cast<uint32_t>(key);
    ids.push_back(id);
    moves.push_back(position == 0 ? kPass : scratch[static_cast<int>(position) - 1]);
  }
}

void Game::refresh_ids() const {
  if (ids_at_ == static_cast<int64_t>(history_.size())) return;
  MoveList scratch;
  legal_.fill(rules_.catalogue(), variant(), state_, scratch);
  ids_at_ = static_cast<int64_t>(history_.size());
}

const std::vector<int32_t>& Game::legal_action_ids() const {
  refresh_ids();
  return legal_.ids;
}

std::string illegal_action_reason(int id, int num_actions, const GameState& state) {
  if (id < 0 || id >= num_actions) return "is not an action id (0.." + std::to_string(num_actions - 1) + ")";
  if (state.is_over()) return "cannot be played: the deal is over";
  if (id == ActionCatalogue::kPass)
    return "is a pass, but seat " + std::to_string(state.current_player()) + " leads the trick";
  return "is not legal for seat " + std::to_string(state.current_player());
}

void Game::apply_action(int id) {
  refresh_ids();
  const auto it = std::lower_bound(legal_.ids.begin(), legal_.ids.end(), id);
  if (it == legal_.ids.end() || *it != id)
    throw std::invalid_argument("action " + std::to_string(id) + " " +
                                illegal_action_reason(id, rules_.catalogue().size(), state_));
  apply(legal_.moves[static_cast<size_t>(it - legal_.ids.begin())]);
}

Game Game::redealt(const std::array<CardCounts, kNumSeats>& hands) const {
  Game g = *this;
  g.state_ = state_.redealt(hands);
  for (int s = 0; s < kNumSeats; ++s) g.initial_[s] = hands[s] + state_.played(s);
  g.setup_ = DealSetup{};  // a set deal of these hands: no seed, no revealed card
  g.setup_.leader = setup_.leader;
  g.ids_at_ = -1;
  return g;
}

Game Game::replay(const Rules& r, uint64_t seed, std::span<const Action> actions) {
  Game g(r, seed);
  for (const Action& a : actions) g.apply(a.play);
  return g;
}

void Game::apply(const Play& play) {
  Play p;
  const std::string error = state_.check(variant(), play, &p);
  if (!error.empty()) throw std::invalid_argument(error);
  const int seat = state_.current_player();
  state_.apply_legal(variant(), p);
  history_.push_back({seat, p});
}

Play Game::reading_for_current_player(CardCounts cards) const {
  if (state_.is_over()) throw std::invalid_argument("the deal is over");
  if (cards.empty()) throw std::invalid_argument("no cards given (use a pass to pass)");
  const Readings all = read_all(variant(), cards);
  if (!all.mask)
    throw std::invalid_argument("'" + cards.to_string() + "' is not a valid play under these rules");
  if (state_.is_leading()) return *read_best(variant(), cards);
  const Play& top = state_.top();
  if (all.has(top.kind) && beats(all[top.kind], top)) return all[top.kind];
  std::optional<Play> best;
  for (int k = static_cast<int>(Kind::kBomb); k < kNumKinds; ++k)
    if (all.has(static_cast<Kind>(k)) && beats(all.by_kind[k], top) &&
        (!best || all.by_kind[k].power > best->power))
      best = all.by_kind[k];
  if (!best) throw std::invalid_argument("'" + cards.to_string() + "' does not beat " + describe(top));
  return *best;
}

}  // namespace shuangkou
