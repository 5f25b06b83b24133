// Batch self-play with bots played in C++.
#include "shuangkou/rl/selfplay.h"

#include "common.h"
#include "rl/results.h"
#include "shuangkou/bots/bot.h"
#include "shuangkou/rl/threads.h"

namespace shuangkou_py {
namespace {

// Batch self-play with built-in agents. C++ plays on a worker thread with the
// GIL released (run_interruptible: Ctrl-C stops it within a move); the
// progress callback and the record sink run on the calling thread.
py::dict run_selfplay_py(const py::handle& variant, int64_t games, const py::handle& agents, int threads,
                         const py::handle& seed, int64_t replays, const py::object& on_records,
                         const py::object& progress, int64_t first, const py::kwargs& overrides) {
  sk::SelfPlayOptions o;
  o.variant = make_variant(variant, overrides, nullptr);
  o.games = games;
  o.threads = threads;
  o.seed = seed_arg(seed);
  o.replays = replays;
  if (first < 0)
    throw py::value_error("first must be >= 0 (the index of the first deal), got " + std::to_string(first));
  o.first = static_cast<uint64_t>(first);
  const std::vector<py::handle> names = seat_list(agents, "agents (one bot per seat)");
  for (int s = 0; s < sk::kNumSeats; ++s)
    o.agents[s] = bot_arg(names[s], "agent of seat " + std::to_string(s));
  const bool records = !on_records.is_none(), report = !progress.is_none();
  std::vector<sk::DealResult> results;
  int64_t done = 0;
  run_interruptible([&](const sk::CancelFlag& cancel, CallingThread& caller) {
    o.cancel = &cancel;
    if (records)
      o.on_records = [&](const std::vector<std::string>& r) {
        caller.call([&] { on_records(py::cast(r)); });
      };
    std::function<bool(int64_t)> progress_fn;
    if (report)
      progress_fn = [&](int64_t n) {
        bool go_on = true;
        caller.call([&] { go_on = progress(n).cast<bool>(); });
        return go_on;
      };
    done = sk::run_selfplay(o, results, progress_fn);
  });
  results.resize(static_cast<size_t>(done));
  return results_to_arrays(results);
}

}  // namespace

void bind_selfplay(py::module_& m) {
  m.attr("MAX_THREADS") = sk::kMaxThreads;
  m.attr("DEAL_RESULT_BYTES") = sizeof(sk::DealResult);
  m.def("run_selfplay", &run_selfplay_py, py::arg("variant"), py::arg("games"), py::arg("agents"),
        py::arg("threads") = 0, py::arg("seed") = 0, py::arg("replays") = 0,
        py::arg("on_records") = py::none(), py::arg("progress") = py::none(), py::arg("first") = 0,
        "Low-level batch self-play (see shuangkou.selfplay): returns per-deal numpy arrays of deals "
        "first..first+games-1 of the seed.");
}

}  // namespace shuangkou_py
