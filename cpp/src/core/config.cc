#include "shuangkou/core/config.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

namespace shuangkou {
namespace {

// "source:line: " (line 1-based), or "source: " where the line is unknown.
std::string where(std::string_view source, int line) {
  std::string s(source);
  if (line > 0) s.append(":").append(std::to_string(line));
  return s.append(": ");
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : std::string(sep)) + p;
  return s;
}

// A value written without quotes where YAML reads it back as the same text.
bool plain_safe(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

std::string yaml_scalar(std::string_view s) {
  if (plain_safe(s)) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Variant variant_from_entries(const std::vector<ConfigEntry>& entries, std::string_view source) {
  const std::string src(source);
  Variant v;
  std::vector<std::string> errors;
  std::map<std::string, int> seen_at;  // canonical name -> 1-based line
  const auto& names = param_names();
  for (const ConfigEntry& e : entries) {
    const std::string at = where(src, e.line);
    if (std::find(names.begin(), names.end(), e.name) == names.end()) {
      errors.push_back(at + "unknown variant parameter '" + e.name +
                       "'; config files use the canonical names (known: " + join(names, ", ") + ")");
      continue;
    }
    if (const auto [it, fresh] = seen_at.emplace(e.name, e.line); !fresh) {
      errors.push_back(at + "variant parameter '" + e.name + "' is given twice (first at line " +
                       std::to_string(it->second) + ")");
      continue;
    }
    if (!e.shape.empty()) {
      errors.push_back(at + "variant parameter '" + e.name + "' is " + e.shape +
                       "; it takes one value (allowed: " + allowed_values(e.name) + ")");
      continue;
    }
    try {
      set_param(v, e.name, e.value);
    } catch (const std::invalid_argument& err) {
      errors.push_back(at + err.what());
    }
  }

  std::vector<std::string> missing;
  for (const auto& name : names)
    if (!seen_at.count(name)) missing.push_back(name + " (allowed: " + allowed_values(name) + ")");
  if (!missing.empty())
    errors.push_back(src + ": missing variant parameters: " + join(missing, ", ") +
                     "; a config file must give every parameter");

  if (!errors.empty()) throw std::invalid_argument(join(errors, "\n"));
  return v;
}

bool is_variant_path(std::string_view s) {
  return s.find('/') != std::string_view::npos || s.ends_with(".yaml") || s.ends_with(".yml");
}

std::string preset_yaml(std::string_view name) {
  // The preset's description, wrapped at 78 columns, above the whole file.
  std::string header = "Preset \"" + std::string(name) + "\": " + std::string(preset_description(name));
  std::string out, line = "#";
  size_t start = 0;
  while (start < header.size()) {
    size_t end = header.find(' ', start);
    if (end == std::string::npos) end = header.size();
    const std::string word = header.substr(start, end - start);
    if (line.size() > 1 && line.size() + 1 + word.size() > 78) {
      out += line + "\n";
      line = "#";
    }
    line += " " + word;
    start = end + 1;
  }
  out += line + "\n#\n";
  return out + variant_to_yaml(preset(name));
}

std::string variant_to_yaml(const Variant& v) {
  std::string out =
      "# Shuangkou variant (docs/rules.md §13). Every parameter must be given.\n"
      "# Copy this file to make a new variant: change values, keep every key,\n"
      "# and pass its path wherever a variant is asked for: sk.Rules(\"my.yaml\").\n";
  for (const auto& [name, value] : params(v)) {
    out += "\n";
    out += "# " + std::string(param_description(name)) + "\n";
    out += "# Allowed: " + allowed_values(name) + ".\n";
    out += name + ": " + yaml_scalar(value) + "\n";
  }
  return out;
}

}  // namespace shuangkou
