// Results as Python sees them: plays, score breakdowns, observations,
// histories and hands, and numpy arrays that own their vectors.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "shuangkou/core/game.h"
#include "shuangkou/core/pattern.h"
#include "shuangkou/core/scoring.h"

namespace py = pybind11;
namespace shuangkou {}
namespace sk = shuangkou;

namespace shuangkou_py {

// A Play, or None for a pass.
py::object play_or_none(const sk::Play& p);
// A deal score as a dict: outcome, base, multiplier, contribution, total.
py::dict breakdown_dict(const sk::DealScore& d);

// A numpy array that owns a std::vector (no copy).
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), owner);
}

// A float32 observation of `seat` in a Game (the last actions of its history).
py::array_t<float> encode_game(const sk::Game& g, int seat);
// Four card strings, by seat.
std::vector<std::string> hand_strings(const std::array<sk::CardCounts, sk::kNumSeats>& hands);
// Every action of a history: (seat, Play), or (seat, None) for a pass.
py::list history_list(const std::vector<sk::Action>& history);
// What a seat may know, as Game.observation and InfoView.observation give it.
py::dict observation_dict(const sk::Observation& o, const std::vector<sk::Action>& history);
// A deal's revealed card as a dict {id, rank, holder, other_copy_holder}, or None.
py::object revealed_card_dict(const sk::DealSetup& s);
// The two seats a revealed-card swap exchanged, as a tuple, or None.
py::object swapped_pair(const sk::DealSetup& s);

}  // namespace shuangkou_py
