// The rule set of a variant argument: a preset name, a config file path (read
// by the loader the package registers) or a Rules, with keyword overrides.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "shuangkou/core/rules.h"
#include "shuangkou/core/variant.h"

namespace py = pybind11;
namespace shuangkou {}
namespace sk = shuangkou;

namespace shuangkou_py {

// A variant from a preset name or a YAML file path, with keyword overrides.
// `label` (optional) describes it ("qianbian max_bomb=10").
sk::Variant make_variant(const py::handle& variant, const py::kwargs& overrides, std::string* label);
// The rule set of a variant argument (a preset name, a YAML path or a Rules)
// with keyword overrides, resolved once; a Rules without overrides is
// returned as it is, sharing its action catalogue. A path is read by the
// rules loader the package registers (set_rules_loader): the core reads no YAML.
sk::Rules make_rules(const py::handle& variant, const py::kwargs& overrides);
// Registers `loader(path) -> Rules`, the reader of variant config files
// (shuangkou registers shuangkou.config.load_rules at import, as it registers
// the built-in models); None unregisters it.
void set_rules_loader(const py::object& loader);

}  // namespace shuangkou_py
