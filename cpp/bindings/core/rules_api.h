// The Python `Rules`: a resolved rule set (shuangkou::Rules) with the rule
// queries of the Python API. Every binding that takes a variant accepts one
// of these (see make_rules).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/rules.h"

namespace shuangkou_py {

class PyRules {
 public:
  explicit PyRules(sk::Rules rules) : rules_(std::move(rules)) {}
  // Copies share the rule set; the move buffer is each object's own.
  PyRules(const PyRules& o) : rules_(o.rules_) {}
  PyRules(PyRules&& o) noexcept : rules_(o.rules_) {}
  PyRules& operator=(const PyRules&) = delete;
  PyRules(const py::handle& variant, const py::kwargs& overrides) : rules_(make_rules(variant, overrides)) {}

  const sk::Rules& rules() const { return rules_; }
  const sk::Variant& variant() const { return rules_.variant(); }
  const std::string& name() const { return rules_.name(); }

  std::optional<sk::Play> read(const py::handle& cards) const {
    return sk::read_best(rules_.variant(), to_counts(cards, "cards"));
  }

  std::vector<sk::Play> readings(const py::handle& cards) const {
    const sk::Readings all = sk::read_all(rules_.variant(), to_counts(cards, "cards"));
    std::vector<sk::Play> out;
    for (int k = 0; k < sk::kNumKinds; ++k)
      if (all.has(static_cast<sk::Kind>(k))) out.push_back(all.by_kind[k]);
    return out;
  }

  // A play on the table: a Play keeps its kind, a card string takes its
  // strongest reading. Not a valid play -> ValueError.
  sk::Play table_play(const py::handle& obj, const char* what) const {
    std::optional<sk::Play> p;
    if (py::isinstance<sk::Play>(obj)) {
      const auto& given = obj.cast<const sk::Play&>();
      p = sk::read_as(rules_.variant(), given.cards, given.kind);
    } else {
      p = sk::read_best(rules_.variant(), to_counts(obj, what));
    }
    if (!p)
      throw py::value_error(std::string(what) + " is not a valid play under these rules: '" + describe(obj) +
                            "'");
    return *p;
  }

  bool beats(const py::handle& a, const py::handle& b) const {
    const sk::Play on_table = table_play(b, "b");
    if (py::isinstance<sk::Play>(a)) {
      const auto& given = a.cast<const sk::Play&>();
      const auto p = sk::read_as(rules_.variant(), given.cards, given.kind);
      return p && sk::beats(*p, on_table);
    }
    // The mover names the type: any reading of `a` that beats `b` will do.
    const sk::Readings all = sk::read_all(rules_.variant(), to_counts(a, "a"));
    for (int k = 0; k < sk::kNumKinds; ++k)
      if (all.has(static_cast<sk::Kind>(k)) && sk::beats(all.by_kind[k], on_table)) return true;
    return false;
  }

  std::vector<sk::Play> legal_moves(const py::handle& hand, const py::handle& previous) const {
    const sk::CardCounts h = to_counts(hand, "hand");
    if (h.size() > sk::kHandSize)
      throw py::value_error("hand: a hand holds at most " + std::to_string(sk::kHandSize) + " cards, got " +
                            std::to_string(h.size()));
    std::optional<sk::Play> prev;
    if (!previous.is_none()) prev = table_play(previous, "previous");
    moves_.clear();
    if (prev)
      sk::generate_follows(rules_.variant(), h, *prev, moves_);
    else
      sk::generate_leads(rules_.variant(), h, moves_);
    return std::vector<sk::Play>(moves_.begin(), moves_.end());
  }

  py::dict params() const {
    py::dict d;
    for (const auto& [k, v] : sk::params(rules_.variant())) d[py::str(k)] = v;
    return d;
  }

  // docs/rules.md §8–12: a finished deal's score from its places and the
  // bombs played, (seat, cards) in order.
  sk::DealScore score_deal(const py::handle& finish_order, const py::handle& bombs) const {
    if (!py::isinstance<py::sequence>(finish_order) || py::isinstance<py::str>(finish_order))
      throw py::value_error("finish_order must list the four seats by place, e.g. [0, 2, 1, 3]");
    const auto order = finish_order.cast<py::sequence>();
    if (order.size() != sk::kNumSeats)
      throw py::value_error("finish_order must list all four seats by place, got " +
                            std::to_string(order.size()));
    sk::Places places{};
    int seen = 0;
    for (size_t i = 0; i < sk::kNumSeats; ++i) {
      const int s = seat_arg(order[i], "finish_order entry");
      if (seen >> s & 1)
        throw py::value_error("finish_order must be a permutation of 0..3: seat " + std::to_string(s) +
                              " twice");
      seen |= 1 << s;
      places[i] = static_cast<int8_t>(s);
    }
    sk::BombTally tally;
    if (!py::isinstance<py::sequence>(bombs) || py::isinstance<py::str>(bombs))
      throw py::value_error("bombs must be a list of (seat, cards) pairs");
    size_t i = 0;
    std::array<int, sk::kNumRanks> copies{};   // cards of every bomb, by rank
    std::array<int, sk::kNumSeats> by_seat{};  // cards of each seat's bombs
    for (const auto& item : bombs.cast<py::sequence>()) {
      const std::string where = "bomb " + std::to_string(i++);
      if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) || py::len(item) != 2)
        throw py::value_error(where + " must be a (seat, cards) pair");
      const auto pair = item.cast<py::sequence>();
      const int seat = seat_arg(pair[0], (where + " seat").c_str());
      const sk::CardCounts cards = to_counts(pair[1], (where + " cards").c_str());
      const auto play = sk::read_best(rules_.variant(), cards);
      if (!play || !sk::is_bomb(play->kind))
        throw py::value_error(where + ": '" + cards.to_string() + "' is not a bomb under these rules");
      // The bombs of one deal come out of two decks and one 27-card hand each.
      if ((by_seat[seat] += cards.size()) > sk::kHandSize)
        throw py::value_error(where + ": the bombs of seat " + std::to_string(seat) + " hold " +
                              std::to_string(by_seat[seat]) + " cards, more than a hand (" +
                              std::to_string(sk::kHandSize) + ")");
      for (int r = 0; r < sk::kNumRanks; ++r) {
        const int limit = sk::copies_in_two_decks(r);
        if ((copies[r] += cards.count(r)) > limit)
          throw py::value_error(where + ": the bombs hold " + std::to_string(copies[r]) + " copies of '" +
                                std::string(sk::rank_token(r)) + "', more than two decks (" +
                                std::to_string(limit) + ")");
      }
      try {
        tally.add(seat, play->stars);
      } catch (const std::length_error&) {
        throw py::value_error(where + ": more bombs by seat " + std::to_string(seat) + " than a deal allows");
      }
    }
    return sk::score_deal(rules_.variant(), places, tally);
  }

 private:
  static std::string describe(const py::handle& obj) {
    if (py::isinstance<sk::Play>(obj)) return obj.cast<const sk::Play&>().cards.to_string();
    return py::str(obj);
  }

  sk::Rules rules_;
  mutable sk::MoveList moves_;
};

}  // namespace shuangkou_py
