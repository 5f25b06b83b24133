#include "common.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "rules_api.h"
#include "shuangkou/config.h"

namespace shuangkou_py {
namespace {

// Text value of a keyword override: bools as true/false, integers (numpy's
// too) as digits; a list of jokers for the wild set.
std::string override_text(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (const auto i = as_integer(value)) return py::str(*i);
  if (py::isinstance<py::str>(value)) return text_arg(value, ("variant parameter '" + name + "'").c_str());
  if ((name == "wild" || name == "wild_jokers") &&
      (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
       py::isinstance<py::set>(value))) {
    std::set<std::string> jokers;
    for (const auto& j : value) jokers.insert(py::str(j).cast<std::string>());
    if (jokers.empty()) return "none";
    if (jokers == std::set<std::string>{"BJ"}) return "BJ";
    if (jokers == std::set<std::string>{"SJ", "BJ"}) return "both";
  }
  throw py::value_error("bad value " + std::string(py::repr(value)) + " for variant parameter '" + name +
                        "' (allowed: " + sk::allowed_values(name) + ")");
}

}  // namespace

std::optional<py::int_> as_integer(const py::handle& obj) {
  if (py::isinstance<py::bool_>(obj) || PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr()))
    return std::nullopt;
  if (py::isinstance<py::int_>(obj)) return py::reinterpret_borrow<py::int_>(obj);
  PyObject* i = PyNumber_Index(obj.ptr());
  if (!i) {
    PyErr_Clear();
    return std::nullopt;
  }
  return py::reinterpret_steal<py::int_>(i);
}

std::string text_arg(const py::handle& obj, const char* what) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    // repr() escapes the surrogate, so the message itself is valid text.
    throw py::value_error(std::string(what) + ": not valid text (it holds a lone surrogate), got " +
                          std::string(py::repr(obj)));
  }
  return std::string(data, static_cast<size_t>(size));
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string variant_text(const py::handle& variant) {
  if (py::isinstance<py::str>(variant)) return text_arg(variant, "variant");
  // A path object (pathlib.Path) names a config file.
  if (py::hasattr(variant, "__fspath__"))
    return text_arg(py::module_::import("os").attr("fspath")(variant), "variant");
  throw py::value_error("variant must be a preset name (" + join_names(sk::preset_names()) +
                        "), the path of a YAML file or a Rules, got " + std::string(py::repr(variant)));
}

// Cards from a card string or a sequence of card tokens.
sk::CardCounts to_counts(const py::handle& obj, const char* what) {
  try {
    if (py::isinstance<py::str>(obj)) return sk::CardCounts::parse(text_arg(obj, what));
    if (py::isinstance<py::sequence>(obj)) {
      std::string joined;
      for (const auto& item : obj.cast<py::sequence>()) {
        if (!py::isinstance<py::str>(item))
          throw std::invalid_argument("card tokens must be strings, got " +
                                      std::string(py::str(py::type::of(item))));
        const std::string token = text_arg(item, what);
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

// A preset, or the config file at a path: its YAML is read by
// shuangkou.config (PyYAML), its entries checked by the core.
sk::Variant resolve(const std::string& preset_or_path) {
  if (sk::is_variant_path(preset_or_path)) {
    const py::object entries = py::module_::import("shuangkou.config").attr("read_entries")(preset_or_path);
    std::vector<sk::ConfigEntry> out;
    for (const auto& e : entries) {
      const auto t = e.cast<py::tuple>();
      out.push_back({text_arg(t[0], "config key"), text_arg(t[1], "config value"), t[2].cast<int>(),
                     text_arg(t[3], "shape")});
    }
    return sk::variant_from_entries(out, preset_or_path);
  }
  try {
    return sk::preset(preset_or_path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) +
                                "; a variant file path must end in .yaml or .yml or contain a '/'");
  }
}

// The rule set `name` + keyword overrides; the label gains " key=value" each.
sk::Rules with_overrides(std::string label, sk::Variant v, const py::kwargs& overrides) {
  try {
    if (overrides.contains("wild") && overrides.contains("wild_jokers"))
      throw std::invalid_argument(
          "give one of wild= and wild_jokers= (two names of one parameter), not both");
    const auto& names = sk::param_names();
    for (const auto& [key, value] : overrides) {
      const std::string k = py::str(key);
      if (k != "wild" && std::find(names.begin(), names.end(), k) == names.end()) {
        const py::object error = py::module_::import("shuangkou.errors").attr("UnknownArgumentError");
        // Python's own wording first: tools that probe signatures look for it.
        const std::string msg =
            "got an unexpected keyword argument '" + k +
            "' (unknown: neither an argument of this call nor a variant parameter; variant "
            "parameters: " +
            join_names(names) + ")";
        PyErr_SetString(error.ptr(), msg.c_str());
        throw py::error_already_set();
      }
      sk::set_param(v, k, override_text(k, value));
      label += " " + k + "=" + std::string(py::str(value));
    }
    return sk::Rules(std::move(label), v);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

sk::Rules make_rules(const py::handle& variant, const py::kwargs& overrides) {
  if (py::isinstance<PyRules>(variant)) {
    const sk::Rules& given = variant.cast<const PyRules&>().rules();
    if (overrides.empty()) return given;  // the same body: its catalogue is shared, not rebuilt
    return with_overrides(given.name(), given.variant(), overrides);
  }
  const std::string preset_or_path = variant_text(variant);
  sk::Variant v;
  try {
    v = resolve(preset_or_path);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
  return with_overrides(preset_or_path, v, overrides);
}

sk::Variant make_variant(const py::handle& variant, const py::kwargs& overrides, std::string* label) {
  sk::Rules r = make_rules(variant, overrides);
  if (label) *label = r.name();
  return r.variant();
}

int seat_arg(const py::handle& obj, const char* what) {
  const auto i = as_integer(obj);
  const std::string bad = std::string(what) + " must be a seat 0..3, got " + std::string(py::repr(obj));
  if (!i) throw py::value_error(bad);
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(i->ptr(), &overflow);
  if (overflow != 0 || s < 0 || s >= sk::kNumSeats) throw py::value_error(bad);
  return static_cast<int>(s);
}

uint64_t seed_arg(const py::handle& seed) {
  const auto i = as_integer(seed);
  std::string shown = py::repr(seed);
  if (shown.size() > 60)
    shown = shown.substr(0, 40) + "... (" + std::to_string(shown.size()) + " characters)";
  const std::string bad = "seed must be an integer 0 <= seed < 2**64, got " + shown;
  if (!i) throw py::value_error(bad);
  const unsigned long long v = PyLong_AsUnsignedLongLong(i->ptr());
  if (PyErr_Occurred()) {  // negative or too large
    PyErr_Clear();
    throw py::value_error(bad);
  }
  return v;
}

py::object play_or_none(const sk::Play& p) {
  if (sk::is_pass(p)) return py::none();
  return py::cast(p);
}

py::dict breakdown_dict(const sk::DealScore& d) {
  py::dict out;
  out["outcome"] = std::string(sk::outcome_name(d.outcome));
  out["base"] = std::vector<int64_t>(d.base.begin(), d.base.end());
  out["multiplier"] = d.multiplier;
  out["contribution"] = std::vector<int64_t>(d.contribution.begin(), d.contribution.end());
  out["total"] = std::vector<int64_t>(d.total.begin(), d.total.end());
  return out;
}

// Per-deal results as numpy arrays (see shuangkou.selfplay.SelfPlayResult).
py::dict results_to_arrays(const std::vector<sk::DealResult>& results) {
  const size_t n = results.size();
  std::vector<int64_t> scores(n * 4);
  std::vector<int8_t> places(n * 4), leader(n);
  std::vector<uint8_t> outcome(n), bombs(n * 4), max_stars(n * 4), overtakes(n * 4);
  std::vector<uint16_t> actions(n), plays(n);
  std::vector<int64_t> bombs_by_stars(24, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = results[i];
    for (int s = 0; s < 4; ++s) {
      scores[i * 4 + s] = r.scores[s];
      places[i * 4 + s] = r.places[s];
      bombs[i * 4 + s] = r.bombs[s];
      max_stars[i * 4 + s] = r.max_stars[s];
      overtakes[i * 4 + s] = r.overtakes[s];
    }
    outcome[i] = static_cast<uint8_t>(r.outcome);
    leader[i] = r.leader;
    actions[i] = r.actions;
    plays[i] = r.plays;
    for (int k = 0; k < 24; ++k) bombs_by_stars[k] += r.bombs_by_stars[k];
  }
  const auto rows = static_cast<py::ssize_t>(n);
  py::dict out;
  out["scores"] = to_numpy(std::move(scores), {rows, 4});
  out["places"] = to_numpy(std::move(places), {rows, 4});
  out["outcome"] = to_numpy(std::move(outcome), {rows});
  out["leader"] = to_numpy(std::move(leader), {rows});
  out["bombs"] = to_numpy(std::move(bombs), {rows, 4});
  out["max_stars"] = to_numpy(std::move(max_stars), {rows, 4});
  out["overtakes"] = to_numpy(std::move(overtakes), {rows, 4});
  out["actions"] = to_numpy(std::move(actions), {rows});
  out["plays"] = to_numpy(std::move(plays), {rows});
  out["bombs_by_stars"] = to_numpy(std::move(bombs_by_stars), {24});
  return out;
}

}  // namespace shuangkou_py
