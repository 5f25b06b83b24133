// The action catalogue, observation encoding and the vector env.
#include <algorithm>
#include <atomic>
#include <span>
#include <stdexcept>

#include "common.h"
#include "core/rules_api.h"
#include "rl/results.h"
#include "shuangkou/bots/bot.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/rl/vector_env.h"

namespace shuangkou_py {
namespace {

// The Python face of VectorEnv: numpy views of its fixed buffers, and the
// ragged legal-move arrays handed over (moved, not copied) after each step.
// Threads: the constructor, reset and step release the GIL while C++ plays
// (interruptibly, by Ctrl-C, where a seat is a search bot); every method that
// touches the env holds busy_ (BusyGuard), so one called while another
// thread is inside reset or step raises RuntimeError instead of racing.
class PyVectorEnv {
 public:
  PyVectorEnv(const py::handle& variant, int num_envs, const py::handle& seed, int threads,
              const py::handle& bots, const py::handle& reward, bool dense_mask, int64_t deals,
              int64_t first_deal, const py::kwargs& overrides) {
    sk::VectorEnvOptions o;
    o.rules = make_rules(variant, overrides);
    o.num_envs = num_envs;
    o.seed = seed_arg(seed);
    o.threads = threads;
    const std::vector<py::handle> names = seat_list(bots, "bots (None for an external seat)");
    for (int s = 0; s < sk::kNumSeats; ++s)
      if (!names[s].is_none()) o.bots[s] = bot_arg(names[s], "bot of seat " + std::to_string(s));
    o.reward = sk::parse_reward_mode(text_arg(reward, "reward"));
    o.dense_mask = dense_mask;
    if (deals < -1)
      throw py::value_error("deals must be -1 (endless) or a count >= 0, got " + std::to_string(deals));
    o.deals = deals;
    if (first_deal < 0) throw py::value_error("first_deal must be >= 0, got " + std::to_string(first_deal));
    o.first_deal = static_cast<uint64_t>(first_deal);
    interruptible_ = any_slow(o.bots);
    run_released(interruptible_,
                 [&](const sk::CancelFlag* cancel) { env_ = std::make_unique<sk::VectorEnv>(o, cancel); });
    take_legal();
  }

  void reset(const py::handle& seed) {
    std::optional<uint64_t> s;
    if (!seed.is_none()) s = seed_arg(seed);  // checked before anything changes
    BusyGuard guard(busy_, "VectorEnv.reset");
    run_released(interruptible_, [&](const sk::CancelFlag* cancel) { env_->reset(s, cancel); });
    take_legal();
  }

  void step(const py::array_t<int32_t, py::array::c_style>& actions) {
    if (actions.ndim() != 1 || actions.shape(0) != env_->num_envs())
      throw py::value_error("actions must have shape (" + std::to_string(env_->num_envs()) + ",)");
    std::span<const int32_t> a(actions.data(), static_cast<size_t>(actions.shape(0)));
    BusyGuard guard(busy_, "VectorEnv.step");
    run_released(interruptible_, [&](const sk::CancelFlag* cancel) { env_->step(a, cancel); });
    take_legal();
  }

  // A deep copy: the same deals in the same positions, stepping on independently.
  std::unique_ptr<PyVectorEnv> copy() {
    BusyGuard guard(busy_, "VectorEnv.copy");
    std::unique_ptr<PyVectorEnv> out(new PyVectorEnv());
    out->interruptible_ = interruptible_;
    out->env_ = std::make_unique<sk::VectorEnv>(*env_);
    out->legal_ids = py::array(legal_ids).attr("copy")();
    out->legal_offsets = py::array(legal_offsets).attr("copy")();
    out->legal_features = py::array(legal_features).attr("copy")();
    return out;
  }

  void start_at(int j, int64_t episode) {
    BusyGuard guard(busy_, "VectorEnv.start_at");
    env_->start_at(j, episode);
    take_legal();
  }

  // The env, for a call that reads or changes its state: held busy for the
  // caller's statement (RuntimeError while another thread steps it).
  struct Use {
    BusyGuard guard;
    sk::VectorEnv& env;
  };
  Use use(const char* what) { return Use{BusyGuard(busy_, what), *env_}; }

  template <typename T>
  py::array_t<T> view(T* data, std::vector<py::ssize_t> shape, py::handle self) {
    return py::array_t<T>(shape, data, self);  // the env object keeps the buffer alive
  }

  // For what never changes after construction (num_envs, num_actions, rules).
  const sk::VectorEnv& env() const { return *env_; }
  py::object legal_ids, legal_offsets, legal_features;

 private:
  PyVectorEnv() = default;
  void take_legal() {
    const auto rows = static_cast<py::ssize_t>(env_->legal_ids.size());
    legal_ids = to_numpy(std::move(env_->legal_ids), {rows});
    legal_offsets = to_numpy(std::move(env_->legal_offsets), {env_->num_envs() + 1});
    legal_features = to_numpy(std::move(env_->legal_features), {rows, sk::kMoveFeatureSize});
    env_->legal_ids = {};
    env_->legal_offsets = {};
    env_->legal_features = {};
  }

  std::unique_ptr<sk::VectorEnv> env_;
  std::atomic<bool> busy_{false};
  bool interruptible_ = false;  // a seat is a search bot
};

// A layout as a list of {name, offset, size, meaning} dicts.
py::list slices(const std::vector<sk::ObservationSlice>& layout) {
  py::list out;
  for (const auto& s : layout) {
    py::dict d;
    d["name"] = s.name;
    d["offset"] = s.offset;
    d["size"] = s.size;
    d["meaning"] = s.meaning;
    out.append(d);
  }
  return out;
}

int env_index(PyVectorEnv& e, int j) {
  if (j < 0 || j >= e.env().num_envs())
    throw py::value_error("env must be 0.." + std::to_string(e.env().num_envs() - 1) + ", got " +
                          std::to_string(j));
  return j;
}

}  // namespace

void bind_envs(py::module_& m) {
  py::class_<sk::ActionCatalogue>(m, "ActionCatalogue",
                                  "The fixed action space of a variant: id 0 is the pass, then every pattern "
                                  "(kind + reading) a 27-card hand can play.")
      .def(py::init([](const py::handle& variant, const py::kwargs& kw) {
             return sk::ActionCatalogue(
                 make_rules(variant, kw).catalogue());  // a copy; Rules.catalogue shares
           }),
           py::arg("variant") = "classic")
      .def("__len__", &sk::ActionCatalogue::size)
      .def(
          "pattern",
          [](const sk::ActionCatalogue& c, int id) -> py::object {
            if (id < 0 || id >= c.size())
              throw py::value_error("action id must be 0.." + std::to_string(c.size() - 1) + ", got " +
                                    std::to_string(id));
            return play_or_none(c.pattern(id));
          },
          py::arg("id"), "The pattern of an action id (None for 0, the pass).")
      .def(
          "id_of",
          [](const sk::ActionCatalogue& c, const py::handle& play) {
            if (play.is_none()) return 0;
            if (!py::isinstance<sk::Play>(play))
              throw py::value_error("id_of takes a Play (or None for the pass), got " + shown(play) +
                                    "; read a card string first, e.g. Rules(variant).read(cards)");
            const sk::Play& p = play.cast<const sk::Play&>();
            const int id = c.id_of(p);
            if (id < 0)
              throw py::value_error("the play " + p.cards.to_string() + " (" +
                                    std::string(sk::kind_name(p.kind)) + " " + p.reading.to_string() +
                                    ") has no action id in this variant's catalogue");
            return id;
          },
          py::arg("play"), "The action id of a Play (None: the pass, 0).");

  m.def("observation_size", &sk::observation_size);
  m.def(
      "observation_layout", [] { return slices(sk::observation_layout()); },
      "The observation vector's slices: name, offset, size, meaning.");
  m.def(
      "encode_observation",
      [](const sk::Game& g, const py::handle& seat) { return encode_game(g, seat_arg(seat, "seat")); },
      py::arg("game"), py::arg("seat"), "The observation vector (float32) of a seat in a Game.");
  m.def("state_size", &sk::state_size);
  m.def(
      "state_layout", [] { return slices(sk::state_layout()); },
      "The state vector's slices: the observation's, then every hand.");
  m.def(
      "encode_state",
      [](const sk::Game& g, const py::handle& seat) {
        const int s = seat_arg(seat, "seat");
        py::array_t<float> out(sk::state_size());
        const auto& h = g.history();
        const size_t first = h.size() > sk::kRecentActions ? h.size() - sk::kRecentActions : 0;
        sk::encode_state(g.variant(), g.state(),
                         std::span<const sk::Action>(h.data() + first, h.size() - first), s,
                         out.mutable_data());
        return out;
      },
      py::arg("game"), py::arg("seat"), "The full-information state vector (float32) from a seat's view.");
  m.def(
      "encode_moves",
      [](const std::vector<std::optional<sk::Play>>& plays) {
        py::array_t<float> out(
            {static_cast<py::ssize_t>(plays.size()), static_cast<py::ssize_t>(sk::kMoveFeatureSize)});
        for (size_t i = 0; i < plays.size(); ++i)
          sk::encode_move(plays[i] ? *plays[i] : sk::kPass, out.mutable_data() + i * sk::kMoveFeatureSize);
        return out;
      },
      py::arg("plays"), "Feature rows of plays (None: the pass).");
  m.attr("MOVE_FEATURE_SIZE") = sk::kMoveFeatureSize;
  m.def(
      "move_feature_layout", [] { return slices(sk::move_feature_layout()); },
      "The move-feature row's slices (encode_moves): name, offset, size, meaning.");

  py::class_<PyVectorEnv>(m, "VectorEnvCore", "The C++ vector env (see shuangkou.VectorEnv).")
      .def(py::init<const py::handle&, int, const py::handle&, int, const py::handle&, const py::handle&,
                    bool, int64_t, int64_t, const py::kwargs&>(),
           py::arg("variant"), py::arg("num_envs"), py::arg("seed"), py::arg("threads"), py::arg("bots"),
           py::arg("reward"), py::arg("dense_mask"), py::arg("deals") = -1, py::arg("first_deal") = 0)
      .def(
          "finished_indices",
          [](PyVectorEnv& e, const std::vector<int>& envs) {
            std::vector<int64_t> out;
            auto u = e.use("VectorEnv.finished_indices");
            for (int j : envs) out.push_back(u.env.last_index(env_index(e, j)));
            return out;
          },
          py::arg("envs"), "`deals` mode: the deal index of the deal each of these envs finished last.")
      .def("reset", &PyVectorEnv::reset, py::arg("seed") = py::none(),
           "Starts episode 0 of every env; with a seed, of that base seed from now on.")
      .def_property_readonly("seed", [](PyVectorEnv& e) { return e.use("VectorEnv.seed").env.seed(); })
      .def("copy", &PyVectorEnv::copy, "A deep copy that steps on independently.")
      .def("__copy__", &PyVectorEnv::copy)
      .def(
          "__deepcopy__", [](PyVectorEnv& e, const py::dict&) { return e.copy(); }, py::arg("memo"))
      .def("start_at", &PyVectorEnv::start_at, py::arg("env"), py::arg("episode"),
           "Restarts env j at episode `episode` of the current seed (to restore a snapshot).")
      .def_property_readonly("final_obs",
                             [](py::object self) {
                               auto& e = self.cast<PyVectorEnv&>();
                               return e.view(e.use("VectorEnv.final_obs").env.final_observations(),
                                             {e.env().num_envs(), 4, sk::observation_size()}, self);
                             })
      .def(
          "current_game",
          [](PyVectorEnv& e, int j) {
            return e.use("VectorEnv.current_game").env.current_game(env_index(e, j));
          },
          py::arg("env"), "Env j's current deal as a Game (replayed: for rendering and records).")
      .def(
          "finished_game",
          [](PyVectorEnv& e, int j) {
            return e.use("VectorEnv.finished_game").env.finished_game(env_index(e, j));
          },
          py::arg("env"), "The deal env j finished last, as a Game with its final scores.")
      .def("step", &PyVectorEnv::step, py::arg("actions"))
      .def_property_readonly("num_envs", [](PyVectorEnv& e) { return e.env().num_envs(); })
      .def_property_readonly("num_actions", [](PyVectorEnv& e) { return e.env().num_actions(); })
      .def_property_readonly(
          "rules", [](PyVectorEnv& e) { return PyRules(e.env().rules()); },
          "The rule set (shares its catalogue).")
      .def_property_readonly("obs",
                             [](py::object self) {
                               auto& e = self.cast<PyVectorEnv&>();
                               return e.view(e.use("VectorEnv.obs").env.observations(),
                                             {e.env().num_envs(), sk::observation_size()}, self);
                             })
      .def_property_readonly("mask",
                             [](py::object self) -> py::object {
                               auto& e = self.cast<PyVectorEnv&>();
                               if (!e.env().has_dense_mask()) return py::none();
                               return e.view(e.use("VectorEnv.mask").env.masks(),
                                             {e.env().num_envs(), e.env().num_actions()}, self);
                             })
      .def_property_readonly("current_player",
                             [](py::object self) {
                               auto& e = self.cast<PyVectorEnv&>();
                               return e.view(e.use("VectorEnv.current_player").env.current_players(),
                                             {e.env().num_envs()}, self);
                             })
      .def_property_readonly(
          "rewards",
          [](py::object self) {
            auto& e = self.cast<PyVectorEnv&>();
            return e.view(e.use("VectorEnv.rewards").env.rewards(), {e.env().num_envs(), 4}, self);
          })
      .def_property_readonly("dones",
                             [](py::object self) {
                               auto& e = self.cast<PyVectorEnv&>();
                               return e.view(e.use("VectorEnv.dones").env.dones(), {e.env().num_envs()},
                                             self);
                             })
      .def_property_readonly(
          "final_scores",
          [](py::object self) {
            auto& e = self.cast<PyVectorEnv&>();
            return e.view(e.use("VectorEnv.final_scores").env.final_scores(), {e.env().num_envs(), 4}, self);
          })
      .def_property_readonly("episodes",
                             [](py::object self) {
                               auto& e = self.cast<PyVectorEnv&>();
                               return e.view(e.use("VectorEnv.episodes").env.episodes(), {e.env().num_envs()},
                                             self);
                             })
      .def_readonly("legal_ids", &PyVectorEnv::legal_ids)
      .def_readonly("legal_offsets", &PyVectorEnv::legal_offsets)
      .def_readonly("legal_features", &PyVectorEnv::legal_features)
      .def(
          "state_json",
          [](PyVectorEnv& e, int j) {
            if (j < 0 || j >= e.env().num_envs()) throw py::value_error("env index out of range");
            auto u = e.use("VectorEnv.state_json");
            const sk::GameState& s = u.env.state(j);
            py::dict d;
            d["current_player"] = s.current_player();
            d["hands"] = std::vector<std::string>{s.hand(0).to_string(), s.hand(1).to_string(),
                                                  s.hand(2).to_string(), s.hand(3).to_string()};
            return d;
          },
          py::arg("env"), "For tests: the hands and player to act of env j.")
      .def(
          "recent_actions",
          [](PyVectorEnv& e, int j) {
            if (j < 0 || j >= e.env().num_envs()) throw py::value_error("env index out of range");
            py::list out;
            auto u = e.use("VectorEnv.recent_actions");
            for (const auto& a : u.env.recent(j)) out.append(py::make_tuple(a.seat, play_or_none(a.play)));
            return out;
          },
          py::arg("env"), "The last 8 actions of env j's current deal: (seat, Play or None for a pass).")
      .def(
          "finished_results",
          [](PyVectorEnv& e, const std::vector<int>& envs) {
            std::vector<sk::DealResult> out;
            auto u = e.use("VectorEnv.finished_results");
            for (int j : envs) {
              if (j < 0 || j >= e.env().num_envs()) throw py::value_error("env index out of range");
              out.push_back(u.env.last_result(j));
            }
            return results_to_arrays(out);
          },
          py::arg("envs"), "Per-deal result arrays of the deals these envs finished last.")
      .def_static(
          "episode_seed",
          [](const py::handle& seed, int env, int64_t episode) {
            return sk::VectorEnv::episode_seed(seed_arg(seed), env, episode);
          },
          py::arg("seed"), py::arg("env"), py::arg("episode"));
}

}  // namespace shuangkou_py
