// How hard a hand is to shed: the least total cost over the ways of splitting
// it into plays (docs/heuristic.md). The heuristic bot compares the hand
// before and after a candidate move; the search bot orders its candidates by
// it.
#pragma once

#include "shuangkou/core/cards.h"
#include "shuangkou/core/variant.h"

namespace shuangkou {

// The cost of a split is the sum of its groups' costs: about 1 for each low
// single, pair, triple or chain (a trick the hand still has to lead), less
// for high ones (they tend to win their trick and so cost no lead), and
// negative for bombs (a bomb wins the lead back). Wild jokers are tried in
// every group where they help (raising a set, filling a chain's gap) and
// otherwise count as high singles. 0 for an empty hand.
//
// Memoised per thread in a fixed table (sub-splits are shared between the
// hands a deal produces), so the hot path allocates only once per thread.
float hand_cost(const Variant& v, CardCounts hand);

// The cost hand_cost gives one group of `size` cards of `kind` with key
// `key` (bombs: by their card count). For tests and the design note.
float group_cost(bool bomb, bool chain, int key, int size);

}  // namespace shuangkou
