// Play, Rules and the card helpers.
#include "common.h"
#include "shuangkou/movegen.h"

namespace shuangkou_py {
namespace {

class Rules {
 public:
  Rules(const py::handle& preset_or_path, const py::kwargs& overrides) {
    variant_ = make_variant(preset_or_path, overrides, &name_);
  }

  const sk::Variant& variant() const { return variant_; }
  const std::string& name() const { return name_; }

  std::optional<sk::Play> read(const py::handle& cards) const {
    return sk::read_best(variant_, to_counts(cards, "cards"));
  }

  std::vector<sk::Play> readings(const py::handle& cards) const {
    const sk::Readings all = sk::read_all(variant_, to_counts(cards, "cards"));
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
      p = sk::read_as(variant_, given.cards, given.kind);
    } else {
      p = sk::read_best(variant_, to_counts(obj, what));
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
      const auto p = sk::read_as(variant_, given.cards, given.kind);
      return p && sk::beats(*p, on_table);
    }
    // The mover names the type: any reading of `a` that beats `b` will do.
    const sk::Readings all = sk::read_all(variant_, to_counts(a, "a"));
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
      sk::generate_follows(variant_, h, *prev, moves_);
    else
      sk::generate_leads(variant_, h, moves_);
    return std::vector<sk::Play>(moves_.begin(), moves_.end());
  }

  py::dict params() const {
    py::dict d;
    for (const auto& [k, v] : sk::params(variant_)) d[py::str(k)] = v;
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
      const auto play = sk::read_best(variant_, cards);
      if (!play || !sk::is_bomb(play->kind))
        throw py::value_error(where + ": '" + cards.to_string() + "' is not a bomb under these rules");
      // The bombs of one deal come out of two decks and one 27-card hand each.
      if ((by_seat[seat] += cards.size()) > sk::kHandSize)
        throw py::value_error(where + ": the bombs of seat " + std::to_string(seat) + " hold " +
                              std::to_string(by_seat[seat]) + " cards, more than a hand (" +
                              std::to_string(sk::kHandSize) + ")");
      for (int r = 0; r < sk::kNumRanks; ++r) {
        const int limit = r >= sk::kSmallJoker ? sk::kCopiesPerJoker : sk::kCopiesPerRank;
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
    return sk::score_deal(variant_, places, tally);
  }

 private:
  static std::string describe(const py::handle& obj) {
    if (py::isinstance<sk::Play>(obj)) return obj.cast<const sk::Play&>().cards.to_string();
    return py::str(obj);
  }

  sk::Variant variant_;
  std::string name_;
  mutable sk::MoveList moves_;
};

std::string play_repr(const sk::Play& p) {
  return "Play(kind='" + std::string(sk::kind_name(p.kind)) + "', cards='" + p.cards.to_string() +
         "', reading='" + p.reading.to_string() + "')";
}

}  // namespace

void bind_rules(py::module_& m) {
  py::class_<sk::Play>(m, "Play", "A play: a card set with one reading (kind, key, stars).")
      .def_property_readonly(
          "kind", [](const sk::Play& p) { return std::string(sk::kind_name(p.kind)); },
          "single, pair, triple, straight, pair_chain, triple_chain, bomb, "
          "chain_bomb, uneven_chain_bomb, three_kings or heavenly_kings")
      .def_property_readonly(
          "cards", [](const sk::Play& p) { return p.cards.to_string(); },
          "the cards played, low to high, jokers last")
      .def_property_readonly(
          "reading", [](const sk::Play& p) { return p.reading.to_string(); },
          "the cards after wild substitution")
      .def_property_readonly(
          "key", [](const sk::Play& p) { return std::string(sk::rank_token(p.key)); },
          "the rank compared: the highest rank of the reading")
      .def_property_readonly(
          "stars", [](const sk::Play& p) { return static_cast<int>(p.stars); },
          "0 for non-bombs; bomb stars (card count under bomb_order=count)")
      .def_property_readonly("is_bomb", [](const sk::Play& p) { return sk::is_bomb(p.kind); })
      .def("__len__", [](const sk::Play& p) { return static_cast<int>(p.size); })
      .def("__repr__", &play_repr)
      .def("__str__", [](const sk::Play& p) { return p.cards.to_string(); })
      .def("__eq__",
           [](const sk::Play& a, const py::object& b) {
             if (!py::isinstance<sk::Play>(b)) return false;
             const auto& o = b.cast<const sk::Play&>();
             return a.kind == o.kind && a.cards == o.cards && a.reading == o.reading;
           })
      .def("__hash__", [](const sk::Play& p) {
        return py::hash(py::make_tuple(static_cast<int>(p.kind), p.cards.bits(), p.reading.bits()));
      });

  py::class_<Rules>(m, "Rules",
                    "Rules of one variant: Rules(preset, **overrides). Presets: classic, baibian, "
                    "qianbian, qianbian_collect, jj; any docs/rules.md §13 parameter may be overridden "
                    "by keyword, e.g. Rules('qianbian', max_bomb=10).")
      .def(py::init<const py::handle&, const py::kwargs&>(), py::arg("variant") = "classic")
      .def_property_readonly("name", &Rules::name)
      .def_property_readonly("params", &Rules::params, "every variant parameter, as text")
      .def("read", &Rules::read, py::arg("cards"),
           "Strongest reading of the cards over all kinds, or None if they are no valid play.")
      .def("readings", &Rules::readings, py::arg("cards"),
           "The highest reading of each kind the cards can be read as.")
      .def("beats", &Rules::beats, py::arg("a"), py::arg("b"),
           "True iff a may be played on b (a: any of its readings; b: a Play or its strongest "
           "reading).")
      .def("legal_moves", &Rules::legal_moves, py::arg("hand"), py::arg("previous") = py::none(),
           "Canonical moves: all leads when previous is None, else the plays that beat previous "
           "(passing is implied).")
      .def(
          "score",
          [](const Rules& r, const py::handle& finish_order, const py::handle& bombs) {
            const auto t = r.score_deal(finish_order, bombs).total;
            return std::vector<int64_t>(t.begin(), t.end());
          },
          py::arg("finish_order"), py::arg("bombs") = py::list(),
          "Final deal scores by seat (base x multiplier + contribution). finish_order lists the "
          "four seats by place; bombs are (seat, cards) in the order played.")
      .def(
          "score_breakdown",
          [](const Rules& r, const py::handle& finish_order, const py::handle& bombs) {
            return breakdown_dict(r.score_deal(finish_order, bombs));
          },
          py::arg("finish_order"), py::arg("bombs") = py::list(),
          "As score(), as a dict: outcome, base (by seat), multiplier, contribution (by seat), total.")
      .def("__repr__", [](const Rules& r) { return "Rules('" + r.name() + "')"; });

  m.def(
      "parse_cards", [](const py::handle& cards) { return to_counts(cards, "cards").to_string(); },
      py::arg("cards"),
      "Validates a card string (\"10\" accepted for T) and returns it normalised: tokens "
      "low to high, jokers last.");
  m.def("preset_names", &sk::preset_names);
  m.def("param_names", &sk::param_names);
  m.attr("MAX_MOVES") = sk::kMaxMoves;
  m.attr("MAX_THREADS") = sk::kMaxThreads;
  m.attr("GAME_STATE_BYTES") = sizeof(sk::GameState);
  m.attr("DEAL_RESULT_BYTES") = sizeof(sk::DealResult);
}

}  // namespace shuangkou_py
