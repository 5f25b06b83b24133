// shuangkou._core: the one pybind11 module. It converts types and nothing
// else; rules logic lives in the C++ core.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "shuangkou/cards.h"
#include "shuangkou/movegen.h"
#include "shuangkou/pattern.h"
#include "shuangkou/variant.h"

namespace py = pybind11;
namespace sk = shuangkou;

namespace {

// Cards from a card string or a sequence of card tokens.
sk::CardCounts to_counts(const py::handle& obj, const char* what) {
  try {
    if (py::isinstance<py::str>(obj)) return sk::CardCounts::parse(obj.cast<std::string>());
    if (py::isinstance<py::sequence>(obj)) {
      std::string joined;
      for (const auto& item : obj.cast<py::sequence>()) {
        if (!py::isinstance<py::str>(item))
          throw std::invalid_argument("card tokens must be strings, got " +
                                      std::string(py::str(py::type::of(item))));
        const std::string token = item.cast<std::string>();
        if (sk::parse_rank(token) < 0)
          throw std::invalid_argument("unknown card '" + token +
                                      "' (each list item is one card: 3 4 5 6 7 8 9 T/10 J Q K A 2 SJ BJ)");
        joined += token + " ";
      }
      return sk::CardCounts::parse(joined);
    }
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(what) + ": " + e.what());
  }
  throw py::value_error(std::string(what) + ": expected a card string like \"5 6 7 8 BJ\", got " +
                        std::string(py::str(py::type::of(obj))));
}

// Text value of a keyword override: bools as true/false, ints as digits; a
// list of jokers for the wild set.
std::string override_text(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value)) return py::str(value);
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if ((name == "wild" || name == "wild_jokers") &&
      (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
       py::isinstance<py::set>(value))) {
    std::set<std::string> jokers;
    for (const auto& j : value) jokers.insert(py::str(j).cast<std::string>());
    if (jokers.empty()) return "none";
    if (jokers == std::set<std::string>{"BJ"}) return "BJ";
    if (jokers == std::set<std::string>{"SJ", "BJ"}) return "both";
  }
  throw py::value_error("bad value " + std::string(py::repr(value)) + " for variant parameter '" +
                        name + "' (allowed: " + sk::allowed_values(name) + ")");
}

class Rules {
 public:
  Rules(const std::string& preset_name, const py::kwargs& overrides) : name_(preset_name) {
    try {
      variant_ = sk::preset(preset_name);
      for (const auto& [key, value] : overrides) {
        const std::string k = py::str(key);
        sk::set_param(variant_, k, override_text(k, value));
        name_ += " " + k + "=" + std::string(py::str(value));
      }
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
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
      throw py::value_error(std::string(what) + " is not a valid play under these rules: '" +
                            describe(obj) + "'");
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
    std::optional<sk::Play> prev;
    if (!previous.is_none()) prev = table_play(previous, "previous");
    moves_.clear();
    if (prev) sk::generate_follows(variant_, h, *prev, moves_);
    else sk::generate_leads(variant_, h, moves_);
    return std::vector<sk::Play>(moves_.begin(), moves_.end());
  }

  py::dict params() const {
    py::dict d;
    for (const auto& [k, v] : sk::params(variant_)) d[py::str(k)] = v;
    return d;
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

PYBIND11_MODULE(_core, m) {
  m.doc() = "Shuangkou (双扣) rules core: card parsing, pattern reading, comparison, move generation";

  py::class_<sk::Play>(m, "Play", "A play: a card set with one reading (kind, key, stars).")
      .def_property_readonly("kind", [](const sk::Play& p) { return std::string(sk::kind_name(p.kind)); },
                             "single, pair, triple, straight, pair_chain, triple_chain, bomb, "
                             "chain_bomb, uneven_chain_bomb, three_kings or heavenly_kings")
      .def_property_readonly("cards", [](const sk::Play& p) { return p.cards.to_string(); },
                             "the cards played, low to high, jokers last")
      .def_property_readonly("reading", [](const sk::Play& p) { return p.reading.to_string(); },
                             "the cards after wild substitution")
      .def_property_readonly("key", [](const sk::Play& p) { return std::string(sk::rank_token(p.key)); },
                             "the rank compared: the highest rank of the reading")
      .def_property_readonly("stars", [](const sk::Play& p) { return static_cast<int>(p.stars); },
                             "0 for non-bombs; bomb stars (card count under bomb_order=count)")
      .def_property_readonly("is_bomb", [](const sk::Play& p) { return sk::is_bomb(p.kind); })
      .def("__len__", [](const sk::Play& p) { return static_cast<int>(p.size); })
      .def("__repr__", &play_repr)
      .def("__str__", [](const sk::Play& p) { return p.cards.to_string(); })
      .def("__eq__", [](const sk::Play& a, const py::object& b) {
        if (!py::isinstance<sk::Play>(b)) return false;
        const auto& o = b.cast<const sk::Play&>();
        return a.kind == o.kind && a.cards == o.cards && a.reading == o.reading;
      })
      .def("__hash__", [](const sk::Play& p) {
        return py::hash(py::make_tuple(static_cast<int>(p.kind), p.cards.bits(), p.reading.bits()));
      });

  py::class_<Rules>(m, "Rules",
                    "Rules of one variant: Rules(preset, **overrides). Presets: classic, baibian, "
                    "qianbian, qianbian_collect, jj; any RULES section 9 parameter may be overridden "
                    "by keyword, e.g. Rules('qianbian', max_bomb=10).")
      .def(py::init<const std::string&, const py::kwargs&>(), py::arg("preset") = "classic")
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
      .def("__repr__", [](const Rules& r) { return "Rules('" + r.name() + "')"; });

  m.def("parse_cards",
        [](const py::handle& cards) { return to_counts(cards, "cards").to_string(); },
        py::arg("cards"),
        "Validates a card string (\"10\" accepted for T) and returns it normalised: tokens "
        "low to high, jokers last.");
  m.def("preset_names", &sk::preset_names);
  m.def("param_names", &sk::param_names);
  m.attr("MAX_MOVES") = sk::kMaxMoves;
}
