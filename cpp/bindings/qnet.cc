// The Q network and its model files (shuangkou.QNet); the one reader and the
// one writer of the format are the C++ ones.
#include "shuangkou/qnet.h"

#include "common.h"

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
}

}  // namespace shuangkou_py
