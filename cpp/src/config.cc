#include "shuangkou/config.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

namespace shuangkou {
namespace {

// What each parameter means, for the comments of `variant_to_yaml`. The
// allowed values come from `allowed_values`, never from here.
std::string_view describe(std::string_view name) {
  static const std::map<std::string_view, std::string_view> kDescriptions = {
      {"wild_jokers", "Which jokers are wild in a mixed set (docs/rules.md §3); BJ: big jokers only."},
      {"max_bomb", "Largest count of one rank in a bomb, or in one rank of a chain bomb."},
      {"chain_bomb", "Chain bombs of equal counts (X相Y连炸) are plays."},
      {"uneven_chain", "Chain bombs whose counts differ (Z相Y连炸) are plays."},
      {"uneven_star",
       "Stars of an uneven chain bomb: its largest or smallest count + Y (unused without "
       "uneven_chain)."},
      {"three_kings", "Any three jokers form a bomb (三王炸)."},
      {"bomb_order", "Bomb against bomb: by card count (classic) or by stars."},
      {"tianwang", "Heavenly kings (天王): highest or lowest of the 7-star plays (stars order only)."},
      {"first_lead", "Who leads the first trick of a deal (docs/rules.md §6)."},
      {"team_formation",
       "by_rule: the revealed-card rule may move seats; fixed: seats never move (docs/rules.md §6)."},
      {"base_table", "Base points by outcome and place (docs/rules.md §9)."},
      {"multiplier", "How the bombs played multiply the base score (docs/rules.md §10)."},
      {"multiplier_from", "Whose bombs set the multiplier: the winning team's, or everyone's."},
      {"contribution",
       "Points for 6+-star bombs: none, to the player, or to player and partner (docs/rules.md §11)."},
      {"collect_stars", "Star collection (docs/rules.md §12): star levels from several bombs, paid once."},
      {"partner_visible", "双明: each player sees the partner's hand."},
  };
  const auto it = kDescriptions.find(name);
  return it == kDescriptions.end() ? std::string_view() : it->second;
}

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

std::string variant_to_yaml(const Variant& v) {
  std::string out =
      "# Shuangkou variant (docs/rules.md §13). Every parameter must be given.\n"
      "# Copy this file to make a new variant: change values, keep every key,\n"
      "# and pass its path wherever a variant is asked for: sk.Rules(\"my.yaml\").\n";
  for (const auto& [name, value] : params(v)) {
    out += "\n";
    if (const std::string_view d = describe(name); !d.empty()) out += "# " + std::string(d) + "\n";
    out += "# Allowed: " + allowed_values(name) + ".\n";
    out += name + ": " + yaml_scalar(value) + "\n";
  }
  return out;
}

}  // namespace shuangkou
