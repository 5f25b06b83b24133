#include "shuangkou/core/scoring.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace shuangkou {
namespace {

// Base points by outcome and place (docs/rules.md §9), one table per BaseTable.
constexpr int kBase[3][3][4] = {
    // classic: double, single, draw
    {{4, 4, -4, -4}, {2, -2, 2, -2}, {0, 0, 0, 0}},
    // common (baibian, qianbian)
    {{4, 4, -4, -4}, {2, -2, 2, -2}, {1, 0, 0, 1}},
    // jj
    {{6, 6, -6, -6}, {3, -3, 3, -3}, {1, -1, -1, 1}},
};

// Multiplier factor of one bomb (or star level).
int64_t count_factor(int stars) { return stars >= 5 ? stars - 3 : 1; }  // 5/6/7/8 -> 2/3/4/5
int64_t star_max_factor(int stars) {
  if (stars >= 8) return 16;
  if (stars == 7) return 8;
  if (stars == 6) return 4;
  if (stars == 5) return 2;
  return 1;
}
int64_t star_product_factor(int stars) {
  if (stars >= 8) return 4;
  if (stars == 7) return 3;
  if (stars == 6) return 2;
  return 1;
}

bool counted(const Variant& v, int seat, int winning_team) {
  return v.multiplier_from == MultiplierFrom::kAll || team_of(seat) == winning_team;
}

struct LevelRow {
  int64_t from;
  std::string_view title;
};
constexpr std::array<LevelRow, 23> kLevels = {{
    {INT64_MIN, "包身工"}, {60, "短工"},     {140, "长工"},     {300, "佃户"},     {720, "贫农"},
    {1400, "渔夫"},        {2000, "猎人"},   {3000, "中农"},    {4500, "富农"},    {6200, "掌柜"},
    {8000, "商人"},        {12000, "衙役"},  {17000, "小财主"}, {22000, "大财主"}, {28000, "小地主"},
    {40000, "大地主"},     {60000, "知县"},  {90000, "通判"},   {140000, "知府"},  {300000, "总督"},
    {450000, "巡抚"},      {600000, "丞相"}, {1000000, "帝王"},
}};

}  // namespace

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kDouble:
      return "double";
    case Outcome::kSingle:
      return "single";
    case Outcome::kDraw:
      return "draw";
  }
  return "?";
}

Outcome outcome_of(const Places& places) {
  const int winners = team_of(places[0]);
  if (team_of(places[1]) == winners) return Outcome::kDouble;
  if (team_of(places[2]) == winners) return Outcome::kSingle;
  return Outcome::kDraw;
}

int base_points(BaseTable table, Outcome outcome, int place) {
  return kBase[static_cast<int>(table)][static_cast<int>(outcome)][place];
}

void BombTally::add(int seat, int bomb_stars) {
  auto& list = stars[seat];
  int n = count[seat];
  if (n == kMaxPerSeat) throw std::length_error("more bombs by one seat than a deal allows");
  int i = n;
  while (i > 0 && list[i - 1] < bomb_stars) {
    list[i] = list[i - 1];
    --i;
  }
  list[i] = static_cast<uint8_t>(bomb_stars);
  count[seat] = static_cast<uint8_t>(n + 1);
}

int star_level(const BombTally& bombs, int seat) {
  const int n = bombs.count[seat];
  if (n == 0) return 0;
  const auto& s = bombs.stars[seat];
  int level = s[0];
  if (n >= 4) level = std::max(level, n + 2);
  // n bombs of at least X stars each: X is at best the n-th largest.
  for (int i = 1; i < n; ++i)
    if (s[i] >= 5) level = std::max(level, s[i] + i);
  return level;
}

void add_contribution(const Variant& v, int seat, int stars, std::array<int64_t, kNumSeats>& out) {
  if (v.contribution == ContributionRule::kNone || stars < 6) return;
  const int64_t gain = stars >= 8 ? 18 : stars == 7 ? 12 : 6;
  const int64_t loss = gain / 3;
  for (int s = 0; s < kNumSeats; ++s) {
    const bool gains = s == seat || (v.contribution == ContributionRule::kTeam && s == partner_of(seat));
    out[s] += gains ? gain : -loss;
  }
}

std::array<int64_t, kNumSeats> running_contribution(const Variant& v, const BombTally& bombs) {
  std::array<int64_t, kNumSeats> out{};
  if (v.collect_stars) return out;
  for (int seat = 0; seat < kNumSeats; ++seat)
    for (int i = 0; i < bombs.count[seat]; ++i) add_contribution(v, seat, bombs.stars[seat][i], out);
  return out;
}

DealScore score_deal(const Variant& v, const Places& places, const BombTally& bombs) {
  int seen = 0;
  for (int s : places) {
    if (s < 0 || s >= kNumSeats || (seen >> s & 1))
      throw std::invalid_argument("places must be a permutation of the seats 0..3");
    seen |= 1 << s;
  }
  DealScore d;
  d.outcome = outcome_of(places);
  for (int place = 0; place < kNumSeats; ++place)
    d.base[places[place]] = base_points(v.base_table, d.outcome, place);

  const int winners = team_of(places[0]);
  d.multiplier = 1;
  for (int seat = 0; seat < kNumSeats; ++seat) {
    if (!counted(v, seat, winners)) continue;
    switch (v.multiplier) {
      case MultiplierRule::kBombCountMax:
        d.multiplier = std::max(d.multiplier, count_factor(bombs.max_stars(seat)));
        break;
      case MultiplierRule::kStarMax:
        d.multiplier = std::max(
            d.multiplier, star_max_factor(v.collect_stars ? star_level(bombs, seat) : bombs.max_stars(seat)));
        break;
      case MultiplierRule::kStarProduct:
        for (int i = 0; i < bombs.count[seat]; ++i) d.multiplier *= star_product_factor(bombs.stars[seat][i]);
        break;
    }
  }

  if (v.collect_stars) {
    for (int seat = 0; seat < kNumSeats; ++seat)
      add_contribution(v, seat, star_level(bombs, seat), d.contribution);
  } else {
    d.contribution = running_contribution(v, bombs);
  }
  for (int s = 0; s < kNumSeats; ++s) d.total[s] = d.base[s] * d.multiplier + d.contribution[s];
  return d;
}

LevelTitle level_title(int64_t total_points) {
  int level = 1;
  for (int i = 1; i < static_cast<int>(kLevels.size()); ++i)
    if (total_points >= kLevels[i].from) level = i + 1;
  return {level, kLevels[level - 1].title};
}

}  // namespace shuangkou
