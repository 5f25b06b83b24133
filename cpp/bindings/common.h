// Shared by the binding files of shuangkou._core: argument conversion and the
// few result shapes several files return. Type conversion only; the rules
// live in the C++ core.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cancel.h"
#include "shuangkou/core/cards.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/pattern.h"
#include "shuangkou/core/rules.h"
#include "shuangkou/core/scoring.h"
#include "shuangkou/core/variant.h"
#include "shuangkou/rl/selfplay.h"
#include "shuangkou/rl/threads.h"

namespace py = pybind11;
namespace sk = shuangkou;

namespace shuangkou_py {

// An integer argument: a Python int or anything with __index__ (numpy
// integers), never a bool; nullopt otherwise.
std::optional<py::int_> as_integer(const py::handle& obj);
// A value as error messages show it: its repr, cut to a readable length.
std::string shown(const py::handle& obj);
// An integer argument in lo..hi (never a bool, a float or a str); ValueError
// naming `what`, the value and the range otherwise.
int64_t int_arg(const py::handle& obj, const char* what, int64_t lo, int64_t hi);
// A real-number argument in lo..hi (an int or a float, never a bool, a str or
// NaN); ValueError naming `what`, the value and the range otherwise.
double real_arg(const py::handle& obj, const char* what, double lo, double hi);
// The UTF-8 text of a str; ValueError naming `what` for one that cannot be
// encoded (lone surrogates) or for anything but a str. The one conversion of
// text (names, bots, cards, parameters) handed to the core.
std::string text_arg(const py::handle& obj, const char* what);
// A file path: a str or an os.PathLike, as the OS takes it (os.fsencode);
// ValueError naming `what` otherwise (a lone surrogate that is no undecodable
// byte, a NUL character, another type).
std::string path_arg(const py::handle& obj, const char* what);
// A bot argument: a shuangkou.Bot (its bot, shared) or a bot's name
// (text_arg + make_bot); ValueError naming `what` for anything else, or
// naming the bot for an unknown one (bindings/bots/bots.cc).
sk::BotPtr bot_arg(const py::handle& obj, const std::string& what);
// Whether any of `bots` is slow (search): calls playing it take seconds a
// move, so they run interruptibly (run_released).
template <class Bots>
bool any_slow(const Bots& bots) {
  for (const sk::BotPtr& b : bots)
    if (b && b->slow()) return true;
  return false;
}
// One entry per seat: a list or tuple of four; ValueError naming `what` otherwise.
std::vector<py::handle> seat_list(const py::handle& obj, const char* what);
// Cards from a card string or a sequence of card tokens; ValueError naming
// `what` otherwise.
sk::CardCounts to_counts(const py::handle& obj, const char* what);
// A variant from a preset name or a YAML file path, with keyword overrides.
// `label` (optional) describes it ("qianbian max_bomb=10").
sk::Variant make_variant(const py::handle& variant, const py::kwargs& overrides, std::string* label);
// The rule set of a variant argument (a preset name, a YAML path or a Rules)
// with keyword overrides, resolved once; a Rules without overrides is
// returned as it is, sharing its action catalogue. A path is read by
// shuangkou.config.load_rules (the bindings' one call back into Python: the
// core reads no YAML).
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

// Marks an object busy for the length of a call that releases the GIL (and
// of any call touching the same state meanwhile): a second such call from
// another thread raises RuntimeError naming `what` ("VectorEnv.step")
// instead of racing.
class BusyGuard {
 public:
  BusyGuard(std::atomic<bool>& busy, const char* what);
  ~BusyGuard() { busy_.store(false); }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

 private:
  std::atomic<bool>& busy_;
};

// The thread that called run_interruptible, as seen from its worker.
class CallingThread {
 public:
  // From the worker: runs `fn` on the calling thread, with the GIL held, and
  // waits for it; rethrows here what it threw. Python callbacks (progress,
  // record writers) go through this, so they run where they always ran.
  // Throws sk::Cancelled once the run is being interrupted.
  void call(const std::function<void()>& fn);

 private:
  friend void run_interruptible(const std::function<void(const sk::CancelFlag&, CallingThread&)>& work);
  std::mutex mutex_;
  std::condition_variable cv_;
  const std::function<void()>* request_ = nullptr;  // a call waiting to run
  std::exception_ptr request_error_;
  bool served_ = false;    // the request has run
  bool finished_ = false;  // the worker is done
  bool stopping_ = false;  // interrupted: no more calls
};

// Runs `work` with the GIL released, on a worker thread, while the calling
// thread waits in slices of 100 ms and checks for signals between them
// (PyErr_CheckSignals: on the main thread Python's handlers run, and Ctrl-C
// raises KeyboardInterrupt). When a handler raises, it sets the cancel flag
// `work` is given, which the C++ loops poll, waits for the worker to stop
// (within a move), and raises the handler's exception. Otherwise it returns or
// rethrows as `work` did.
void run_interruptible(const std::function<void(const sk::CancelFlag&, CallingThread&)>& work);

// `work` with the GIL released: through run_interruptible where `interruptible`
// (built-in search seats: calls of seconds), else directly on this thread
// (a thread a call would cost the fast paths), with no cancel flag.
void run_released(bool interruptible, const std::function<void(const sk::CancelFlag*)>& work);

// Each file registers its part of the module.
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

void bind_rules(py::module_& m);
void bind_infoset(py::module_& m);
void bind_game(py::module_& m);
void bind_selfplay(py::module_& m);
void bind_envs(py::module_& m);
void bind_qnet(py::module_& m);
void bind_bots(py::module_& m);

}  // namespace shuangkou_py
