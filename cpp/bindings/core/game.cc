// Game, Match and level titles.
#include <cctype>

#include "common.h"
#include "core/rules_api.h"
#include "shuangkou/core/match.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/rewards.h"

namespace shuangkou_py {
namespace {

sk::Game make_game(const py::handle& variant, const py::handle& seed, const py::handle& hands,
                   const py::handle& leader, const py::kwargs& overrides) {
  const sk::Rules v = make_rules(variant, overrides);
  if (hands.is_none()) {
    if (!leader.is_none())
      throw py::value_error(
          "leader applies to a set deal (hands=...); a dealt game follows the first-lead rule");
    return sk::Game(v, seed_arg(seed));
  }
  if (!py::isinstance<py::sequence>(hands) || py::isinstance<py::str>(hands) ||
      py::len(hands) != sk::kNumSeats)
    throw py::value_error("hands must list four card strings, one per seat");
  std::array<sk::CardCounts, sk::kNumSeats> h;
  const auto seq = hands.cast<py::sequence>();
  for (int s = 0; s < sk::kNumSeats; ++s)
    h[s] = to_counts(seq[s], ("hand of seat " + std::to_string(s)).c_str());
  return sk::Game(v, h, leader.is_none() ? 0 : seat_arg(leader, "leader"));
}

// A move from Python: a Play, "pass" (or None), or cards read as the current
// player would play them.
sk::Play move_arg(const sk::Game& g, const py::handle& move) {
  if (move.is_none()) return sk::kPass;
  if (py::isinstance<sk::Play>(move)) return move.cast<sk::Play>();
  if (py::isinstance<py::str>(move)) {
    std::string t = text_arg(move, "move");
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t == "pass") return sk::kPass;
  }
  return g.reading_for_current_player(to_counts(move, "move"));
}

std::vector<int> finish_order_list(const sk::GameState& s) {
  if (s.is_over()) {
    const sk::Places p = s.places();
    return {p.begin(), p.end()};
  }
  return {s.finish_order().begin(), s.finish_order().begin() + s.num_finished()};
}

std::vector<int64_t> scores_list(const sk::Game& g) {
  const auto t = g.state().running_scores(g.variant());
  return {t.begin(), t.end()};
}

}  // namespace

void bind_game(py::module_& m) {
  py::class_<sk::Game>(m, "Game",
                       "One deal. Game(variant, seed=0) deals from the seed and applies the first-lead "
                       "rule; Game(variant, hands=[4 card strings], leader=0) is a set deal (no shuffle, "
                       "no revealed card). variant: a preset name or a YAML file; keyword overrides as "
                       "for Rules. Seats 0 and 2 are partners, 1 and 3.")
      .def(py::init(&make_game), py::arg("variant") = "classic", py::arg("seed") = 0,
           py::arg("hands") = py::none(), py::arg("leader") = py::none())
      .def(
          "current_player", [](const sk::Game& g) { return g.state().current_player(); },
          "The seat to act; -1 once the deal is over.")
      .def(
          "legal_moves",
          [](const sk::Game& g) {
            sk::MoveList moves;
            g.legal_moves(moves);
            return std::vector<sk::Play>(moves.begin(), moves.end());
          },
          "Canonical plays of the current player; passing is legal too whenever can_pass().")
      .def(
          "can_pass", [](const sk::Game& g) { return g.state().can_pass(); },
          "True when the current player may pass (not when leading a trick).")
      .def("is_leading", [](const sk::Game& g) { return g.state().is_leading(); })
      .def(
          "apply",
          [](sk::Game& g, const py::handle& move) {
            g.apply(move_arg(g, move));
            return play_or_none(g.history().back().play);
          },
          py::arg("move"),
          "Plays a Play, a card string (read as the trick requires: its kind when following, "
          "else the strongest reading) or 'pass'. An illegal move raises ValueError and changes "
          "nothing. Returns the play made (None for a pass).")
      .def(
          "legal_action_ids",
          [](const sk::Game& g) {
            const auto& ids = g.legal_action_ids();
            return py::array_t<int64_t>(static_cast<py::ssize_t>(ids.size()),
                                        std::vector<int64_t>(ids.begin(), ids.end()).data());
          },
          "Action ids (of rules.catalogue) of the legal moves, ascending; 0 (the pass) first where "
          "passing is legal; empty once the deal is over. int64 array.")
      .def(
          "apply_action",
          [](sk::Game& g, const py::handle& id) {
            const auto i = as_integer(id);
            int overflow = 0;
            const long long v = i ? PyLong_AsLongLongAndOverflow(i->ptr(), &overflow) : 0;
            if (!i || overflow != 0 || v < INT32_MIN || v > INT32_MAX)
              throw py::value_error("action must be an action id (an integer), got " + shown(id));
            g.apply_action(static_cast<int>(v));
            return play_or_none(g.history().back().play);
          },
          py::arg("action"),
          "Plays the legal move of an action id (its canonical cards). ValueError, changing nothing, if "
          "that id is not legal now. Returns the play made (None for a pass).")
      .def_property_readonly(
          "rules", [](const sk::Game& g) { return PyRules(g.rules()); }, "The rule set of this deal.")
      .def(py::pickle([](const sk::Game& g) { return g.to_json(); },
                      [](const std::string& record) { return sk::Game::from_json(record); }))
      .def("is_over", [](const sk::Game& g) { return g.state().is_over(); })
      .def("scores", &scores_list,
           "Deal scores by seat once over; before that, the points credited so far "
           "(contributions at the moment of each bomb).")
      .def("score_breakdown",
           [](const sk::Game& g) {
             if (!g.state().is_over()) throw py::value_error("the deal is not over");
             return breakdown_dict(g.state().score(g.variant()));
           })
      .def(
          "multipliers",
          [](const sk::Game& g) {
            // The multiplier of the bombs so far if the deal ended with seats 0 and 2's team
            // winning (a first place of theirs), and with seats 1 and 3's: only the winners'
            // bombs count under most rules (multiplier_from).
            std::vector<int64_t> out;
            for (const sk::Places places : {sk::Places{0, 1, 2, 3}, sk::Places{1, 0, 2, 3}})
              out.push_back(sk::score_deal(g.variant(), places, g.state().bombs()).multiplier);
            return out;
          },
          "[multiplier if seats 0 and 2 win, if seats 1 and 3 win]: what the bombs played so far make,\n"
          "at any point of the deal (score_breakdown gives the one that counted, once over).")
      .def(
          "rewards",
          [](const sk::Game& g, const py::handle& mode) {
            if (!g.state().is_over()) throw py::value_error("the deal is not over");
            const sk::RewardMode m = sk::parse_reward_mode(text_arg(mode, "mode"));
            std::vector<double> out;
            for (int s = 0; s < sk::kNumSeats; ++s)
              out.push_back(sk::deal_reward(m, g.state(), g.variant(), s));
            return out;
          },
          py::arg("mode") = "score",
          "Each seat's reward for the finished deal: 'score' (deal score), 'win' (+1/-1 by team, 0 "
          "for a draw) or 'log' (sign(s) * log(1 + |s|)), as the environments give them.")
      .def(
          "outcome",
          [](const sk::Game& g) -> py::object {
            if (!g.state().is_over()) return py::none();
            return py::cast(std::string(sk::outcome_name(g.state().score(g.variant()).outcome)));
          },
          "'double', 'single' or 'draw' once over, else None.")
      .def(
          "hand",
          [](const sk::Game& g, const py::handle& seat) {
            return g.state().hand(seat_arg(seat, "seat")).to_string();
          },
          py::arg("seat"))
      .def(
          "played",
          [](const sk::Game& g, const py::handle& seat) {
            return g.state().played(seat_arg(seat, "seat")).to_string();
          },
          py::arg("seat"), "The cards a seat has played so far.")
      .def(
          "initial_hands", [](const sk::Game& g) { return hand_strings(g.initial_hands()); },
          "The hands by seat at the start (after any revealed-card swap).")
      .def(
          "top",
          [](const sk::Game& g) -> py::object {
            return g.state().top_owner() >= 0 ? py::cast(g.state().top()) : py::none();
          },
          "The play to beat, or None when the current player leads.")
      .def("top_owner",
           [](const sk::Game& g) -> py::object {
             return g.state().top_owner() >= 0 ? py::cast(g.state().top_owner()) : py::none();
           })
      .def(
          "history", [](const sk::Game& g) { return history_list(g.history()); },
          "Every action so far: (seat, Play), or (seat, None) for a pass.")
      .def(
          "finish_order", [](const sk::Game& g) { return finish_order_list(g.state()); },
          "Seats that went out, in order; once over, all four seats by place.")
      .def(
          "observation",
          [](const sk::Game& g, const py::handle& seat) {
            const int s = seat.is_none() ? g.state().current_player() : seat_arg(seat, "seat");
            return observation_dict(g.observation(s), g.history());
          },
          py::arg("seat") = py::none(),
          "What a seat may know: own hand, the partner's only where the variant shows it (JJ), "
          "cards left, cards played, the trick, places, points so far, all plays.")
      .def_property_readonly("leader", [](const sk::Game& g) { return g.setup().leader; })
      .def_property_readonly(
          "revealed_card", [](const sk::Game& g) { return revealed_card_dict(g.setup()); },
          "The card turned up to choose the leader: {id, rank, holder, other_copy_holder}, or None.")
      .def_property_readonly(
          "swapped", [](const sk::Game& g) { return swapped_pair(g.setup()); },
          "The two seats whose hands the revealed-card rule exchanged, or None.")
      .def_property_readonly("params",
                             [](const sk::Game& g) {
                               py::dict d;
                               for (const auto& [k, v] : sk::params(g.variant())) d[py::str(k)] = v;
                               return d;
                             })
      .def("to_json", &sk::Game::to_json, "A JSON record that Game.from_json replays exactly.")
      .def_static(
          "from_json", [](const py::handle& text) { return sk::Game::from_json(text_arg(text, "record")); },
          py::arg("record"))
      .def("clone", [](const sk::Game& g) { return sk::Game(g); })
      .def("__copy__", [](const sk::Game& g) { return sk::Game(g); })
      .def(
          "__deepcopy__", [](const sk::Game& g, py::dict) { return sk::Game(g); }, py::arg("memo"))
      .def("__repr__", [](const sk::Game& g) {
        return "<Game " +
               std::string(g.state().is_over()
                               ? "over"
                               : "to act: seat " + std::to_string(g.state().current_player())) +
               ", " + std::to_string(g.history().size()) + " actions>";
      });

  py::class_<sk::Match>(m, "Match",
                        "A match of several deals: Match(variant, seed=0, deals=1). Players 0..3 start "
                        "in seats 0..3 and move with the revealed-card rule; points accumulate per player.")
      .def(py::init([](const py::handle& variant, const py::handle& seed, int deals, const py::kwargs& kw) {
             return sk::Match(make_variant(variant, kw, nullptr), seed_arg(seed), deals);
           }),
           py::arg("variant") = "classic", py::arg("seed") = 0, py::arg("deals") = 1)
      .def_property_readonly(
          "game", [](sk::Match& m) -> sk::Game& { return m.game(); },
          py::return_value_policy::reference_internal, "The current deal (seats, not players).")
      .def("__copy__", [](const sk::Match& m) { return sk::Match(m); })
      .def(
          "__deepcopy__", [](const sk::Match& m, const py::dict&) { return sk::Match(m); }, py::arg("memo"))
      .def(py::pickle([](const sk::Match& m) { return m.to_json(); },
                      [](const std::string& record) { return sk::Match::from_json(record); }))
      .def("to_json", &sk::Match::to_json, "The whole match as a JSON record (Match.from_json replays it).")
      .def_static(
          "from_json", [](const py::handle& text) { return sk::Match::from_json(text_arg(text, "record")); },
          py::arg("record"))
      .def("next_deal", &sk::Match::next_deal,
           "Credits the finished deal to its players and deals the next (unless the match is over).")
      .def("is_over", &sk::Match::is_over)
      .def_property_readonly("num_deals", &sk::Match::num_deals)
      .def_property_readonly("deals_played", &sk::Match::deals_played)
      .def(
          "totals",
          [](const sk::Match& m) { return std::vector<int64_t>(m.totals().begin(), m.totals().end()); },
          "Cumulative points by player.")
      .def(
          "player_in_seat",
          [](const sk::Match& m, const py::handle& s) { return m.player_in_seat(seat_arg(s, "seat")); },
          py::arg("seat"))
      .def(
          "seat_of", [](const sk::Match& m, const py::handle& p) { return m.seat_of(seat_arg(p, "player")); },
          py::arg("player"))
      .def(
          "seating",
          [](const sk::Match& m) {
            std::vector<int> out;
            for (int s = 0; s < sk::kNumSeats; ++s) out.push_back(m.player_in_seat(s));
            return out;
          },
          "The player in each seat of the current deal.")
      .def(
          "titles",
          [](const sk::Match& m) {
            py::list out;
            for (int p = 0; p < sk::kNumSeats; ++p) {
              const auto t = sk::level_title(m.totals()[p]);
              out.append(py::make_tuple(t.level, std::string(t.title)));
            }
            return out;
          },
          "(level, title) of each player's total (docs/rules.md §15).")
      .def(
          "results",
          [](const sk::Match& m) {
            py::list out;
            for (const auto& r : m.results()) {
              py::dict d;
              d["seating"] = std::vector<int>(r.player_in_seat.begin(), r.player_in_seat.end());
              d["finish_order"] = std::vector<int>(r.places.begin(), r.places.end());
              d["outcome"] = std::string(sk::outcome_name(r.outcome));
              d["points"] = std::vector<int64_t>(r.points_by_player.begin(), r.points_by_player.end());
              out.append(d);
            }
            return out;
          },
          "One dict per finished deal: seating, finish_order (seats), outcome, points (by player).");

  m.def(
      "level_title",
      [](int64_t total) {
        const auto t = sk::level_title(total);
        return py::make_tuple(t.level, std::string(t.title));
      },
      py::arg("total_points"), "(level number, title) for accumulated points (docs/rules.md §15).");
}

}  // namespace shuangkou_py
