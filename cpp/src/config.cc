#include "shuangkou/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <vector>

namespace shuangkou {
namespace {

// What each parameter means, for the comments of `variant_to_yaml`. The
// allowed values come from `allowed_values`, never from here.
std::string_view describe(std::string_view name) {
  static const std::map<std::string_view, std::string_view> kDescriptions = {
      {"wild_jokers", "Which jokers are wild in a mixed set (RULES.md section 2); BJ: big jokers only."},
      {"max_bomb", "Largest count of one rank in a bomb, or in one rank of a chain bomb."},
      {"chain_bomb", "Chain bombs of equal counts (X相Y连炸) are plays."},
      {"uneven_chain", "Chain bombs whose counts differ (Z相Y连炸) are plays."},
      {"uneven_star",
       "Stars of an uneven chain bomb: its largest or smallest count + Y (unused without "
       "uneven_chain)."},
      {"three_kings", "Any three jokers form a bomb (三王炸)."},
      {"bomb_order", "Bomb against bomb: by card count (classic) or by stars."},
      {"tianwang", "Heavenly kings (天王): highest or lowest of the 7-star plays (stars order only)."},
      {"first_lead", "Who leads the first trick of a deal (section 3)."},
      {"team_formation",
       "by_rule: the revealed-card rule may move seats; fixed: seats never move (section 3)."},
      {"base_table", "Base points by outcome and place (section 7)."},
      {"multiplier", "How the bombs played multiply the base score (section 8)."},
      {"multiplier_from", "Whose bombs set the multiplier: the winning team's, or everyone's."},
      {"contribution",
       "Points for 6+-star bombs: none, to the player, or to player and partner (section 8)."},
      {"collect_stars", "Star collection (section 8a): star levels from several bombs, paid once."},
      {"partner_visible", "双明: each player sees the partner's hand."},
  };
  const auto it = kDescriptions.find(name);
  return it == kDescriptions.end() ? std::string_view() : it->second;
}

// "source:line: " (line 1-based), or "source: " where the line is unknown.
std::string where(std::string_view source, const YAML::Mark& mark) {
  std::string s(source);
  if (!mark.is_null()) s.append(":").append(std::to_string(mark.line + 1));
  return s.append(": ");
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : std::string(sep)) + p;
  return s;
}

std::string node_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return "not a single value";
  }
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

Variant variant_from_yaml(std::string_view text, std::string_view source) {
  const std::string src(source);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(where(src, e.mark) + "YAML syntax error: " + e.msg);
  }
  const std::string expected =
      "expected a mapping of every variant parameter (" + join(param_names(), ", ") + ")";
  if (docs.size() != 1 || !docs[0].IsMap()) {
    const std::string what = docs.empty()      ? "the file is empty"
                             : docs.size() > 1 ? "the file holds several YAML documents"
                                               : "the document is " + node_kind(docs[0]);
    throw std::invalid_argument(src + ": " + what + "; " + expected);
  }

  Variant v;
  std::vector<std::string> errors;
  std::map<std::string, int> seen_at;  // canonical name -> 1-based line
  for (const auto& entry : docs[0]) {
    const YAML::Node& key = entry.first;
    const YAML::Node& value = entry.second;
    const std::string at = where(src, key.Mark());
    if (!key.IsScalar()) {
      errors.push_back(at + "a key is " + node_kind(key) + "; " + expected);
      continue;
    }
    const std::string name = key.Scalar();
    const auto& names = param_names();
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      errors.push_back(at + "unknown variant parameter '" + name +
                       "'; config files use the canonical names (known: " + join(names, ", ") + ")");
      continue;
    }
    const int line = key.Mark().is_null() ? 0 : key.Mark().line + 1;
    if (const auto [it, fresh] = seen_at.emplace(name, line); !fresh) {
      errors.push_back(at + "variant parameter '" + name + "' is given twice (first at line " +
                       std::to_string(it->second) + ")");
      continue;
    }
    if (!value.IsScalar()) {
      errors.push_back(at + "variant parameter '" + name + "' is " + node_kind(value) +
                       "; it takes one value (allowed: " + allowed_values(name) + ")");
      continue;
    }
    try {
      set_param(v, name, value.Scalar());
    } catch (const std::invalid_argument& e) {
      errors.push_back(at + e.what());
    }
  }

  std::vector<std::string> missing;
  for (const auto& name : param_names())
    if (!seen_at.count(name)) missing.push_back(name + " (allowed: " + allowed_values(name) + ")");
  if (!missing.empty())
    errors.push_back(src + ": missing variant parameters: " + join(missing, ", ") +
                     "; a config file must give every parameter");

  if (!errors.empty()) throw std::invalid_argument(join(errors, "\n"));
  return v;
}

Variant load_variant_file(const std::string& path) {
  std::string text;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::invalid_argument("cannot read variant file '" + path + "': " + std::strerror(errno));
  }
  try {
    // libstdc++ throws from here on read errors such as EISDIR.
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception& e) {
    throw std::invalid_argument("cannot read variant file '" + path + "': " + e.what());
  }
  if (in.bad()) throw std::invalid_argument("cannot read variant file '" + path + "'");
  return variant_from_yaml(text, path);
}

Variant resolve_variant(const std::string& preset_or_path) {
  const std::string_view s = preset_or_path;
  const bool is_path = s.find('/') != std::string_view::npos || s.ends_with(".yaml") || s.ends_with(".yml");
  if (is_path) return load_variant_file(preset_or_path);
  try {
    return preset(s);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(e.what()) +
                                "; a variant file path must end in .yaml or .yml or contain a '/'");
  }
}

std::string variant_to_yaml(const Variant& v) {
  std::string out =
      "# Shuangkou variant (RULES.md section 9). Every parameter must be given.\n"
      "# Copy this file to make a new variant: change values, keep every key.\n"
      "# C++: shuangkou::load_variant_file(path) or resolve_variant(path).\n";
  for (const auto& [name, value] : params(v)) {
    out += "\n";
    if (const std::string_view d = describe(name); !d.empty()) out += "# " + std::string(d) + "\n";
    out += "# Allowed: " + allowed_values(name) + ".\n";
    out += name + ": " + yaml_scalar(value) + "\n";
  }
  return out;
}

}  // namespace shuangkou
