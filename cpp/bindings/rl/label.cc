// The expert labeller (shuangkou/rl/label.h): labels as numpy arrays.
#include "shuangkou/rl/label.h"

#include "common.h"
#include "shuangkou/bots/rollouts.h"
#include "shuangkou/model/encode.h"

namespace shuangkou_py {
namespace {

py::dict label_set_to_arrays(sk::LabelSet&& s) {
  const auto n = static_cast<py::ssize_t>(s.size()), m = static_cast<py::ssize_t>(s.candidates());
  const py::ssize_t states = s.state.empty() ? 0 : n;
  py::dict out;
  out["obs"] = to_numpy(std::move(s.obs), {n, static_cast<py::ssize_t>(sk::observation_size())});
  out["state"] = to_numpy(std::move(s.state), {states, static_cast<py::ssize_t>(sk::state_size())});
  out["deal"] = to_numpy(std::move(s.deal), {n});
  out["ply"] = to_numpy(std::move(s.ply), {n});
  out["seat"] = to_numpy(std::move(s.seat), {n});
  out["agent"] = to_numpy(std::move(s.agent), {n});
  out["legal"] = to_numpy(std::move(s.legal), {n});
  out["worlds"] = to_numpy(std::move(s.worlds), {n});
  out["chosen"] = to_numpy(std::move(s.chosen), {n});
  out["probe_best"] = to_numpy(std::move(s.probe_best), {n});
  out["offset"] = to_numpy(std::move(s.offset), {n + 1});
  out["action"] = to_numpy(std::move(s.action), {m});
  out["move"] = to_numpy(std::move(s.move), {m, static_cast<py::ssize_t>(sk::kMoveFeatureSize)});
  out["why"] = to_numpy(std::move(s.why), {m});
  out["win"] = to_numpy(std::move(s.win), {m});
  out["win_se"] = to_numpy(std::move(s.win_se), {m});
  out["adv"] = to_numpy(std::move(s.adv), {m});
  out["adv_se"] = to_numpy(std::move(s.adv_se), {m});
  out["score"] = to_numpy(std::move(s.score), {m});
  out["score_se"] = to_numpy(std::move(s.score_se), {m});
  return out;
}

sk::BotPtr optional_bot(const py::handle& obj, const char* what) {
  return obj.is_none() ? nullptr : bot_arg(obj, what);
}

// Labels deals first..first+deals-1 (docs/labels.md); C++ plays on a worker
// thread with the GIL released, interruptible by Ctrl-C.
py::dict label_deals_py(const py::handle& variant, int64_t deals, const py::sequence& agents,
                        const py::sequence& weights, const py::handle& seed, int64_t first, int threads,
                        double label_prob, int worlds, int all_legal_up_to, int max_candidates,
                        int random_candidates, const py::handle& guide, int guide_top,
                        const py::handle& probe, bool with_state, const py::handle& world_salt,
                        const py::handle& leaf, int leaf_plies, const py::object& progress) {
  sk::LabelOptions o;
  o.rules = make_rules(variant, py::kwargs());
  o.seed = seed_arg(seed);
  o.first = first;
  o.deals = deals;
  o.threads = threads;
  for (size_t i = 0; i < agents.size(); ++i)
    o.agents.push_back(bot_arg(agents[i], "agents[" + std::to_string(i) + "]"));
  for (size_t i = 0; i < weights.size(); ++i)
    o.weights.push_back(real_arg(weights[i], "weights", 0, std::numeric_limits<double>::max()));
  o.label_prob = label_prob;
  o.worlds = worlds;
  o.all_legal_up_to = all_legal_up_to;
  o.max_candidates = max_candidates;
  o.random_candidates = random_candidates;
  o.guide = optional_bot(guide, "guide");
  o.guide_top = guide_top;
  o.probe = optional_bot(probe, "probe");
  o.with_state = with_state;
  o.world_salt = seed_arg(world_salt);
  o.leaf = optional_bot(leaf, "leaf");
  o.leaf_plies = leaf_plies;
  sk::LabelSet labels;
  run_interruptible([&](const sk::CancelFlag& cancel, CallingThread& caller) {
    o.cancel = &cancel;
    std::function<bool(int64_t)> progress_fn;
    if (!progress.is_none())
      progress_fn = [&](int64_t n) {
        bool go_on = true;
        caller.call([&] { go_on = progress(n).cast<bool>(); });
        return go_on;
      };
    labels = sk::label_deals(o, progress_fn);
  });
  return label_set_to_arrays(std::move(labels));
}

}  // namespace

void bind_label(py::module_& m) {
  m.attr("MAX_LEAF_PLIES") = sk::kMaxLeafPlies;
  m.def("label_deals", &label_deals_py, py::arg("variant"), py::arg("deals"), py::arg("agents"),
        py::arg("weights"), py::arg("seed") = 0, py::arg("first") = 0, py::arg("threads") = 0,
        py::arg("label_prob") = 0.25, py::arg("worlds") = 32, py::arg("all_legal_up_to") = 12,
        py::arg("max_candidates") = 16, py::arg("random_candidates") = 2, py::arg("guide") = py::none(),
        py::arg("guide_top") = 4, py::arg("probe") = py::none(), py::arg("with_state") = true,
        py::arg("world_salt") = 0, py::arg("leaf") = py::none(), py::arg("leaf_plies") = 4,
        py::arg("progress") = py::none(),
        "Low-level expert labeller (see shuangkou.expert.labels and docs/labels.md): deals "
        "first..first+deals-1 "
        "of the seed played by the agents, sampled decisions' candidates scored by determinized rollouts; "
        "returns numpy arrays.");
}

}  // namespace shuangkou_py
