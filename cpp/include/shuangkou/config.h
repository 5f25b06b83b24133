// Variant config files (YAML): loading, writing, and picking a variant by
// preset name or file path.
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
#pragma once

#include <string>
#include <string_view>

#include "shuangkou/variant.h"

namespace shuangkou {

// Reads a variant from the text of a config file. `source` names the text in
// error messages (normally the file path).
//
// Throws std::invalid_argument when the text is not valid YAML, is not a
// single mapping, or has an unknown or repeated key, a missing parameter, a
// value that is not a scalar, or a value `set_param` rejects. The message
// starts with `source` (and the line, where known), names the key and the
// allowed values, and lists every problem found, each on its own line.
Variant variant_from_yaml(std::string_view text, std::string_view source);

// Reads the config file at `path` (see `variant_from_yaml`). Throws
// std::invalid_argument naming the path if it cannot be read.
Variant load_variant_file(const std::string& path);

// A preset name ("classic", "baibian", "qianbian", "qianbian_collect", "jj")
// gives `preset(name)`; a string that ends in ".yaml" or ".yml" or contains a
// '/' is a config file path, loaded with `load_variant_file`. Anything else
// throws the unknown-preset std::invalid_argument.
Variant resolve_variant(const std::string& preset_or_path);

// A complete config file for `v`: every parameter, in `params()` order, each
// with a comment on its meaning and allowed values. `variant_from_yaml` reads
// it back to a Variant equal to `v`.
std::string variant_to_yaml(const Variant& v);

}  // namespace shuangkou
