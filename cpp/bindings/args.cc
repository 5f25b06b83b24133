#include "args.h"

#include <stdexcept>
#include <string>

#include "shuangkou/core/clip.h"
#include "shuangkou/core/variant.h"

namespace shuangkou_py {

std::string shown(const py::handle& obj) { return sk::clip(std::string(py::repr(obj)), 60); }

std::optional<py::int_> as_integer(const py::handle& obj) {
  if (py::isinstance<py::bool_>(obj) || PyBool_Check(obj.ptr()) || !PyIndex_Check(obj.ptr()))
    return std::nullopt;
  if (py::isinstance<py::int_>(obj)) return py::reinterpret_borrow<py::int_>(obj);
  PyObject* i = PyNumber_Index(obj.ptr());
  if (!i) {
    PyErr_Clear();
    return std::nullopt;
  }
  return py::reinterpret_steal<py::int_>(i);
}

int64_t int_arg(const py::handle& obj, const char* what, int64_t lo, int64_t hi) {
  const std::string bad = std::string(what) + " must be an integer " + std::to_string(lo) + ".." +
                          std::to_string(hi) + ", got " + shown(obj);
  const auto i = as_integer(obj);
  if (!i) throw py::value_error(bad);
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i->ptr(), &overflow);
  if (overflow != 0 || v < lo || v > hi) throw py::value_error(bad);
  return v;
}

double real_arg(const py::handle& obj, const char* what, double lo, double hi) {
  std::ostringstream range;
  range << lo << ".." << hi;
  const std::string bad = std::string(what) + " must be a number in " + range.str() + ", got " + shown(obj);
  if (PyBool_Check(obj.ptr()) || PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr()))
    throw py::value_error(bad);
  const double v = PyFloat_AsDouble(obj.ptr());  // (numbers with __float__: numpy's included)
  if (PyErr_Occurred()) {                        // not a number, or an int too large for a double
    PyErr_Clear();
    throw py::value_error(bad);
  }
  if (!(v >= lo && v <= hi)) throw py::value_error(bad);  // (NaN fails too)
  return v;
}

std::string text_arg(const py::handle& obj, const char* what) {
  if (!py::isinstance<py::str>(obj))
    throw py::value_error(std::string(what) + " must be text (a str), got " + shown(obj));
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(obj.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    // repr() escapes the surrogate, so the message itself is valid text.
    throw py::value_error(std::string(what) + ": not valid text (it holds a lone surrogate), got " +
                          shown(obj));
  }
  return std::string(data, static_cast<size_t>(size));
}

std::string path_arg(const py::handle& obj, const char* what) {
  py::object path = py::reinterpret_borrow<py::object>(obj);
  if (!py::isinstance<py::str>(path) && !py::isinstance<py::bytes>(path) && py::hasattr(path, "__fspath__"))
    path = py::module_::import("os").attr("fspath")(path);
  std::string out;
  if (py::isinstance<py::bytes>(path)) {
    out = path.cast<std::string>();
  } else if (py::isinstance<py::str>(path)) {
    PyObject* encoded = PyUnicode_EncodeFSDefault(path.ptr());  // undecodable bytes come back as they were
    if (!encoded) {
      PyErr_Clear();
      throw py::value_error(std::string(what) + ": not a valid path (it holds a lone surrogate), got " +
                            shown(obj));
    }
    out = py::reinterpret_steal<py::bytes>(encoded).cast<std::string>();
  } else {
    throw py::value_error(std::string(what) + " must be a path (a str or an os.PathLike), got " + shown(obj));
  }
  if (out.find('\0') != std::string::npos)
    throw py::value_error(std::string(what) + ": a path cannot hold a NUL character, got " + shown(obj));
  return out;
}

std::vector<py::handle> seat_list(const py::handle& obj, const char* what) {
  if (!(py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) || py::len(obj) != sk::kNumSeats)
    throw py::value_error(std::string(what) + ": one entry per seat (a list of " +
                          std::to_string(sk::kNumSeats) + "), got " + shown(obj));
  std::vector<py::handle> out;
  for (const auto& item : obj) out.push_back(item);
  return out;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string variant_text(const py::handle& variant) {
  if (py::isinstance<py::str>(variant)) return text_arg(variant, "variant");
  // A path object (pathlib.Path) names a config file.
  if (py::hasattr(variant, "__fspath__"))
    return text_arg(py::module_::import("os").attr("fspath")(variant), "variant");
  throw py::value_error("variant must be a preset name (" + join_names(sk::preset_names()) +
                        "), the path of a YAML file or a Rules, got " + shown(variant));
}

// Cards from a card string or a sequence of card tokens.
sk::CardCounts to_counts(const py::handle& obj, const char* what) {
  try {
    if (py::isinstance<py::str>(obj)) return sk::CardCounts::parse(text_arg(obj, what));
    if (py::isinstance<py::sequence>(obj)) {
      std::string joined;
      for (const auto& item : obj.cast<py::sequence>()) {
        if (!py::isinstance<py::str>(item))
          throw std::invalid_argument("card tokens must be strings, got " +
                                      std::string(py::str(py::type::of(item))));
        const std::string token = text_arg(item, what);
        if (sk::parse_rank(token) < 0)
          throw std::invalid_argument("unknown card '" + token +
                                      "' (each list item is one card: 3 4 5 6 7 8 9 T/10 J Q K A 2 SJ BJ)");
        joined += token + " ";
      }
      return sk::CardCounts::parse(joined);
    }
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(what) + ": " + e.what());
  }
  throw py::value_error(std::string(what) + ": expected a card string like \"5 6 7 8 BJ\", got " +
                        std::string(py::str(py::type::of(obj))));
}

int seat_arg(const py::handle& obj, const char* what) {
  const auto i = as_integer(obj);
  const std::string bad = std::string(what) + " must be a seat 0..3, got " + shown(obj);
  if (!i) throw py::value_error(bad);
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(i->ptr(), &overflow);
  if (overflow != 0 || s < 0 || s >= sk::kNumSeats) throw py::value_error(bad);
  return static_cast<int>(s);
}

uint64_t seed_arg(const py::handle& seed) {
  const auto i = as_integer(seed);
  const std::string bad = "seed must be an integer 0 <= seed < 2**64, got " + shown(seed);
  if (!i) throw py::value_error(bad);
  const unsigned long long v = PyLong_AsUnsignedLongLong(i->ptr());
  if (PyErr_Occurred()) {  // negative or too large
    PyErr_Clear();
    throw py::value_error(bad);
  }
  return v;
}

}  // namespace shuangkou_py
