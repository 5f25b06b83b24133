#include "common.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#include "core/rules_api.h"
#include "shuangkou/core/clip.h"
#include "shuangkou/core/config.h"
#include "shuangkou/rl/encode.h"

namespace shuangkou_py {

std::string shown(const py::handle& obj) { return sk::clip(std::string(py::repr(obj)), 60); }

namespace {

// Text value of a keyword override: bools as true/false, integers (numpy's
// too) as digits; a list of jokers for the wild set.
std::string override_text(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (const auto i = as_integer(value)) return py::str(*i);
  if (py::isinstance<py::str>(value)) return text_arg(value, ("variant parameter '" + name + "'").c_str());
  if ((name == "wild" || name == "wild_jokers") &&
      (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
       py::isinstance<py::set>(value))) {
    std::set<std::string> jokers;
    for (const auto& j : value) jokers.insert(py::str(j).cast<std::string>());
    if (jokers.empty()) return "none";
    if (jokers == std::set<std::string>{"BJ"}) return "BJ";
    if (jokers == std::set<std::string>{"SJ", "BJ"}) return "both";
  }
  throw py::value_error("bad value " + shown(value) + " for variant parameter '" + name +
                        "' (allowed: " + sk::allowed_values(name) + ")");
}

}  // namespace

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

BusyGuard::BusyGuard(std::atomic<bool>& busy, const char* what) : busy_(busy) {
  if (busy_.exchange(true))
    throw std::runtime_error(std::string(what) +
                             ": the object is in use by another thread (its calls must not overlap; use one "
                             "object per thread, or a lock)");
}

void CallingThread::call(const std::function<void()>& fn) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (stopping_) throw sk::Cancelled();
  request_ = &fn;
  served_ = false;
  cv_.notify_all();
  cv_.wait(lock, [&] { return served_; });
  request_ = nullptr;
  if (std::exception_ptr e = std::exchange(request_error_, nullptr)) {
    lock.unlock();
    std::rethrow_exception(e);
  }
}

void run_interruptible(const std::function<void(const sk::CancelFlag&, CallingThread&)>& work) {
  sk::CancelFlag cancel{false};
  CallingThread caller;
  std::exception_ptr failure;
  std::optional<py::error_already_set> signal;  // what a signal handler raised
  std::thread worker([&] {
    try {
      work(cancel, caller);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(caller.mutex_);
    caller.finished_ = true;
    caller.cv_.notify_all();
  });
  while (true) {
    bool finished = false, request = false;
    {
      py::gil_scoped_release nogil;  // (the mutex is never held while the GIL is awaited)
      std::unique_lock<std::mutex> lock(caller.mutex_);
      caller.cv_.wait_for(lock, std::chrono::milliseconds(100),
                          [&] { return caller.finished_ || (caller.request_ && !caller.served_); });
      finished = caller.finished_;
      request = caller.request_ && !caller.served_;
    }
    if (finished) break;
    if (request) {
      std::exception_ptr error;
      if (signal) {
        error = std::make_exception_ptr(sk::Cancelled());
      } else {
        try {
          (*caller.request_)();
        } catch (...) {
          error = std::current_exception();
        }
      }
      std::lock_guard<std::mutex> lock(caller.mutex_);
      caller.request_error_ = error;
      caller.served_ = true;
      caller.cv_.notify_all();
      continue;
    }
    if (!signal && PyErr_CheckSignals() != 0) {
      signal.emplace();  // takes the pending exception (KeyboardInterrupt)
      cancel.store(true);
      std::lock_guard<std::mutex> lock(caller.mutex_);
      caller.stopping_ = true;
    }
  }
  {
    py::gil_scoped_release nogil;
    worker.join();
  }
  if (signal) throw std::move(*signal);  // the worker's Cancelled, or anything else, gives way to it
  if (failure) std::rethrow_exception(failure);
}

void run_released(bool interruptible, const std::function<void(const sk::CancelFlag*)>& work) {
  if (interruptible) {
    run_interruptible([&](const sk::CancelFlag& cancel, CallingThread&) { work(&cancel); });
    return;
  }
  py::gil_scoped_release release;
  work(nullptr);
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

// The rule set of the variant config file at `path`. The one place a binding
// calls back into Python: the core reads no YAML, so a bound constructor given
// a path (Rules, Game, Match, VectorEnv, selfplay, the envs) hands it to
// shuangkou.config.load_rules, which reads the file (PyYAML) and builds the
// rules from its entries (the bound variant_from_entries). Python code that
// holds a path calls load_rules itself, with no round trip.
sk::Rules rules_from_file(const std::string& path) {
  const py::object rules = py::module_::import("shuangkou.config").attr("load_rules")(path);
  if (!py::isinstance<PyRules>(rules))
    throw std::runtime_error("shuangkou.config.load_rules returned " + shown(rules) + ", not a Rules");
  return rules.cast<const PyRules&>().rules();
}

// A preset by name; the error also says how a file path is told apart.
sk::Variant preset_arg(const std::string& name) {
  try {
    return sk::preset(name);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(std::string(e.what()) +
                          "; a variant file path must end in .yaml or .yml or contain a '/'");
  }
}

// The rule set `name` + keyword overrides; the label gains " key=value" each.
sk::Rules with_overrides(std::string label, sk::Variant v, const py::kwargs& overrides) {
  try {
    if (overrides.contains("wild") && overrides.contains("wild_jokers"))
      throw std::invalid_argument(
          "give one of wild= and wild_jokers= (two names of one parameter), not both");
    const auto& names = sk::param_names();
    for (const auto& [key, value] : overrides) {
      const std::string k = py::str(key);
      if (k != "wild" && std::find(names.begin(), names.end(), k) == names.end()) {
        const py::object error = py::module_::import("shuangkou.errors").attr("UnknownArgumentError");
        // Python's own wording first: tools that probe signatures look for it.
        const std::string msg =
            "got an unexpected keyword argument '" + k +
            "' (unknown: neither an argument of this call nor a variant parameter; variant "
            "parameters: " +
            join_names(names) + ")";
        PyErr_SetString(error.ptr(), msg.c_str());
        throw py::error_already_set();
      }
      sk::set_param(v, k, override_text(k, value));
      label += " " + k + "=" + std::string(py::str(value));
    }
    return sk::Rules(std::move(label), v);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

sk::Rules make_rules(const py::handle& variant, const py::kwargs& overrides) {
  if (py::isinstance<PyRules>(variant)) {
    const sk::Rules& given = variant.cast<const PyRules&>().rules();
    if (overrides.empty()) return given;  // the same body: its catalogue is shared, not rebuilt
    return with_overrides(given.name(), given.variant(), overrides);
  }
  const std::string preset_or_path = variant_text(variant);
  if (sk::is_variant_path(preset_or_path)) {
    sk::Rules from_file = rules_from_file(preset_or_path);  // (named by the path)
    if (overrides.empty()) return from_file;
    return with_overrides(from_file.name(), from_file.variant(), overrides);
  }
  return with_overrides(preset_or_path, preset_arg(preset_or_path), overrides);
}

sk::Variant make_variant(const py::handle& variant, const py::kwargs& overrides, std::string* label) {
  sk::Rules r = make_rules(variant, overrides);
  if (label) *label = r.name();
  return r.variant();
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

py::object play_or_none(const sk::Play& p) {
  if (sk::is_pass(p)) return py::none();
  return py::cast(p);
}

py::dict breakdown_dict(const sk::DealScore& d) {
  py::dict out;
  out["outcome"] = std::string(sk::outcome_name(d.outcome));
  out["base"] = std::vector<int64_t>(d.base.begin(), d.base.end());
  out["multiplier"] = d.multiplier;
  out["contribution"] = std::vector<int64_t>(d.contribution.begin(), d.contribution.end());
  out["total"] = std::vector<int64_t>(d.total.begin(), d.total.end());
  return out;
}

// Per-deal results as numpy arrays (see shuangkou.selfplay.SelfPlayResult).
py::dict results_to_arrays(const std::vector<sk::DealResult>& results) {
  const size_t n = results.size();
  std::vector<int64_t> scores(n * 4);
  std::vector<int8_t> places(n * 4), leader(n);
  std::vector<uint8_t> outcome(n), bombs(n * 4), max_stars(n * 4), overtakes(n * 4);
  std::vector<uint16_t> actions(n), plays(n);
  std::vector<int64_t> bombs_by_stars(24, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = results[i];
    for (int s = 0; s < 4; ++s) {
      scores[i * 4 + s] = r.scores[s];
      places[i * 4 + s] = r.places[s];
      bombs[i * 4 + s] = r.bombs[s];
      max_stars[i * 4 + s] = r.max_stars[s];
      overtakes[i * 4 + s] = r.overtakes[s];
    }
    outcome[i] = static_cast<uint8_t>(r.outcome);
    leader[i] = r.leader;
    actions[i] = r.actions;
    plays[i] = r.plays;
    for (int k = 0; k < 24; ++k) bombs_by_stars[k] += r.bombs_by_stars[k];
  }
  const auto rows = static_cast<py::ssize_t>(n);
  py::dict out;
  out["scores"] = to_numpy(std::move(scores), {rows, 4});
  out["places"] = to_numpy(std::move(places), {rows, 4});
  out["outcome"] = to_numpy(std::move(outcome), {rows});
  out["leader"] = to_numpy(std::move(leader), {rows});
  out["bombs"] = to_numpy(std::move(bombs), {rows, 4});
  out["max_stars"] = to_numpy(std::move(max_stars), {rows, 4});
  out["overtakes"] = to_numpy(std::move(overtakes), {rows, 4});
  out["actions"] = to_numpy(std::move(actions), {rows});
  out["plays"] = to_numpy(std::move(plays), {rows});
  out["bombs_by_stars"] = to_numpy(std::move(bombs_by_stars), {24});
  return out;
}

// A float32 observation of `seat` in a Game (the last actions of its history).
py::array_t<float> encode_game(const sk::Game& g, int seat) {
  py::array_t<float> out(sk::observation_size());
  const auto& h = g.history();
  const size_t first = h.size() > sk::kRecentActions ? h.size() - sk::kRecentActions : 0;
  sk::encode_observation(g.variant(), g.state(),
                         std::span<const sk::Action>(h.data() + first, h.size() - first), seat,
                         out.mutable_data());
  return out;
}

py::list history_list(const std::vector<sk::Action>& history) {
  py::list out;
  for (const auto& a : history) out.append(py::make_tuple(a.seat, play_or_none(a.play)));
  return out;
}

std::vector<std::string> hand_strings(const std::array<sk::CardCounts, sk::kNumSeats>& hands) {
  std::vector<std::string> out;
  for (const auto& h : hands) out.push_back(h.to_string());
  return out;
}

py::dict observation_dict(const sk::Observation& o, const std::vector<sk::Action>& history) {
  py::dict d;
  d["seat"] = o.seat;
  d["hand"] = o.own_hand.to_string();
  d["partner_hand"] = o.partner_hand ? py::cast(o.partner_hand->to_string()) : py::none();
  d["cards_left"] = std::vector<int>(o.cards_left.begin(), o.cards_left.end());
  d["played"] = hand_strings(o.played);
  d["top"] = o.top_owner >= 0 ? py::cast(o.top) : py::none();
  d["top_owner"] = o.top_owner >= 0 ? py::cast(o.top_owner) : py::none();
  d["passes"] = o.passes;
  d["finish_order"] = std::vector<int>(o.finish_order.begin(), o.finish_order.begin() + o.num_finished);
  d["scores"] = std::vector<int64_t>(o.running_scores.begin(), o.running_scores.end());
  d["history"] = history_list(history);
  return d;
}

py::object revealed_card_dict(const sk::DealSetup& s) {
  if (s.revealed_card < 0) return py::none();
  py::dict d;
  d["id"] = s.revealed_card;
  d["rank"] = std::string(sk::rank_token(sk::physical_rank(s.revealed_card)));
  d["holder"] = s.revealed_holder;
  d["other_copy_holder"] = s.other_copy_holder;
  return d;
}

py::object swapped_pair(const sk::DealSetup& s) {
  if (s.swapped[0] < 0) return py::none();
  return py::make_tuple(static_cast<int>(s.swapped[0]), static_cast<int>(s.swapped[1]));
}

}  // namespace shuangkou_py
