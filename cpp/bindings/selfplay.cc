// Batch self-play with built-in bots.
#include "common.h"
#include "shuangkou/bots.h"

namespace shuangkou_py {
namespace {

// Batch self-play with built-in agents; the GIL is released while C++ plays.
py::dict run_selfplay_py(const py::handle& variant, int64_t games, const std::vector<std::string>& agents,
                         int threads, const py::handle& seed, int64_t replays, const py::object& on_records,
                         const py::object& progress, const py::kwargs& overrides) {
  sk::SelfPlayOptions o;
  o.variant = make_variant(variant, overrides, nullptr);
  o.games = games;
  o.threads = threads;
  o.seed = seed_arg(seed);
  o.replays = replays;
  if (!on_records.is_none())
    o.on_records = [&on_records](const std::vector<std::string>& records) {
      py::gil_scoped_acquire gil;
      on_records(py::cast(records));
    };
  if (agents.size() != sk::kNumSeats) throw py::value_error("agents must name one bot per seat");
  for (int s = 0; s < sk::kNumSeats; ++s) o.agents[s] = sk::parse_bot(agents[s]);
  std::vector<sk::DealResult> results;
  std::function<bool(int64_t)> report;
  if (!progress.is_none())
    report = [&progress](int64_t done) {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      return progress(done).cast<bool>();
    };
  int64_t done = 0;
  {
    py::gil_scoped_release release;
    done = sk::run_selfplay(o, results, report);
  }
  results.resize(static_cast<size_t>(done));
  return results_to_arrays(results);
}

}  // namespace

void bind_selfplay(py::module_& m) {
  m.def("run_selfplay", &run_selfplay_py, py::arg("variant"), py::arg("games"), py::arg("agents"),
        py::arg("threads") = 0, py::arg("seed") = 0, py::arg("replays") = 0,
        py::arg("on_records") = py::none(), py::arg("progress") = py::none(),
        "Low-level batch self-play (see shuangkou.selfplay): returns per-deal numpy arrays.");
  m.def("bot_names", &sk::bot_names);
  m.def(
      "bot_label", [](const std::string& name) { return sk::bot_label(sk::parse_bot(name)); },
      py::arg("name"),
      "The canonical name of a built-in bot ('heuristic', 'search:400'); ValueError naming an unknown bot or "
      "a "
      "bad budget.");
  m.def("set_builtin_model", &sk::set_builtin_model, py::arg("path"),
        "The model file the bot 'dmc' (without a path) plays; the package registers the weights it ships.");
}

}  // namespace shuangkou_py
