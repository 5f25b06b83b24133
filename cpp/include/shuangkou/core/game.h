// One deal of Shuangkou (docs/rules.md §6, §7): dealing, the first lead and
// the revealed-card seat swap, turns, passes, trick ends, 接风, places and
// scores.
//
// `GameState` is the compact state: trivially copyable (copy it with memcpy
// to clone for search), 136 bytes, no pointers. It holds no random stream:
// dealing consumes one, and agents keep their own (seeded per game), so a
// replay of the actions alone reproduces every state bit for bit. Functions that need the rules
// take the Variant as an argument. `Game` wraps a state with what a record
// needs: the variant, the deal set-up and the history of actions, and reads
// and writes JSON records that replay exactly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "shuangkou/core/cards.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/pattern.h"
#include "shuangkou/core/rng.h"
#include "shuangkou/core/rules.h"
#include "shuangkou/core/scoring.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

// How a dealt game began: the physical deal and the first-lead rule applied.
struct DealSetup {
  uint64_t seed = 0;
  bool dealt = false;                     // false for a set deal (hands given)
  int revealed_card = -1;                 // physical id 0..107 (revealed_card rule)
  int revealed_holder = -1;               // seat that held it: the leader
  int other_copy_holder = -1;             // seat that held the other copy, before any swap
  std::array<int8_t, 2> swapped{-1, -1};  // the two seats whose hands were exchanged
  int previous_first_finisher = -1;       // previous_winner rule: who led by it
  int leader = 0;
};

class GameState {
 public:
  // Shuffles two decks with splitmix64(seed), deals 27 cards to each seat and
  // applies the variant's first-lead rule. `previous_first_finisher` is the
  // seat that finished first in the previous deal of a match if that deal
  // ended single or draw (previous_winner rule), else -1.
  static GameState deal(const Variant& v, uint64_t seed, int previous_first_finisher = -1,
                        DealSetup* setup = nullptr);
  // A set deal: these hands (at most 27 cards each, together within two
  // decks), `leader` leads. Throws std::invalid_argument otherwise.
  static GameState from_hands(const std::array<CardCounts, kNumSeats>& hands, int leader);

  // The same position with other hands: each seat's new hand must hold as
  // many cards as its hand now (unchecked). For determinized search, which
  // deals the cards a seat cannot see anew and plays the position out.
  GameState redealt(const std::array<CardCounts, kNumSeats>& hands) const {
    GameState g = *this;
    g.hands_ = hands;
    return g;
  }

  bool is_over() const { return current_ < 0; }
  // The seat to act, -1 once the deal is over.
  int current_player() const { return current_; }
  // True when the current player opens a trick (and so may not pass).
  bool is_leading() const { return owner_ < 0; }
  bool can_pass() const { return !is_over() && !is_leading(); }

  CardCounts hand(int seat) const { return hands_[seat]; }
  CardCounts played(int seat) const { return played_[seat]; }
  // The play to beat and who made it (owner -1: nothing on the table).
  const Play& top() const { return top_; }
  int top_owner() const { return owner_; }
  // Passes since the last play of the current trick.
  int passes() const { return passes_; }
  int num_finished() const { return num_finished_; }
  // Seats in the order they went out (num_finished() of them).
  const std::array<int8_t, kNumSeats>& finish_order() const { return finished_; }
  // All four seats by place, once the deal is over (docs/rules.md §7).
  Places places() const;
  const BombTally& bombs() const { return bombs_; }
  int num_actions() const { return num_actions_; }

  // The canonical plays of the current player (pass not listed; it is legal
  // whenever can_pass()). Empty once the deal is over.
  void legal_moves(const Variant& v, MoveList& out) const;

  // Why `play` (kPass to pass) is not legal for the current player, or an
  // empty string. On success `*normalised` is the play as the rules read it.
  std::string check(const Variant& v, const Play& play, Play* normalised = nullptr) const;
  // Applies a play or a pass of the current player; throws
  // std::invalid_argument (naming the problem) and changes nothing if it is
  // not legal.
  void apply(const Variant& v, const Play& play);
  // Applies without checking: `play` must come from legal_moves(), or be a
  // pass when can_pass(). For the self-play hot path.
  void apply_legal(const Variant& v, const Play& play);

  // Points credited so far (contributions at the moment of each bomb).
  std::array<int64_t, kNumSeats> running_scores(const Variant& v) const;
  // The score of the finished deal; throws std::logic_error before the end.
  DealScore score(const Variant& v) const;

  bool operator==(const GameState&) const = default;

 private:
  int next_holding(int seat) const;
  bool team_out(int seat) const;

  std::array<CardCounts, kNumSeats> hands_{};
  std::array<CardCounts, kNumSeats> played_{};
  Play top_{};
  BombTally bombs_{};
  std::array<int8_t, kNumSeats> finished_{-1, -1, -1, -1};
  int8_t current_ = 0;
  int8_t owner_ = -1;
  int8_t passes_ = 0;
  int8_t num_finished_ = 0;
  uint16_t num_actions_ = 0;
};

static_assert(std::is_trivially_copyable_v<GameState>);
static_assert(sizeof(GameState) <= 256, "the compact state must stay under 256 bytes");

// What one seat may know (docs/rules.md §13: own hand; the partner's only where the
// variant shows it; everyone's cards left; all plays so far).
struct Observation {
  int seat = 0;
  CardCounts own_hand;
  std::optional<CardCounts> partner_hand;  // 双明 only
  std::array<int, kNumSeats> cards_left{};
  std::array<CardCounts, kNumSeats> played{};
  Play top{};
  int top_owner = -1;
  int passes = 0;
  std::array<int8_t, kNumSeats> finish_order{};
  int num_finished = 0;
  std::array<int64_t, kNumSeats> running_scores{};
};
Observation observe(const Variant& v, const GameState& s, int seat);

// Why action `id` cannot be played in `state` (a catalogue of `num_actions`
// ids), as the words after "action N": not an id, the deal is over, a pass
// where the seat leads, or not legal for the seat. The one message of an
// illegal action (Game::apply_action, VectorEnv::step).
std::string illegal_action_reason(int id, int num_actions, const GameState& state);

// One action of the history.
struct Action {
  int seat;
  Play play;  // kPass for a pass
};

// The legal actions of a position as every interface lists them (Game's
// legal_action_ids, the vector env's legal rows, the envs on top): action
// ids ascending, so the pass, id 0, comes first where it is legal (the order
// OpenSpiel's LegalActions has); one entry an id, with the move it plays
// (where the generator makes two moves of one pattern, the first it made).
struct LegalActions {
  std::vector<int32_t> ids;
  std::vector<Play> moves;
  // Lists the actions of the player to act in `s` (none once it is over);
  // `scratch` is working space. Allocates nothing once the lists have grown.
  void fill(const ActionCatalogue& c, const Variant& v, const GameState& s, MoveList& scratch);
  void clear() {
    ids.clear();
    moves.clear();
  }
  int size() const { return static_cast<int>(ids.size()); }

 private:
  std::vector<uint64_t> order_;  // (id << 32 | position in the generator's list)
};

// A deal with its record: variant, set-up and history.
class Game {
 public:
  Game(const Rules& r, uint64_t seed, int previous_first_finisher = -1);
  Game(const Rules& r, const std::array<CardCounts, kNumSeats>& hands, int leader);
  // The same, for a bare variant (its Rules is named "custom").
  Game(const Variant& v, uint64_t seed, int previous_first_finisher = -1);
  Game(const Variant& v, const std::array<CardCounts, kNumSeats>& hands, int leader);

  const Rules& rules() const { return rules_; }
  const Variant& variant() const { return rules_.variant(); }
  const GameState& state() const { return state_; }
  const DealSetup& setup() const { return setup_; }
  const std::array<CardCounts, kNumSeats>& initial_hands() const { return initial_; }
  const std::vector<Action>& history() const { return history_; }

  void legal_moves(MoveList& out) const { state_.legal_moves(variant(), out); }
  // Checked; throws std::invalid_argument and changes nothing if illegal.
  void apply(const Play& play);

  // The action ids (rules().catalogue()) of the moves the player to act may
  // make, ascending; 0, the pass, first where passing is legal. Empty once
  // the deal is over. Computed once per position.
  const std::vector<int32_t>& legal_action_ids() const;
  // Plays the legal move with action id `id` (the canonical move of that
  // pattern). Throws std::invalid_argument naming the id, changing nothing,
  // if it is not legal here.
  void apply_action(int id);
  // The reading a card set is played as by the current player: when leading
  // its strongest reading; when following the reading of the trick's kind
  // that beats the table, else the strongest bomb reading that does. Throws
  // std::invalid_argument naming the problem.
  Play reading_for_current_player(CardCounts cards) const;
  Observation observation(int seat) const { return observe(variant(), state_, seat); }

  // JSON record (format "shuangkou-deal/1"): variant, seed, set-up, initial
  // hands, every action, and at the end the places and score.
  std::string to_json() const;
  // Replays a record; throws std::invalid_argument if it is malformed or does
  // not replay to the places and scores it states. A record may name who sat
  // where ("agents": four labels, as the runners write them); the replay does
  // not depend on it.
  static Game from_json(const std::string& json);
  // The same deal with other hands now (each seat's new hand as many cards
  // as its hand now; unchecked): a set deal of those hands plus the cards
  // each seat has played, with this game's leader and history (no seed, no
  // revealed card), so its record replays exactly. The worlds of
  // InfoView::sample_world.
  Game redealt(const std::array<CardCounts, kNumSeats>& hands) const;
  // The game dealt from (r, seed) after `actions`, each applied with apply()
  // (std::invalid_argument naming the first that is not legal).
  static Game replay(const Rules& r, uint64_t seed, std::span<const Action> actions);

 private:
  void refresh_ids() const;

  Rules rules_;
  GameState state_;
  DealSetup setup_;
  std::array<CardCounts, kNumSeats> initial_{};
  std::vector<Action> history_;
  // legal_action_ids(): the position they are for (history_.size(); -1 none)
  // and the actions.
  mutable int64_t ids_at_ = -1;
  mutable LegalActions legal_;
};

}  // namespace shuangkou
