#include "shuangkou/core/variant.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "shuangkou/core/clip.h"

namespace shuangkou {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// One table drives parsing, printing and error messages of an enum parameter.
template <typename E, size_t N>
struct EnumSpec {
  std::array<std::pair<std::string_view, E>, N> values;

  std::string allowed() const {
    std::string s;
    for (const auto& [name, _] : values) s += (s.empty() ? "" : ", ") + std::string(name);
    return s;
  }
  bool parse(std::string_view text, E& out) const {
    const std::string t = lower(text);
    for (const auto& [name, value] : values)
      if (t == lower(name)) return out = value, true;
    return false;
  }
  std::string_view name(E e) const {
    for (const auto& [name, value] : values)
      if (value == e) return name;
    return "?";
  }
};

constexpr EnumSpec<WildJokers, 3> kWild{
    {{{"none", WildJokers::kNone}, {"BJ", WildJokers::kBigOnly}, {"both", WildJokers::kBoth}}}};
constexpr EnumSpec<BombOrder, 2> kBombOrder{{{{"count", BombOrder::kCount}, {"stars", BombOrder::kStars}}}};
constexpr EnumSpec<UnevenStar, 2> kUnevenStar{{{{"max", UnevenStar::kMax}, {"min", UnevenStar::kMin}}}};
constexpr EnumSpec<Tianwang, 2> kTianwang{{{{"top", Tianwang::kTop}, {"bottom", Tianwang::kBottom}}}};
constexpr EnumSpec<FirstLead, 3> kFirstLead{{{{"revealed_card", FirstLead::kRevealedCard},
                                              {"previous_winner", FirstLead::kPreviousWinner},
                                              {"random", FirstLead::kRandom}}}};
constexpr EnumSpec<TeamFormation, 2> kTeamFormation{
    {{{"by_rule", TeamFormation::kByRule}, {"fixed", TeamFormation::kFixed}}}};
constexpr EnumSpec<BaseTable, 3> kBaseTable{
    {{{"classic", BaseTable::kClassic}, {"common", BaseTable::kCommon}, {"jj", BaseTable::kJJ}}}};
constexpr EnumSpec<MultiplierRule, 3> kMultiplier{{{{"bomb_count_max", MultiplierRule::kBombCountMax},
                                                    {"star_max", MultiplierRule::kStarMax},
                                                    {"star_product", MultiplierRule::kStarProduct}}}};
constexpr EnumSpec<MultiplierFrom, 2> kMultiplierFrom{
    {{{"winners", MultiplierFrom::kWinners}, {"all", MultiplierFrom::kAll}}}};
constexpr EnumSpec<ContributionRule, 3> kContribution{{{{"none", ContributionRule::kNone},
                                                        {"player", ContributionRule::kPlayer},
                                                        {"team", ContributionRule::kTeam}}}};

constexpr int kMinMaxBomb = 4;
constexpr int kMaxMaxBomb = 12;  // 8 natural copies + 4 wild jokers

bool parse_bool(std::string_view text, bool& out) {
  const std::string t = lower(text);
  if (t == "true" || t == "yes" || t == "on" || t == "1") return out = true, true;
  if (t == "false" || t == "no" || t == "off" || t == "0") return out = false, true;
  return false;
}

// A parameter: its name, allowed values, how to read and write it, and what
// it means (one line). This table is the one owner of every parameter: config
// files, their comments, the README's table and the docs are made from it
// (scripts/gen_docs.py), and the presets' values are read through it.
struct ParamSpec {
  std::string_view name;
  std::string (*allowed)();
  bool (*set)(Variant&, std::string_view);
  std::string (*get)(const Variant&);
  std::string_view description;
};

#define SK_ENUM_PARAM(field, spec, text)                                                \
  ParamSpec {                                                                           \
#field, [] { return spec.allowed(); },                                                \
        [](Variant& v, std::string_view t) { return spec.parse(t, v.field); },            \
        [](const Variant& v) { return std::string(spec.name(v.field)); }, text \
  }
#define SK_BOOL_PARAM(field, text)                                                      \
  ParamSpec {                                                                           \
#field, [] { return std::string("true, false"); },                                    \
        [](Variant& v, std::string_view t) { return parse_bool(t, v.field); },            \
        [](const Variant& v) { return std::string(v.field ? "true" : "false"); }, text \
  }

constexpr std::array<ParamSpec, 16> kParams = {
    SK_ENUM_PARAM(wild_jokers, kWild,
                  "Which jokers are wild in a mixed set (docs/rules.md §3); BJ: big jokers only."),
    ParamSpec{"max_bomb", [] { return std::to_string(kMinMaxBomb) + ".." + std::to_string(kMaxMaxBomb); },
              [](Variant& v, std::string_view t) {
                int n = 0;
                auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
                if (ec != std::errc() || end != t.data() + t.size()) return false;
                if (n < kMinMaxBomb || n > kMaxMaxBomb) return false;
                v.max_bomb = n;
                return true;
              },
              [](const Variant& v) { return std::to_string(v.max_bomb); },
              "Largest count of one rank in a bomb, or in one rank of a chain bomb."},
    SK_BOOL_PARAM(chain_bomb, "Chain bombs of equal counts (X相Y连炸) are plays."),
    SK_BOOL_PARAM(uneven_chain, "Chain bombs whose counts differ (Z相Y连炸) are plays."),
    SK_ENUM_PARAM(
        uneven_star, kUnevenStar,
        "Stars of an uneven chain bomb: its largest or smallest count + Y (unused without uneven_chain)."),
    SK_BOOL_PARAM(three_kings, "Any three jokers form a bomb (三王炸)."),
    SK_ENUM_PARAM(bomb_order, kBombOrder, "Bomb against bomb: by card count (classic) or by stars."),
    SK_ENUM_PARAM(tianwang, kTianwang,
                  "Heavenly kings (天王): highest or lowest of the 7-star plays (stars order only)."),
    SK_ENUM_PARAM(first_lead, kFirstLead, "Who leads the first trick of a deal (docs/rules.md §6)."),
    SK_ENUM_PARAM(
        team_formation, kTeamFormation,
        "by_rule: the revealed-card rule may move seats; fixed: seats never move (docs/rules.md §6)."),
    SK_ENUM_PARAM(base_table, kBaseTable, "Base points by outcome and place (docs/rules.md §9)."),
    SK_ENUM_PARAM(multiplier, kMultiplier,
                  "How the bombs played multiply the base score (docs/rules.md §10)."),
    SK_ENUM_PARAM(multiplier_from, kMultiplierFrom,
                  "Whose bombs set the multiplier: the winning team's, or everyone's."),
    SK_ENUM_PARAM(
        contribution, kContribution,
        "Points for 6+-star bombs: none, to the player, or to player and partner (docs/rules.md §11)."),
    SK_BOOL_PARAM(collect_stars,
                  "Star collection (docs/rules.md §12): star levels from several bombs, paid once."),
    SK_BOOL_PARAM(partner_visible, "双明: each player sees the partner's hand."),
};
#undef SK_ENUM_PARAM
#undef SK_BOOL_PARAM

const ParamSpec* find_param(std::string_view name) {
  const std::string n = lower(name);
  const std::string_view canonical = (n == "wild") ? std::string_view("wild_jokers") : n;
  for (const auto& p : kParams)
    if (p.name == canonical) return &p;
  return nullptr;
}

std::string known_params() {
  std::string s;
  for (const auto& p : kParams) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

// A preset: its name, one line on what makes it, and the parameters it sets
// (by name, as text read through kParams) on top of its base preset, or on
// top of Variant's defaults (the classic rules) where `base` is empty. Adding
// a preset is one row; its config file, docs and tests follow from the table.
struct PresetSpec {
  using Override = std::pair<std::string_view, std::string_view>;  // parameter, value text
  std::string_view name;
  std::string_view description;
  std::string_view base;                           // a preset of an earlier row, or ""
  std::array<Override, kParams.size()> overrides;  // in the first entries; the rest stay empty
};

// In docs/rules.md §13 order (preset_names()).
constexpr std::array<PresetSpec, 5> kPresets = {{
    {"classic",
     "双扣: no wild cards, bombs ranked by card count, classic base table, multiplier from the winners' "
     "biggest bomb.",
     "",
     {}},
    {"baibian",
     "百变 / 火拼: big jokers wild, chain bombs, three-king bombs, bombs ranked by stars, bomb contribution "
     "to the player.",
     "",
     {{{"wild_jokers", "BJ"},
       {"chain_bomb", "true"},
       {"three_kings", "true"},
       {"bomb_order", "stars"},
       {"first_lead", "revealed_card"},
       {"base_table", "common"},
       {"multiplier", "star_max"},
       {"multiplier_from", "winners"},
       {"contribution", "player"}}}},
    {"qianbian",
     "千变: both jokers wild, uneven chain bombs (stars from the largest count), multiplier from all bombs, "
     "team contribution.",
     "baibian",
     {{{"wild_jokers", "both"},
       {"uneven_chain", "true"},
       {"uneven_star", "max"},
       {"multiplier_from", "all"},
       {"contribution", "team"}}}},
    {"qianbian_collect",
     "千变 with star collection (docs/rules.md §12): as qianbian, with bombs up to 12 cards, uneven stars "
     "from the smallest count, heavenly kings lowest, a random first leader and collected stars.",
     "qianbian",
     {{{"max_bomb", "12"},
       {"uneven_star", "min"},
       {"tianwang", "bottom"},
       {"first_lead", "random"},
       {"collect_stars", "true"}}}},
    {"jj",
     "JJ双扣: big jokers wild, chain bombs, JJ base table, every bomb multiplies the score, partner's hand "
     "visible (双明).",
     "baibian",
     {{{"base_table", "jj"},
       {"multiplier", "star_product"},
       {"multiplier_from", "all"},
       {"contribution", "none"},
       {"partner_visible", "true"}}}},
}};

// The row of preset `base` comes before every row built on it, so the presets
// are built in one pass, in table order.
constexpr bool bases_come_first() {
  for (size_t i = 0; i < kPresets.size(); ++i) {
    if (kPresets[i].base.empty()) continue;
    bool found = false;
    for (size_t j = 0; j < i; ++j) found = found || kPresets[j].name == kPresets[i].base;
    if (!found) return false;
  }
  return true;
}
static_assert(bases_come_first(), "a preset's base must be a preset of an earlier row");

// The row of preset `name` (any case); std::invalid_argument naming the known
// presets otherwise.
size_t preset_index(std::string_view name) {
  const std::string n = lower(name);
  for (size_t i = 0; i < kPresets.size(); ++i)
    if (kPresets[i].name == n) return i;
  std::string known;
  for (const auto& p : kPresets) known += (known.empty() ? "" : ", ") + std::string(p.name);
  throw std::invalid_argument("unknown variant preset '" + clip(name, 60) + "' (known: " + known + ")");
}

// Every preset's Variant, built once from kPresets (row order: bases first).
const std::array<Variant, kPresets.size()>& preset_variants() {
  static const std::array<Variant, kPresets.size()> built = [] {
    std::array<Variant, kPresets.size()> out{};
    for (size_t i = 0; i < kPresets.size(); ++i) {
      const PresetSpec& p = kPresets[i];
      Variant v = p.base.empty() ? Variant{} : out[preset_index(p.base)];
      for (const auto& [name, value] : p.overrides)
        if (!name.empty()) set_param(v, name, value);
      out[i] = v;
    }
    return out;
  }();
  return built;
}

}  // namespace

std::string_view preset_description(std::string_view name) {
  return kPresets[preset_index(name)].description;
}

std::string_view param_description(std::string_view name) {
  const ParamSpec* p = find_param(name);
  if (!p) throw std::invalid_argument("unknown variant parameter '" + std::string(name) + "'");
  return p->description;
}

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : kPresets) n.emplace_back(p.name);
    return n;
  }();
  return names;
}

Variant preset(std::string_view name) { return preset_variants()[preset_index(name)]; }

void set_param(Variant& v, std::string_view name, std::string_view value) {
  const ParamSpec* p = find_param(name);
  if (!p)
    throw std::invalid_argument("unknown variant parameter '" + std::string(name) +
                                "' (known: " + known_params() + ")");
  Variant copy = v;
  if (!p->set(copy, value))
    throw std::invalid_argument("bad value '" + std::string(value) + "' for variant parameter '" +
                                std::string(p->name) + "' (allowed: " + p->allowed() + ")");
  v = copy;
}

std::vector<std::pair<std::string, std::string>> params(const Variant& v) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : kParams) out.emplace_back(std::string(p.name), p.get(v));
  return out;
}

const std::vector<std::string>& param_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& p : kParams) n.emplace_back(p.name);
    return n;
  }();
  return names;
}

std::string allowed_values(std::string_view name) {
  const ParamSpec* p = find_param(name);
  if (!p) throw std::invalid_argument("unknown variant parameter '" + std::string(name) + "'");
  return p->allowed();
}

}  // namespace shuangkou
