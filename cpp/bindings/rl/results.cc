#include "rl/results.h"

#include "shapes.h"

namespace shuangkou_py {

// Per-deal results as numpy arrays (see shuangkou.selfplay.SelfPlayResult).
py::dict results_to_arrays(const std::vector<sk::DealResult>& results) {
  const size_t n = results.size();
  std::vector<int64_t> scores(n * 4);
  std::vector<int8_t> places(n * 4), leader(n);
  std::vector<uint8_t> outcome(n), bombs(n * 4), max_stars(n * 4), overtakes(n * 4);
  std::vector<uint16_t> actions(n), plays(n);
  std::vector<int64_t> bombs_by_stars(24, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = results[i];
    for (int s = 0; s < 4; ++s) {
      scores[i * 4 + s] = r.scores[s];
      places[i * 4 + s] = r.places[s];
      bombs[i * 4 + s] = r.bombs[s];
      max_stars[i * 4 + s] = r.max_stars[s];
      overtakes[i * 4 + s] = r.overtakes[s];
    }
    outcome[i] = static_cast<uint8_t>(r.outcome);
    leader[i] = r.leader;
    actions[i] = r.actions;
    plays[i] = r.plays;
    for (int k = 0; k < 24; ++k) bombs_by_stars[k] += r.bombs_by_stars[k];
  }
  const auto rows = static_cast<py::ssize_t>(n);
  py::dict out;
  out["scores"] = to_numpy(std::move(scores), {rows, 4});
  out["places"] = to_numpy(std::move(places), {rows, 4});
  out["outcome"] = to_numpy(std::move(outcome), {rows});
  out["leader"] = to_numpy(std::move(leader), {rows});
  out["bombs"] = to_numpy(std::move(bombs), {rows, 4});
  out["max_stars"] = to_numpy(std::move(max_stars), {rows, 4});
  out["overtakes"] = to_numpy(std::move(overtakes), {rows, 4});
  out["actions"] = to_numpy(std::move(actions), {rows});
  out["plays"] = to_numpy(std::move(plays), {rows});
  out["bombs_by_stars"] = to_numpy(std::move(bombs_by_stars), {24});
  return out;
}

}  // namespace shuangkou_py
