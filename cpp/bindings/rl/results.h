// Per-deal results as numpy arrays: what selfplay and the vector env return
// of finished deals (see shuangkou.selfplay.SelfPlayResult).
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "shuangkou/rl/results.h"

namespace py = pybind11;
namespace sk = shuangkou;

namespace shuangkou_py {

// scores, places, outcome, leader, bombs, max_stars, overtakes, actions and
// plays by deal (and seat), and bombs_by_stars summed over the deals.
py::dict results_to_arrays(const std::vector<sk::DealResult>& results);

}  // namespace shuangkou_py
