// The Q network and its model files (shuangkou.QNet); the one reader and the
// one writer of the format are the C++ ones.
#include "shuangkou/qnet.h"

#include "common.h"
#include "shuangkou/dmc.h"

namespace shuangkou_py {
namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

sk::QNet make_qnet(int obs_size, int move_size, const std::vector<int>& hidden, const py::dict& tensors,
                   const std::map<std::string, std::string>& metadata) {
  std::map<std::string, std::vector<float>> t;
  for (const auto& [key, value] : tensors) {
    const std::string name = py::cast<std::string>(key);
    const FloatArray a = FloatArray::ensure(value);
    if (!a) throw py::value_error("tensor '" + name + "' is not an array of numbers");
    t[name] = std::vector<float>(a.data(), a.data() + a.size());
  }
  sk::QNetShape shape{obs_size, move_size, hidden};
  for (const auto& [name, dims] : sk::QNet::tensor_shapes(shape)) {
    if (!tensors.contains(name)) continue;  // (the constructor names what is missing)
    const FloatArray a = FloatArray::ensure(tensors[name.c_str()]);
    std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
    if (got != dims) {
      std::string want, have;
      for (int64_t d : dims) want += (want.empty() ? "" : ", ") + std::to_string(d);
      for (int64_t d : got) have += (have.empty() ? "" : ", ") + std::to_string(d);
      throw py::value_error("tensor '" + name + "' has shape (" + have + "), expected (" + want + ")");
    }
  }
  return sk::QNet(shape, t, metadata);
}

}  // namespace

void bind_qnet(py::module_& m) {
  py::class_<sk::QNet>(
      m, "QNet",
      "A Deep Monte-Carlo Q network, evaluated with Eigen (docs/model_format.md): Q(obs, move) for "
      "every legal move of a decision.")
      .def(py::init(&make_qnet), py::arg("obs_size"), py::arg("move_size"), py::arg("hidden"),
           py::arg("tensors"), py::arg("metadata") = std::map<std::string, std::string>{},
           "From named float32 arrays ([out, in] weights, as nn.Linear keeps them); see tensor_shapes.")
      .def_static(
          "load", &sk::QNet::load, py::arg("path"),
          "Reads a model file; ValueError naming the problem for a truncated, foreign or wrong-shaped file.")
      .def_static(
          "from_bytes",
          [](const py::bytes& b) { return sk::QNet::from_bytes(std::string(b), "model bytes"); },
          py::arg("data"))
      .def_static(
          "tensor_shapes",
          [](int obs_size, int move_size, const std::vector<int>& hidden) {
            return sk::QNet::tensor_shapes({obs_size, move_size, hidden});
          },
          py::arg("obs_size"), py::arg("move_size"), py::arg("hidden"),
          "[(name, shape), ...] of a network of this shape, in file order.")
      .def("to_bytes", [](const sk::QNet& q) { return py::bytes(q.to_bytes()); })
      .def_property_readonly("obs_size", [](const sk::QNet& q) { return q.shape().obs_size; })
      .def_property_readonly("move_size", [](const sk::QNet& q) { return q.shape().move_size; })
      .def_property_readonly("hidden", [](const sk::QNet& q) { return q.shape().hidden; })
      .def_property_readonly("metadata", &sk::QNet::metadata)
      .def(
          "tensors",
          [](const sk::QNet& q) {
            py::dict out;
            for (const auto& [name, dims] : sk::QNet::tensor_shapes(q.shape())) {
              std::vector<float> copy = q.tensors().at(name);
              out[name.c_str()] =
                  to_numpy(std::move(copy), std::vector<py::ssize_t>(dims.begin(), dims.end()));
            }
            return out;
          },
          "The named arrays (copies).")
      .def(
          "q_values",
          [](const sk::QNet& q, const FloatArray& obs, const FloatArray& moves) {
            if (obs.ndim() != 1 || obs.shape(0) != q.shape().obs_size)
              throw py::value_error("obs must be float32 [" + std::to_string(q.shape().obs_size) + "]");
            if (moves.ndim() != 2 || moves.shape(1) != q.shape().move_size)
              throw py::value_error("moves must be float32 [k, " + std::to_string(q.shape().move_size) + "]");
            const auto k = static_cast<int>(moves.shape(0));
            std::vector<float> out(static_cast<size_t>(k));
            {
              py::gil_scoped_release release;
              q.q_values(obs.data(), moves.data(), k, out.data());
            }
            return to_numpy(std::move(out), {k});
          },
          py::arg("obs"), py::arg("moves"), "Q of each move row: float32 [k].")
      .def("multiply_adds", &sk::QNet::multiply_adds, py::arg("moves"),
           "Multiply-adds of one decision with this many legal moves.");

  py::class_<sk::DmcActors>(
      m, "DmcActors",
      "Deep Monte-Carlo actors in C++: the learning seats played by one Q network, epsilon-greedy\n"
      "(every seat, or seats 0 and 2 against an opponent bot), a teacher bot taking a share.")
      .def(py::init([](const py::object& variant, const sk::QNet& net, int64_t version, int num_envs,
                       const py::object& seed, int threads, const std::string& reward, double epsilon,
                       int64_t deals, const std::optional<std::string>& opponent,
                       const std::optional<std::string>& teacher, double teacher_prob) {
             sk::DmcActorOptions o;
             o.rules = make_rules(variant, py::kwargs());
             if (num_envs < 1)
               throw py::value_error("num_envs must be at least 1, got " + std::to_string(num_envs));
             o.num_envs = num_envs;
             o.seed = seed_arg(seed);
             o.threads = sk::resolve_threads(threads);
             o.reward = sk::parse_reward_mode(reward);
             o.epsilon = epsilon;
             if (deals < -1) throw py::value_error("deals must be -1 (endless) or a count >= 0");
             o.deals = deals;
             if (opponent) o.opponent = sk::parse_bot(*opponent);
             if (teacher) o.teacher = sk::parse_bot(*teacher);
             o.teacher_prob = teacher_prob;
             return std::make_unique<sk::DmcActors>(o, std::make_shared<const sk::QNet>(net), version);
           }),
           py::arg("variant"), py::arg("net"), py::arg("version") = 0, py::arg("num_envs") = 64,
           py::arg("seed") = 0, py::arg("threads") = 0, py::arg("reward") = "win", py::arg("epsilon") = 0.01,
           py::arg("deals") = -1, py::arg("opponent") = py::none(), py::arg("teacher") = py::none(),
           py::arg("teacher_prob") = 0.0)
      .def(
          "set_network",
          [](sk::DmcActors& a, const sk::QNet& net, int64_t version) {
            a.set_network(std::make_shared<const sk::QNet>(net), version);
          },
          py::arg("net"), py::arg("version"))
      .def(
          "collect",
          [](sk::DmcActors& a, int64_t min_samples) {
            sk::DmcSamples s;
            {
              py::gil_scoped_release release;
              s = a.collect(min_samples);
            }
            const auto n = static_cast<py::ssize_t>(s.size());
            py::dict out;
            out["obs"] = to_numpy(std::move(s.obs), {n, static_cast<py::ssize_t>(sk::observation_size())});
            out["move"] = to_numpy(std::move(s.move), {n, static_cast<py::ssize_t>(sk::kMoveFeatureSize)});
            out["target"] = to_numpy(std::move(s.target), {n});
            out["version"] = to_numpy(std::move(s.version), {n});
            out["seat"] = to_numpy(std::move(s.seat), {n});
            out["deal"] = to_numpy(std::move(s.deal), {n});
            return out;
          },
          py::arg("min_samples"),
          "Plays until finished deals hold at least min_samples decisions (or, with deals >= 0, every deal "
          "is "
          "done); returns them: obs [n, obs_size], move [n, move_size], target [n], version [n], seat [n], "
          "deal [n].")
      .def("set_teacher_prob", &sk::DmcActors::set_teacher_prob, py::arg("p"),
           "The share of the learning seats' decisions the teacher makes, from the next decision on.")
      .def_property_readonly("deals_finished", &sk::DmcActors::deals_finished)
      .def_property_readonly("decisions", &sk::DmcActors::decisions);
}

}  // namespace shuangkou_py
