#include "rules_arg.h"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/rules_api.h"
#include "shuangkou/core/config.h"

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
  throw py::value_error("bad value " + shown(value) + " for variant parameter '" + name +
                        "' (allowed: " + sk::allowed_values(name) + ")");
}

// The reader of variant config files the package registered (leaked on
// purpose: a py::object must not be destroyed after the interpreter ends).
py::object& rules_loader() {
  static auto* loader = new py::object();
  return *loader;
}

// The rule set of the variant config file at `path`. The one place a binding
// calls back into Python: the core reads no YAML, so a bound constructor given
// a path (Rules, Game, Match, VectorEnv, selfplay, the envs) hands it to the
// registered loader (shuangkou.config.load_rules), which reads the file
// (PyYAML) and builds the rules from its entries (the bound
// variant_from_entries). Python code that holds a path calls load_rules
// itself, with no round trip.
sk::Rules rules_from_file(const std::string& path) {
  const py::object& loader = rules_loader();
  if (!loader || loader.is_none())
    throw py::value_error("variant file '" + path +
                          "': no rules loader is registered (import shuangkou: it registers "
                          "shuangkou.config.load_rules)");
  const py::object rules = loader(path);
  if (!py::isinstance<PyRules>(rules))
    throw std::runtime_error("the rules loader returned " + shown(rules) + ", not a Rules");
  return rules.cast<const PyRules&>().rules();
}

// A preset by name; the error also says how a file path is told apart.
sk::Variant preset_arg(const std::string& name) {
  try {
    return sk::preset(name);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(e.what()) +
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

}  // namespace

void set_rules_loader(const py::object& loader) { rules_loader() = loader; }

sk::Rules make_rules(const py::handle& variant, const py::kwargs& overrides) {
  if (py::isinstance<PyRules>(variant)) {
    const sk::Rules& given = variant.cast<const PyRules&>().rules();
    if (overrides.empty()) return given;  // the same body: its catalogue is shared, not rebuilt
    return with_overrides(given.name(), given.variant(), overrides);
  }
  const std::string preset_or_path = variant_text(variant);
  if (sk::is_variant_path(preset_or_path)) {
    sk::Rules from_file = rules_from_file(preset_or_path);  // (named by the path)
    if (overrides.empty()) return from_file;
    return with_overrides(from_file.name(), from_file.variant(), overrides);
  }
  return with_overrides(preset_or_path, preset_arg(preset_or_path), overrides);
}

sk::Variant make_variant(const py::handle& variant, const py::kwargs& overrides, std::string* label) {
  sk::Rules r = make_rules(variant, overrides);
  if (label) *label = r.name();
  return r.variant();
}

}  // namespace shuangkou_py
