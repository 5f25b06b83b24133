// Shared by the binding files of shuangkou._core: argument conversion and the
// few result shapes several files return. Type conversion only; the rules
// live in the C++ core.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shuangkou/cards.h"
#include "shuangkou/game.h"
#include "shuangkou/pattern.h"
#include "shuangkou/rules.h"
#include "shuangkou/scoring.h"
#include "shuangkou/selfplay.h"
#include "shuangkou/threads.h"
#include "shuangkou/variant.h"

namespace py = pybind11;
namespace sk = shuangkou;

namespace shuangkou_py {

// An integer argument: a Python int or anything with __index__ (numpy
// integers), never a bool; nullopt otherwise.
std::optional<py::int_> as_integer(const py::handle& obj);
// The UTF-8 text of a str; ValueError naming `what` for one that cannot be
// encoded (lone surrogates).
std::string text_arg(const py::handle& obj, const char* what);
// Cards from a card string or a sequence of card tokens; ValueError naming
// `what` otherwise.
sk::CardCounts to_counts(const py::handle& obj, const char* what);
// A variant from a preset name or a YAML file path, with keyword overrides.
// `label` (optional) describes it ("qianbian max_bomb=10").
sk::Variant make_variant(const py::handle& variant, const py::kwargs& overrides, std::string* label);
// The rule set of a variant argument (a preset name, a YAML path or a Rules)
// with keyword overrides, resolved once; a Rules without overrides is
// returned as it is, sharing its action catalogue.
sk::Rules make_rules(const py::handle& variant, const py::kwargs& overrides);
// The text of a variant argument: a str or an os.PathLike; ValueError otherwise.
std::string variant_text(const py::handle& variant);
// "a, b, c".
std::string join_names(const std::vector<std::string>& names);
// A seat 0..3, a seed 0..2**64-1; ValueError otherwise.
int seat_arg(const py::handle& obj, const char* what);
uint64_t seed_arg(const py::handle& seed);
// A Play, or None for a pass.
py::object play_or_none(const sk::Play& p);
// A deal score as a dict: outcome, base, multiplier, contribution, total.
py::dict breakdown_dict(const sk::DealScore& d);
// Per-deal results as numpy arrays (see shuangkou.selfplay.SelfPlayResult).
py::dict results_to_arrays(const std::vector<sk::DealResult>& results);

// A numpy array that owns a std::vector (no copy).
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), owner);
}

// Each file registers its part of the module.
void bind_rules(py::module_& m);
void bind_game(py::module_& m);
void bind_selfplay(py::module_& m);
void bind_envs(py::module_& m);
void bind_qnet(py::module_& m);

}  // namespace shuangkou_py
