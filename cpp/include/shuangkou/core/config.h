// Variant config files: validating their entries, writing them, and picking a
// variant by preset name or file path.
//
// A config file is a YAML mapping that names EVERY parameter of
// `param_names()` exactly once, by its canonical name (`wild_jokers`, not the
// alias `wild`), with a scalar value that `set_param` accepts:
//
//   wild_jokers: BJ
//   max_bomb: 8
//   chain_bomb: true
//   ...
//
// configs/variants/ holds one such file per preset; copy one to make a new
// variant. Requiring every parameter keeps a file self-contained: what it
// says is the whole rule set, whatever the defaults of `Variant` become.
//
// The core reads no YAML text itself: the YAML syntax is PyYAML's, on the
// Python side (shuangkou.config.load_rules), which hands over the file's
// entries as (name, scalar text, line, shape) to variant_from_entries (bound
// as shuangkou._core.variant_from_entries). Everything about their meaning is
// checked here, so a C++ caller that gathers entries some other way gets the
// same checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "shuangkou/core/variant.h"

namespace shuangkou {

// One `key: value` entry of a config file. `line` is 1-based (0: unknown).
// `shape` is empty for a scalar value (its text in `value`); otherwise it says
// what stands there instead ("a list", "a mapping", "empty"), which is an
// error reported with the parameter's allowed values.
struct ConfigEntry {
  std::string name;
  std::string value;
  int line = 0;
  std::string shape;
};

// Builds the variant a config file describes from its entries, in file order.
// `source` names the file in error messages.
//
// Throws std::invalid_argument when a key is unknown or repeated, a parameter
// is missing, or a value is one `set_param` rejects. The message starts with
// `source` (and the line, where known), names the key and the allowed values,
// and lists every problem found, each on its own line.
Variant variant_from_entries(const std::vector<ConfigEntry>& entries, std::string_view source);

// True when `preset_or_path` names a config file rather than a preset: it
// ends in ".yaml" or ".yml" or contains a '/'.
bool is_variant_path(std::string_view preset_or_path);

// A complete config file for `v`: every parameter, in `params()` order, each
// with a comment on its meaning and allowed values. Read back (by any YAML
// reader) it gives a Variant equal to `v`.
std::string variant_to_yaml(const Variant& v);
// The config file of a preset, as configs/variants/ holds it: its
// description, then variant_to_yaml (scripts/gen_docs.py writes the files).
std::string preset_yaml(std::string_view name);

}  // namespace shuangkou
