// The Q network and its model files (shuangkou.QNet); the one reader and the
// one writer of the format are the C++ ones.
#include "shuangkou/model/qnet.h"

#include <unistd.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

#include "common.h"
#include "shuangkou/rl/dmc.h"
#include "shuangkou/rl/threads.h"

namespace shuangkou_py {
namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// A name in a dict argument: a str of valid text; ValueError naming `what` otherwise.
std::string name_arg(const py::handle& key, const char* what) {
  if (!py::isinstance<py::str>(key))
    throw py::value_error(std::string(what) + " must be str, got " + shown(key) + " (" +
                          std::string(py::str(py::type::of(key).attr("__name__"))) + ")");
  return text_arg(key, what);
}

// A network's shape from Python arguments: integers (never bools or floats) and a
// list of them; ValueError naming the argument otherwise. Their ranges are the
// core's to check (QNet::tensor_shapes and the constructor: one set of limits).
sk::QNetShape shape_arg(const py::handle& obs_size, const py::handle& move_size, const py::handle& hidden) {
  constexpr int64_t lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
  sk::QNetShape shape;
  shape.obs_size = static_cast<int>(int_arg(obs_size, "obs_size", lo, hi));
  shape.move_size = static_cast<int>(int_arg(move_size, "move_size", lo, hi));
  if (!py::isinstance<py::sequence>(hidden) || py::isinstance<py::str>(hidden))
    throw py::value_error("hidden must be a list of layer widths, got " + shown(hidden));
  for (const auto& w : py::reinterpret_borrow<py::sequence>(hidden))
    shape.hidden.push_back(static_cast<int>(int_arg(w, "a hidden width", lo, hi)));
  return shape;
}

// A float32 array of real numbers, all finite; ValueError naming `what` otherwise
// (complex or object arrays, strings, NaN or infinite values).
FloatArray finite_arg(const py::handle& obj, const char* what) {
  const py::array raw = py::array::ensure(obj);
  if (!raw || raw.dtype().kind() == 'c' || raw.dtype().kind() == 'O' || raw.dtype().kind() == 'U' ||
      raw.dtype().kind() == 'S' || raw.dtype().kind() == 'b')
    throw py::value_error(std::string(what) + " must be an array of real numbers, got " +
                          std::string(py::str(py::type::of(obj).attr("__name__"))));
  FloatArray a = FloatArray::ensure(raw);
  if (!a) throw py::value_error(std::string(what) + " must be an array of real numbers");
  const float* x = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(x[i])) throw py::value_error(std::string(what) + " holds a NaN or infinite value");
  return a;
}

sk::QNet make_qnet(const py::handle& obs_size, const py::handle& move_size, const py::handle& hidden,
                   const py::dict& tensors, const py::dict& metadata) {
  std::map<std::string, std::string> meta;
  for (const auto& [key, value] : metadata) {
    const std::string k = name_arg(key, "metadata keys");
    meta[k] = name_arg(value, ("metadata '" + k + "'").c_str());
  }
  std::map<std::string, std::vector<float>> t;
  for (const auto& [key, value] : tensors) {
    const std::string name = name_arg(key, "tensor names");
    const FloatArray a = FloatArray::ensure(value);
    if (!a) throw py::value_error("tensor '" + name + "' is not an array of numbers");
    t[name] = std::vector<float>(a.data(), a.data() + a.size());
  }
  const sk::QNetShape shape = shape_arg(obs_size, move_size, hidden);
  for (const auto& [name, dims] : sk::QNet::tensor_shapes(shape)) {
    if (!tensors.contains(name)) continue;  // (the constructor names what is missing)
    const FloatArray a = FloatArray::ensure(tensors[name.c_str()]);
    std::vector<int64_t> got(a.shape(), a.shape() + a.ndim());
    if (got != dims) {
      const auto text = [](const std::vector<int64_t>& v) {
        std::string out;
        for (int64_t d : v) out.append(out.empty() ? "" : ", ").append(std::to_string(d));
        return out;
      };
      throw py::value_error("tensor '" + name + "' has shape (" + text(got) + "), expected (" + text(dims) +
                            ")");
    }
  }
  return sk::QNet(shape, std::move(t), std::move(meta));
}

// A copy of q with its metadata changed: a str value sets the key, None removes it.
sk::QNet with_metadata(const sk::QNet& q, const py::dict& changes) {
  std::map<std::string, std::string> meta = q.metadata();
  for (const auto& [key, value] : changes) {
    const std::string k = name_arg(key, "metadata keys");
    if (value.is_none())
      meta.erase(k);
    else
      meta[k] = name_arg(value, ("metadata '" + k + "'").c_str());
  }
  return sk::QNet(q.shape(), q.tensors(), std::move(meta));
}

// The Python face of DmcActors: collect releases the GIL (interruptibly,
// by Ctrl-C, where a built-in seat or the teacher is a search bot) and holds
// busy_, so a second collect meanwhile raises RuntimeError; set_network,
// set_teacher_prob and the counters are safe from any thread at any time.
constexpr int64_t kMaxCount = int64_t{1} << 40;  // the most of any count (samples, deals, versions)
constexpr int64_t kMaxActorEnvs = int64_t{1} << 20;

// ValueError before a collect whose samples alone would not fit in this
// machine's memory (a typo such as 10**12 would otherwise end in bad_alloc).
void check_sample_memory(int64_t min_samples) {
  const int64_t row = 4 * (sk::observation_size() + sk::kMoveFeatureSize + 1) + 8 + 1 + 8;
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0 &&
      static_cast<double>(min_samples) * row > 0.8 * static_cast<double>(pages) * page) {
    std::ostringstream text;
    text << "min_samples=" << min_samples << " needs about " << std::fixed << std::setprecision(1)
         << static_cast<double>(min_samples) * row / (1 << 30)
         << " GiB for its samples, more than 80% of this machine's memory: collect fewer at a time";
    throw py::value_error(text.str());
  }
}

struct PyDmcActors {
  std::unique_ptr<sk::DmcActors> actors;
  bool interruptible = false;
  std::atomic<bool> busy{false};
};

}  // namespace

void bind_qnet(py::module_& m) {
  py::class_<sk::QNet>(
      m, "QNet",
      "A Deep Monte-Carlo Q network, evaluated with Eigen (docs/model_format.md): Q(obs, move) for "
      "every legal move of a decision.")
      .def(py::init(&make_qnet), py::arg("obs_size"), py::arg("move_size"), py::arg("hidden"),
           py::arg("tensors"), py::arg("metadata") = py::dict(),
           "From named float32 arrays ([out, in] weights, as nn.Linear keeps them); see tensor_shapes.")
      .def_static(
          "load", [](const py::handle& path) { return sk::QNet::load(path_arg(path, "path")); },
          py::arg("path"),
          "Reads a model file (a str or os.PathLike path); ValueError naming the file and the problem\n"
          "for one that is not a regular file, truncated, foreign or wrong-shaped (docs/model_format.md).")
      .def_static(
          "from_bytes",
          [](const py::handle& data) {
            if (!PyObject_CheckBuffer(data.ptr()) || py::isinstance<py::str>(data))
              throw py::value_error("data must be bytes (or a bytearray or memoryview), got " +
                                    std::string(py::str(py::type::of(data).attr("__name__"))));
            const py::buffer_info b = py::reinterpret_borrow<py::buffer>(data).request();
            const std::string_view bytes(static_cast<const char*>(b.ptr),
                                         static_cast<size_t>(b.size * b.itemsize));
            return sk::QNet::from_bytes(bytes, "model bytes");
          },
          py::arg("data"), "Parses the bytes of a model file; ValueError naming the problem.")
      .def_static(
          "tensor_shapes",
          [](const py::handle& obs_size, const py::handle& move_size, const py::handle& hidden) {
            return sk::QNet::tensor_shapes(shape_arg(obs_size, move_size, hidden));
          },
          py::arg("obs_size"), py::arg("move_size"), py::arg("hidden"),
          "[(name, shape), ...] of a network of this shape, in file order.")
      .def("to_bytes", [](const sk::QNet& q) { return py::bytes(q.to_bytes()); })
      .def_property_readonly("obs_size", [](const sk::QNet& q) { return q.shape().obs_size; })
      .def_property_readonly("move_size", [](const sk::QNet& q) { return q.shape().move_size; })
      .def_property_readonly("hidden", [](const sk::QNet& q) { return q.shape().hidden; })
      .def_property_readonly("metadata", &sk::QNet::metadata)
      .def("with_metadata", &with_metadata, py::arg("changes"),
           "A copy of this network (the same weights) whose metadata has each key of changes set to\n"
           "its str value, or removed where the value is None; ValueError naming a key or value that\n"
           "is not a str. The network itself is unchanged.")
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
          [](const sk::QNet& q, const py::handle& obs_arg, const py::handle& moves_arg) {
            const FloatArray obs = finite_arg(obs_arg, "obs");
            const FloatArray moves = finite_arg(moves_arg, "moves");
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
      .def(
          "multiply_adds",
          [](const sk::QNet& q, const py::handle& moves) {
            return q.multiply_adds(static_cast<int>(int_arg(moves, "moves", 0, 1 << 24)));
          },
          py::arg("moves"), "Multiply-adds of one decision with this many legal moves.");
  // The format's limits (one set for building, writing and reading).
  py::object qnet = m.attr("QNet");
  qnet.attr("MAX_WIDTH") = sk::kQNetMaxWidth;
  qnet.attr("MAX_HIDDEN_LAYERS") = sk::kQNetMaxHidden;
  qnet.attr("MAX_HEADER_BYTES") = sk::kQNetMaxHeader;

  py::class_<PyDmcActors>(
      m, "DmcActors",
      "Deep Monte-Carlo actors in C++: the learning seats played by one Q network, epsilon-greedy\n"
      "(every seat, or seats 0 and 2 against an opponent bot), a teacher bot taking a share.")
      .def(
          py::init([](const py::object& variant, const sk::QNet& net, const py::handle& version,
                      const py::handle& num_envs, const py::object& seed, const py::handle& threads,
                      const py::handle& reward, const py::handle& epsilon, const py::handle& deals,
                      const py::handle& opponent, const py::handle& teacher, const py::handle& teacher_prob) {
            sk::DmcActorOptions o;
            o.rules = make_rules(variant, py::kwargs());
            o.num_envs = static_cast<int>(int_arg(num_envs, "num_envs", 1, kMaxActorEnvs));
            o.seed = seed_arg(seed);
            o.threads =
                sk::resolve_threads(static_cast<int>(int_arg(threads, "threads", 0, sk::kMaxThreads)));
            o.reward = sk::parse_reward_mode(text_arg(reward, "reward"));
            o.epsilon = real_arg(epsilon, "epsilon", 0.0, 1.0);
            o.deals = int_arg(deals, "deals (-1: endless)", -1, kMaxCount);
            if (!opponent.is_none()) o.opponent = bot_arg(opponent, "opponent");
            if (!teacher.is_none()) o.teacher = bot_arg(teacher, "teacher");
            o.teacher_prob = real_arg(teacher_prob, "teacher_prob", 0.0, 1.0);
            const int64_t first_version = int_arg(version, "version", 0, kMaxCount);
            auto out = std::make_unique<PyDmcActors>();
            out->interruptible = any_slow(std::array{o.opponent, o.teacher});
            auto shared = std::make_shared<const sk::QNet>(net);
            run_released(out->interruptible, [&](const sk::CancelFlag* cancel) {
              out->actors = std::make_unique<sk::DmcActors>(o, shared, first_version, cancel);
            });
            return out;
          }),
          py::arg("variant"), py::arg("net"), py::arg("version") = 0, py::arg("num_envs") = 64,
          py::arg("seed") = 0, py::arg("threads") = 0, py::arg("reward") = "win", py::arg("epsilon") = 0.01,
          py::arg("deals") = -1, py::arg("opponent") = py::none(), py::arg("teacher") = py::none(),
          py::arg("teacher_prob") = 0.0)
      .def(
          "set_network",
          [](PyDmcActors& a, const sk::QNet& net, const py::handle& version) {
            const int64_t v = int_arg(version, "version", 0, kMaxCount);
            a.actors->set_network(std::make_shared<const sk::QNet>(net), v);
          },
          py::arg("net"), py::arg("version"),
          "The network (a copy) and its version, from the next step on; safe while another thread collects.")
      .def(
          "collect",
          [](PyDmcActors& a, const py::handle& min_samples_arg) {
            const int64_t min_samples = int_arg(min_samples_arg, "min_samples", 1, kMaxCount);
            if (a.actors->options().deals < 0)
              check_sample_memory(min_samples);  // (deals mode ends by itself)
            sk::DmcSamples s;
            {
              BusyGuard guard(a.busy, "DmcActors.collect");
              run_released(a.interruptible,
                           [&](const sk::CancelFlag* cancel) { s = a.actors->collect(min_samples, cancel); });
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
          "deal [n]. One collect at a time: a second one from another thread meanwhile raises RuntimeError.")
      .def(
          "set_teacher_prob",
          [](PyDmcActors& a, const py::handle& p) {
            a.actors->set_teacher_prob(real_arg(p, "teacher_prob", 0.0, 1.0));
          },
          py::arg("p"),
          "The share of the learning seats' decisions the teacher makes, from the next step on; safe while "
          "another thread collects.")
      .def_property_readonly("deals_finished",
                             [](const PyDmcActors& a) { return a.actors->deals_finished(); })
      .def_property_readonly("decisions", [](const PyDmcActors& a) { return a.actors->decisions(); });
}

}  // namespace shuangkou_py
