#include "shuangkou/core/score_bounds.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "shuangkou/core/scoring.h"

namespace shuangkou {
namespace {

constexpr int kNumCards = 108;  // two decks with their jokers

// A bomb's multiplier factor from its stars (or size), docs/rules.md §10.
double factor(int stars, bool star_product) {
  if (star_product) return stars <= 5 ? 1.0 : static_cast<double>(std::min(stars - 4, 4));
  return static_cast<double>(std::max(stars - 3, 1));
}

bool is_joker_bomb(const Play& b) { return b.kind == Kind::kThreeKings || b.kind == Kind::kHeavenlyKings; }

// Stars, or cards under count order: the larger.
int strength(const Play& b) { return std::max<int>(b.stars, b.size); }

// `bound` up to a whole number (scores are integers); a power a hair below one is that one.
double whole(double bound) {
  const double near = std::round(bound);
  return std::abs(bound - near) <= 1e-9 * std::max(1.0, bound) ? near : std::ceil(bound);
}

// The largest base points of any seat in any outcome (no bombs).
double largest_base(const Variant& v) {
  int64_t base = 0;
  for (const Places& order : {Places{0, 2, 1, 3}, Places{0, 1, 2, 3}, Places{0, 1, 3, 2}})
    for (int64_t b : score_deal(v, order, BombTally{}).base) base = std::max(base, std::abs(b));
  return static_cast<double>(base);
}

// The largest multiplier the bombs allow.
double largest_multiplier(const Variant& v, const std::vector<Play>& bombs) {
  if (v.multiplier == MultiplierRule::kStarMax) return 16.0;
  if (v.multiplier == MultiplierRule::kBombCountMax) {  // the largest single factor; heavenly kings x4
    double mult = 4.0;
    for (const Play& b : bombs) mult = std::max(mult, factor(strength(b) + (v.collect_stars ? 7 : 0), false));
    return mult;
  }
  // star_product: factors multiply; per card, no bomb beats the best ratio f**(1/cards)
  double ratio = 1.0;
  for (const Play& b : bombs)
    if (!is_joker_bomb(b)) ratio = std::max(ratio, std::pow(factor(strength(b), true), 1.0 / b.size));
  double mult = std::max(std::pow(ratio, kNumCards), v.collect_stars ? std::pow(4.0, kNumSeats) : 1.0);
  for (const Play& b : bombs)
    if (is_joker_bomb(b))
      mult = std::max(mult, factor(strength(b), true) * std::pow(ratio, kNumCards - b.size));
  return mult;
}

// The most bombs of 6 stars or more (each pays contributions) one deal can hold.
int paying_bombs(const Variant& v, const std::vector<Play>& bombs) {
  if (v.contribution == ContributionRule::kNone) return 0;
  if (v.collect_stars) return kNumSeats;
  int smallest = kNumCards;
  for (const Play& b : bombs)
    if (strength(b) >= 6 && !is_joker_bomb(b)) smallest = std::min<int>(smallest, b.size);
  int most = kNumCards / smallest;
  for (const Play& b : bombs)
    if (is_joker_bomb(b) && strength(b) >= 6) most = std::max(most, 1 + (kNumCards - b.size) / smallest);
  return most;
}

}  // namespace

ScoreBounds score_bounds(const Rules& rules) {
  const Variant& v = rules.variant();
  const ActionCatalogue& catalogue = rules.catalogue();
  std::vector<Play> bombs;
  for (int id = 1; id < catalogue.size(); ++id)
    if (is_bomb(catalogue.pattern(id).kind)) bombs.push_back(catalogue.pattern(id));
  const double scaled = largest_base(v) * largest_multiplier(v, bombs);
  const int paying = paying_bombs(v, bombs);
  return {-whole(scaled + 6.0 * paying), whole(scaled + 18.0 * paying)};
}

}  // namespace shuangkou
