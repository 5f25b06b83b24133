// Variant parameters (docs/rules.md §13) and the five presets.
//
// A Variant is a plain struct: every parameter can be set on its own, by
// field or by name (`set_param`), so researchers can build their own rule sets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shuangkou {

enum class WildJokers : uint8_t { kNone, kBigOnly, kBoth };
enum class BombOrder : uint8_t { kCount, kStars };
enum class UnevenStar : uint8_t { kMax, kMin };
enum class Tianwang : uint8_t { kTop, kBottom };
enum class FirstLead : uint8_t { kRevealedCard, kPreviousWinner, kRandom };
enum class TeamFormation : uint8_t { kByRule, kFixed };
enum class BaseTable : uint8_t { kClassic, kCommon, kJJ };
enum class MultiplierRule : uint8_t { kBombCountMax, kStarMax, kStarProduct };
enum class MultiplierFrom : uint8_t { kWinners, kAll };
enum class ContributionRule : uint8_t { kNone, kPlayer, kTeam };

struct Variant {
  // Which jokers are wild in a mixed set (docs/rules.md §3).
  WildJokers wild_jokers = WildJokers::kNone;
  // Largest count of one rank in a bomb or in one rank of a chain bomb (4..12).
  int max_bomb = 8;
  // Chain bombs of equal counts (X相Y连炸).
  bool chain_bomb = false;
  // Chain bombs whose counts may differ (Z相Y连炸).
  bool uneven_chain = false;
  // Stars of an uneven chain bomb: largest or smallest count + Y.
  UnevenStar uneven_star = UnevenStar::kMax;
  // Any three jokers form a bomb (三王炸).
  bool three_kings = false;
  // Bomb vs bomb: by card count (classic) or by stars.
  BombOrder bomb_order = BombOrder::kCount;
  // Heavenly kings: highest or lowest of the 7-star plays (stars order only).
  Tianwang tianwang = Tianwang::kTop;
  // Who leads the first trick of a deal (docs/rules.md §6).
  FirstLead first_lead = FirstLead::kPreviousWinner;
  // kFixed: seats never move even under the revealed-card rule.
  TeamFormation team_formation = TeamFormation::kByRule;
  // Scoring (docs/rules.md §8–12).
  BaseTable base_table = BaseTable::kClassic;
  MultiplierRule multiplier = MultiplierRule::kBombCountMax;
  MultiplierFrom multiplier_from = MultiplierFrom::kWinners;
  ContributionRule contribution = ContributionRule::kNone;
  // Star collection (docs/rules.md §12): star levels from several bombs, paid once.
  bool collect_stars = false;
  // 双明: each player sees the partner's hand.
  bool partner_visible = false;

  bool small_joker_wild() const { return wild_jokers == WildJokers::kBoth; }
  bool big_joker_wild() const { return wild_jokers != WildJokers::kNone; }

  bool operator==(const Variant&) const = default;
};

// The presets come from one table in variant.cc: each row a name, a
// description, an optional base preset and the parameters it sets (by name,
// as text, read as set_param reads them). Adding a preset is adding a row.
//
// The preset names, in docs/rules.md §13 order: classic baibian qianbian
// qianbian_collect jj.
const std::vector<std::string>& preset_names();
// A preset by name (any case), built once from its row. Throws
// std::invalid_argument naming the unknown preset and the known ones.
Variant preset(std::string_view name);

// Sets one parameter by name from its text value ("true", "8", "stars", ...).
// Throws std::invalid_argument naming the parameter and its allowed values;
// on error `v` is unchanged. `wild` is accepted as a short name for
// `wild_jokers`.
void set_param(Variant& v, std::string_view name, std::string_view value);
// Every parameter as (name, text value), in declaration order.
std::vector<std::pair<std::string, std::string>> params(const Variant& v);
// The parameter names, and the allowed values of one ("4..12" for max_bomb).
const std::vector<std::string>& param_names();
std::string allowed_values(std::string_view name);
// One line on what a parameter means, and on what makes a preset (its row's
// description). Both throw std::invalid_argument for an unknown name.
std::string_view param_description(std::string_view name);
std::string_view preset_description(std::string_view name);

}  // namespace shuangkou
