// Bounds on a seat's deal score under a rule set (docs/rules.md §9–11): what
// OpenSpiel keeps on a game as its min and max utility.
#pragma once

#include "shuangkou/core/rules.h"

namespace shuangkou {

struct ScoreBounds {
  double lowest = 0;   // no seat scores less in a deal
  double highest = 0;  // no seat scores more
};

// A bound, not the exact extremes: the largest base points of any outcome,
// times the largest multiplier the rule set's bombs allow (for a product of
// factors, as many of the most efficient bombs as 108 cards hold), plus as
// many paying bombs (6 stars or more) as 108 cards hold, each worth +18 to a
// seat at most and -6 at least. Whole numbers.
ScoreBounds score_bounds(const Rules& rules);

}  // namespace shuangkou
