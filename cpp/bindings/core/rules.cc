// Play, Rules (from a preset, a config file's entries or a path), the card
// helpers and the parameter and preset tables.
#include "core/rules_api.h"
#include "shuangkou/core/config.h"
#include "shuangkou/core/score_bounds.h"
#include "shuangkou/core/scoring.h"

namespace shuangkou_py {
namespace {

std::string play_repr(const sk::Play& p) {
  return "Play(kind='" + std::string(sk::kind_name(p.kind)) + "', cards='" + p.cards.to_string() +
         "', reading='" + p.reading.to_string() + "')";
}

// The entries of a config file, as shuangkou.config.read_entries gives them:
// (name, value text, 1-based line[, shape]) each; ValueError naming the entry
// otherwise.
std::vector<sk::ConfigEntry> config_entries(const py::handle& entries) {
  if (!(py::isinstance<py::list>(entries) || py::isinstance<py::tuple>(entries)))
    throw py::value_error("entries must be a list of (name, value, line, shape) tuples, got " +
                          shown(entries));
  std::vector<sk::ConfigEntry> out;
  for (const auto& item : entries) {
    const std::string what = "entries[" + std::to_string(out.size()) + "]";
    const bool shaped = (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) &&
                        (py::len(item) == 3 || py::len(item) == 4);
    if (!shaped)
      throw py::value_error(what + " must be a (name, value, line[, shape]) tuple, got " + shown(item));
    const auto t = py::reinterpret_borrow<py::sequence>(item);
    sk::ConfigEntry e;
    e.name = text_arg(t[0], (what + " name").c_str());
    e.value = text_arg(t[1], (what + " value").c_str());
    e.line = static_cast<int>(int_arg(t[2], (what + " line").c_str(), 0, INT32_MAX));
    if (py::len(t) == 4) e.shape = text_arg(t[3], (what + " shape").c_str());
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

// The Rules docstring, its presets and parameters from their tables.
const std::string& rules_doc() {
  static const std::string doc = [] {
    return "A resolved rule set: Rules(variant, **overrides). variant: a preset (" +
           join_names(sk::preset_names()) +
           "), the path of a YAML config file, or a Rules; overrides: any parameter (" +
           join_names(sk::param_names()) +
           "; docs/rules.md §13) by keyword, e.g. Rules('qianbian', max_bomb=10).";
  }();
  return doc;
}

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

  py::class_<PyRules>(m, "Rules", rules_doc().c_str())
      .def(py::init<const py::handle&, const py::kwargs&>(), py::arg("variant") = "classic")
      .def_property_readonly("name", &PyRules::name)
      .def_property_readonly("params", &PyRules::params, "every variant parameter, as text")
      .def("read", &PyRules::read, py::arg("cards"),
           "Strongest reading of the cards over all kinds, or None if they are no valid play.")
      .def("readings", &PyRules::readings, py::arg("cards"),
           "The highest reading of each kind the cards can be read as.")
      .def("beats", &PyRules::beats, py::arg("a"), py::arg("b"),
           "True iff a may be played on b (a: any of its readings; b: a Play or its strongest "
           "reading).")
      .def("legal_moves", &PyRules::legal_moves, py::arg("hand"), py::arg("previous") = py::none(),
           "Canonical moves: all leads when previous is None, else the plays that beat previous "
           "(passing is implied).")
      .def(
          "score",
          [](const PyRules& r, const py::handle& finish_order, const py::handle& bombs) {
            const auto t = r.score_deal(finish_order, bombs).total;
            return std::vector<int64_t>(t.begin(), t.end());
          },
          py::arg("finish_order"), py::arg("bombs") = py::list(),
          "Final deal scores by seat (base x multiplier + contribution). finish_order lists the "
          "four seats by place; bombs are (seat, cards) in the order played.")
      .def(
          "score_breakdown",
          [](const PyRules& r, const py::handle& finish_order, const py::handle& bombs) {
            return breakdown_dict(r.score_deal(finish_order, bombs));
          },
          py::arg("finish_order"), py::arg("bombs") = py::list(),
          "As score(), as a dict: outcome, base (by seat), multiplier, contribution (by seat), total.")
      .def_property_readonly(
          "score_bounds",
          [](const PyRules& r) {
            const sk::ScoreBounds b = sk::score_bounds(r.rules());
            return py::make_tuple(b.lowest, b.highest);
          },
          "(lowest, highest): no seat scores outside them in a deal under these rules (a bound from the "
          "largest base, the largest multiplier the bombs allow and the most paying bombs 108 cards hold; "
          "whole numbers, floats since a product of factors can pass 2**63).")
      .def_property_readonly(
          "catalogue", [](const PyRules& r) -> const sk::ActionCatalogue& { return r.rules().catalogue(); },
          py::return_value_policy::reference_internal,
          "The action catalogue of this rule set (built once, shared by every env made from it).")
      .def_property_readonly(
          "num_actions", [](const PyRules& r) { return r.rules().catalogue().size(); },
          "Size of the action catalogue (id 0 is the pass).")
      .def(
          "__eq__",
          [](const PyRules& a, const py::object& b) {
            return py::isinstance<PyRules>(b) && a.rules() == b.cast<const PyRules&>().rules();
          },
          py::arg("other"), "Same rule set (every parameter equal; the names may differ).")
      .def("__hash__",
           [](const PyRules& r) {
             py::list items;
             for (const auto& [k, v] : sk::params(r.variant())) items.append(py::make_tuple(k, v));
             return py::hash(py::tuple(items));
           })
      .def(py::pickle(
          [](const PyRules& r) {
            py::dict params;
            for (const auto& [k, v] : sk::params(r.variant())) params[py::str(k)] = v;
            return py::make_tuple(r.name(), params);
          },
          [](const py::tuple& t) {
            if (t.size() != 2) throw py::value_error("bad Rules pickle state");
            sk::Variant v;
            for (const auto& [k, value] : t[1].cast<py::dict>())
              sk::set_param(v, py::str(k).cast<std::string>(), py::str(value).cast<std::string>());
            return PyRules(sk::Rules(t[0].cast<std::string>(), v));
          }))
      .def("__repr__", [](const PyRules& r) { return "Rules('" + r.name() + "')"; });

  m.def(
      "parse_cards", [](const py::handle& cards) { return to_counts(cards, "cards").to_string(); },
      py::arg("cards"),
      "Validates a card string (\"10\" accepted for T) and returns it normalised: tokens "
      "low to high, jokers last.");
  m.def(
      "param_table",
      [] {
        py::list out;
        for (const auto& name : sk::param_names()) {
          py::dict row;
          row["name"] = name;
          row["allowed"] = sk::allowed_values(name);
          row["description"] = std::string(sk::param_description(name));
          py::dict presets;
          for (const auto& pr : sk::preset_names())
            for (const auto& [k, v] : sk::params(sk::preset(pr)))
              if (k == name) presets[py::str(pr)] = v;
          row["presets"] = presets;
          out.append(row);
        }
        return out;
      },
      "The parameter table: every parameter's name, allowed values, description and value in each preset.");
  m.def(
      "preset_description",
      [](const py::handle& name) { return std::string(sk::preset_description(text_arg(name, "name"))); },
      py::arg("name"));
  m.def("preset_yaml", &sk::preset_yaml, py::arg("name"),
        "The config file of a preset (configs/variants/NAME.yaml).");
  m.def(
      "variant_from_entries",
      [](const py::handle& entries, const py::handle& source) {
        const py::object text = py::hasattr(source, "__fspath__")
                                    ? py::module_::import("os").attr("fspath")(source)
                                    : py::reinterpret_borrow<py::object>(source);
        const std::string name = text_arg(text, "source");
        const std::vector<sk::ConfigEntry> checked = config_entries(entries);
        try {
          return PyRules(sk::Rules(name, sk::variant_from_entries(checked, name)));
        } catch (const std::invalid_argument& e) {
          throw py::value_error(e.what());
        }
      },
      py::arg("entries"), py::arg("source"),
      "The rule set a variant config file describes, from its entries (name, value text, 1-based "
      "line[, shape]) in file order, as shuangkou.config.read_entries gives them; named `source`. "
      "ValueError starting with source:line for an unknown, repeated or missing parameter or a bad "
      "value, every problem on its own line. shuangkou.config.load_rules reads a file into it.");
  m.def(
      "set_rules_loader",
      [](const py::object& loader) {
        if (!loader.is_none() && !PyCallable_Check(loader.ptr()))
          throw py::value_error("set_rules_loader: expected a callable loader(path) -> Rules or None, got " +
                                shown(loader));
        set_rules_loader(loader);
      },
      py::arg("loader"),
      "Registers the reader of variant config files that constructors given a path call: "
      "loader(path) -> Rules (the package registers shuangkou.config.load_rules at import); None "
      "unregisters it.");
  m.def(
      "variant_to_yaml", [](const PyRules& r) { return sk::variant_to_yaml(r.variant()); }, py::arg("rules"),
      "A complete config file for a rule set.");
  m.def("preset_names", &sk::preset_names);
  m.def("param_names", &sk::param_names);
  {
    py::tuple ranks(sk::kNumRanks);  // the core's order: "3" lowest, "BJ" highest
    for (int r = 0; r < sk::kNumRanks; ++r) ranks[static_cast<size_t>(r)] = std::string(sk::rank_token(r));
    m.attr("RANKS") = ranks;
  }
  m.attr("MAX_MOVES") = sk::kMaxMoves;
  // The outcome of a deal by its code (results' "outcome" arrays): 0 双扣, 1 单扣, 2 平扣.
  m.attr("OUTCOMES") = py::make_tuple(std::string(sk::outcome_name(sk::Outcome::kDouble)),
                                      std::string(sk::outcome_name(sk::Outcome::kSingle)),
                                      std::string(sk::outcome_name(sk::Outcome::kDraw)));
  m.attr("GAME_STATE_BYTES") = sizeof(sk::GameState);
}

}  // namespace shuangkou_py
