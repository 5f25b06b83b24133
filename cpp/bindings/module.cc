// shuangkou._core: the one pybind11 module. It converts types and nothing
// else; rules logic lives in the C++ core.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "shuangkou/cards.h"
#include "shuangkou/config.h"
#include "shuangkou/encode.h"
#include "shuangkou/game.h"
#include "shuangkou/match.h"
#include "shuangkou/movegen.h"
#include "shuangkou/scoring.h"
#include "shuangkou/selfplay.h"
#include "shuangkou/vector_env.h"
#include "shuangkou/pattern.h"
#include "shuangkou/variant.h"

namespace py = pybind11;
namespace sk = shuangkou;

namespace {

// Cards from a card string or a sequence of card tokens.
sk::CardCounts to_counts(const py::handle& obj, const char* what) {
  try {
    if (py::isinstance<py::str>(obj)) return sk::CardCounts::parse(obj.cast<std::string>());
    if (py::isinstance<py::sequence>(obj)) {
      std::string joined;
      for (const auto& item : obj.cast<py::sequence>()) {
        if (!py::isinstance<py::str>(item))
          throw std::invalid_argument("card tokens must be strings, got " +
                                      std::string(py::str(py::type::of(item))));
        const std::string token = item.cast<std::string>();
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

// Text value of a keyword override: bools as true/false, ints as digits; a
// list of jokers for the wild set.
std::string override_text(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  if (py::isinstance<py::int_>(value)) return py::str(value);
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if ((name == "wild" || name == "wild_jokers") &&
      (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value) ||
       py::isinstance<py::set>(value))) {
    std::set<std::string> jokers;
    for (const auto& j : value) jokers.insert(py::str(j).cast<std::string>());
    if (jokers.empty()) return "none";
    if (jokers == std::set<std::string>{"BJ"}) return "BJ";
    if (jokers == std::set<std::string>{"SJ", "BJ"}) return "both";
  }
  throw py::value_error("bad value " + std::string(py::repr(value)) + " for variant parameter '" +
                        name + "' (allowed: " + sk::allowed_values(name) + ")");
}

// A variant from a preset name or a YAML file path, with keyword overrides.
// `label` describes it ("qianbian max_bomb=10").
sk::Variant make_variant(const std::string& preset_or_path, const py::kwargs& overrides, std::string* label) {
  try {
    sk::Variant v = sk::resolve_variant(preset_or_path);
    if (label) *label = preset_or_path;
    for (const auto& [key, value] : overrides) {
      const std::string k = py::str(key);
      sk::set_param(v, k, override_text(k, value));
      if (label) *label += " " + k + "=" + std::string(py::str(value));
    }
    return v;
  } catch (const std::invalid_argument& e) {
    throw py::value_error(e.what());
  }
}

int seat_arg(const py::handle& obj, const char* what) {
  if (!py::isinstance<py::int_>(obj) || py::isinstance<py::bool_>(obj))
    throw py::value_error(std::string(what) + " must be a seat 0..3, got " + std::string(py::repr(obj)));
  const long long s = obj.cast<long long>();
  if (s < 0 || s >= sk::kNumSeats)
    throw py::value_error(std::string(what) + " must be a seat 0..3, got " + std::to_string(s));
  return static_cast<int>(s);
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

class Rules {
 public:
  Rules(const std::string& preset_or_path, const py::kwargs& overrides) {
    variant_ = make_variant(preset_or_path, overrides, &name_);
  }

  const sk::Variant& variant() const { return variant_; }
  const std::string& name() const { return name_; }

  std::optional<sk::Play> read(const py::handle& cards) const {
    return sk::read_best(variant_, to_counts(cards, "cards"));
  }

  std::vector<sk::Play> readings(const py::handle& cards) const {
    const sk::Readings all = sk::read_all(variant_, to_counts(cards, "cards"));
    std::vector<sk::Play> out;
    for (int k = 0; k < sk::kNumKinds; ++k)
      if (all.has(static_cast<sk::Kind>(k))) out.push_back(all.by_kind[k]);
    return out;
  }

  // A play on the table: a Play keeps its kind, a card string takes its
  // strongest reading. Not a valid play -> ValueError.
  sk::Play table_play(const py::handle& obj, const char* what) const {
    std::optional<sk::Play> p;
    if (py::isinstance<sk::Play>(obj)) {
      const auto& given = obj.cast<const sk::Play&>();
      p = sk::read_as(variant_, given.cards, given.kind);
    } else {
      p = sk::read_best(variant_, to_counts(obj, what));
    }
    if (!p)
      throw py::value_error(std::string(what) + " is not a valid play under these rules: '" +
                            describe(obj) + "'");
    return *p;
  }

  bool beats(const py::handle& a, const py::handle& b) const {
    const sk::Play on_table = table_play(b, "b");
    if (py::isinstance<sk::Play>(a)) {
      const auto& given = a.cast<const sk::Play&>();
      const auto p = sk::read_as(variant_, given.cards, given.kind);
      return p && sk::beats(*p, on_table);
    }
    // The mover names the type: any reading of `a` that beats `b` will do.
    const sk::Readings all = sk::read_all(variant_, to_counts(a, "a"));
    for (int k = 0; k < sk::kNumKinds; ++k)
      if (all.has(static_cast<sk::Kind>(k)) && sk::beats(all.by_kind[k], on_table)) return true;
    return false;
  }

  std::vector<sk::Play> legal_moves(const py::handle& hand, const py::handle& previous) const {
    const sk::CardCounts h = to_counts(hand, "hand");
    std::optional<sk::Play> prev;
    if (!previous.is_none()) prev = table_play(previous, "previous");
    moves_.clear();
    if (prev) sk::generate_follows(variant_, h, *prev, moves_);
    else sk::generate_leads(variant_, h, moves_);
    return std::vector<sk::Play>(moves_.begin(), moves_.end());
  }

  py::dict params() const {
    py::dict d;
    for (const auto& [k, v] : sk::params(variant_)) d[py::str(k)] = v;
    return d;
  }

  // RULES sections 7, 8, 8a: a finished deal's score from its places and the
  // bombs played, (seat, cards) in order.
  sk::DealScore score_deal(const py::handle& finish_order, const py::handle& bombs) const {
    if (!py::isinstance<py::sequence>(finish_order) || py::isinstance<py::str>(finish_order))
      throw py::value_error("finish_order must list the four seats by place, e.g. [0, 2, 1, 3]");
    const auto order = finish_order.cast<py::sequence>();
    if (order.size() != sk::kNumSeats)
      throw py::value_error("finish_order must list all four seats by place, got " + std::to_string(order.size()));
    sk::Places places{};
    int seen = 0;
    for (size_t i = 0; i < sk::kNumSeats; ++i) {
      const int s = seat_arg(order[i], "finish_order entry");
      if (seen >> s & 1) throw py::value_error("finish_order must be a permutation of 0..3: seat " + std::to_string(s) + " twice");
      seen |= 1 << s;
      places[i] = static_cast<int8_t>(s);
    }
    sk::BombTally tally;
    if (!py::isinstance<py::sequence>(bombs) || py::isinstance<py::str>(bombs))
      throw py::value_error("bombs must be a list of (seat, cards) pairs");
    size_t i = 0;
    for (const auto& item : bombs.cast<py::sequence>()) {
      const std::string where = "bomb " + std::to_string(i++);
      if (!py::isinstance<py::sequence>(item) || py::isinstance<py::str>(item) || py::len(item) != 2)
        throw py::value_error(where + " must be a (seat, cards) pair");
      const auto pair = item.cast<py::sequence>();
      const int seat = seat_arg(pair[0], (where + " seat").c_str());
      const auto play = sk::read_best(variant_, to_counts(pair[1], (where + " cards").c_str()));
      if (!play || !sk::is_bomb(play->kind))
        throw py::value_error(where + ": '" + std::string(py::str(pair[1])) + "' is not a bomb under these rules");
      try {
        tally.add(seat, play->stars);
      } catch (const std::length_error&) {
        throw py::value_error(where + ": more bombs by seat " + std::to_string(seat) + " than a deal allows");
      }
    }
    return sk::score_deal(variant_, places, tally);
  }

 private:
  static std::string describe(const py::handle& obj) {
    if (py::isinstance<sk::Play>(obj)) return obj.cast<const sk::Play&>().cards.to_string();
    return py::str(obj);
  }

  sk::Variant variant_;
  std::string name_;
  mutable sk::MoveList moves_;
};

std::string play_repr(const sk::Play& p) {
  return "Play(kind='" + std::string(sk::kind_name(p.kind)) + "', cards='" + p.cards.to_string() +
         "', reading='" + p.reading.to_string() + "')";
}

py::object play_or_none(const sk::Play& p) {
  if (sk::is_pass(p)) return py::none();
  return py::cast(p);
}

py::list history_list(const sk::Game& g) {
  py::list out;
  for (const auto& a : g.history()) out.append(py::make_tuple(a.seat, play_or_none(a.play)));
  return out;
}

std::vector<std::string> hand_strings(const std::array<sk::CardCounts, sk::kNumSeats>& hands) {
  std::vector<std::string> out;
  for (const auto& h : hands) out.push_back(h.to_string());
  return out;
}

uint64_t seed_arg(const py::handle& seed) {
  if (!py::isinstance<py::int_>(seed) || py::isinstance<py::bool_>(seed))
    throw py::value_error("seed must be an integer 0 <= seed < 2**64, got " + std::string(py::repr(seed)));
  try {
    return seed.cast<uint64_t>();
  } catch (const py::cast_error&) {
    throw py::value_error("seed must be an integer 0 <= seed < 2**64, got " + std::string(py::repr(seed)));
  }
}

sk::Game make_game(const std::string& variant, const py::handle& seed, const py::handle& hands,
                   const py::handle& leader, const py::kwargs& overrides) {
  const sk::Variant v = make_variant(variant, overrides, nullptr);
  if (hands.is_none()) {
    if (!leader.is_none()) throw py::value_error("leader applies to a set deal (hands=...); a dealt game follows the first-lead rule");
    return sk::Game(v, seed_arg(seed));
  }
  if (!py::isinstance<py::sequence>(hands) || py::isinstance<py::str>(hands) || py::len(hands) != sk::kNumSeats)
    throw py::value_error("hands must list four card strings, one per seat");
  std::array<sk::CardCounts, sk::kNumSeats> h;
  const auto seq = hands.cast<py::sequence>();
  for (int s = 0; s < sk::kNumSeats; ++s) h[s] = to_counts(seq[s], ("hand of seat " + std::to_string(s)).c_str());
  return sk::Game(v, h, leader.is_none() ? 0 : seat_arg(leader, "leader"));
}

// A move from Python: a Play, "pass" (or None), or cards read as the current
// player would play them.
sk::Play move_arg(const sk::Game& g, const py::handle& move) {
  if (move.is_none()) return sk::kPass;
  if (py::isinstance<sk::Play>(move)) return move.cast<sk::Play>();
  if (py::isinstance<py::str>(move)) {
    std::string t = move.cast<std::string>();
    for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t == "pass") return sk::kPass;
  }
  return g.reading_for_current_player(to_counts(move, "move"));
}

py::dict observation_dict(const sk::Game& g, int seat) {
  const sk::Observation o = g.observation(seat);
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
  d["history"] = history_list(g);
  return d;
}

std::vector<int> finish_order_list(const sk::GameState& s) {
  if (s.is_over()) {
    const sk::Places p = s.places();
    return {p.begin(), p.end()};
  }
  return {s.finish_order().begin(), s.finish_order().begin() + s.num_finished()};
}

std::vector<int64_t> scores_list(const sk::Game& g) {
  const auto t = g.state().running_scores(g.variant());
  return {t.begin(), t.end()};
}

// A numpy array that owns a std::vector (no copy).
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), owner);
}

// Per-deal results as numpy arrays (see shuangkou.selfplay.SelfPlayResult).
py::dict results_to_arrays(const std::vector<sk::DealResult>& results) {
  const size_t n = results.size();
  std::vector<int64_t> scores(n * 4);
  std::vector<int8_t> places(n * 4), leader(n);
  std::vector<uint8_t> outcome(n), bombs(n * 4), max_stars(n * 4);
  std::vector<uint16_t> actions(n), plays(n);
  std::vector<int64_t> bombs_by_stars(24, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& r = results[i];
    for (int s = 0; s < 4; ++s) {
      scores[i * 4 + s] = r.scores[s];
      places[i * 4 + s] = r.places[s];
      bombs[i * 4 + s] = r.bombs[s];
      max_stars[i * 4 + s] = r.max_stars[s];
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
  out["actions"] = to_numpy(std::move(actions), {rows});
  out["plays"] = to_numpy(std::move(plays), {rows});
  out["bombs_by_stars"] = to_numpy(std::move(bombs_by_stars), {24});
  return out;
}

// Batch self-play with built-in agents; the GIL is released while C++ plays.
py::dict run_selfplay_py(const std::string& variant, int64_t games, const std::vector<std::string>& agents,
                         int threads, const py::handle& seed, int64_t replays, const std::string& replay_path,
                         const py::object& progress, const py::kwargs& overrides) {
  sk::SelfPlayOptions o;
  o.variant = make_variant(variant, overrides, nullptr);
  o.games = games;
  o.threads = threads;
  o.seed = seed_arg(seed);
  o.replays = replays;
  o.replay_path = replay_path;
  if (agents.size() != sk::kNumSeats) throw py::value_error("agents must name one bot per seat");
  for (int s = 0; s < sk::kNumSeats; ++s) o.agents[s] = sk::parse_bot(agents[s]);
  std::vector<sk::DealResult> results;
  std::function<bool(int64_t)> report;
  if (!progress.is_none())
    report = [&progress](int64_t done) {
      py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      return progress(done).cast<bool>();
    };
  int64_t done = 0;
  {
    py::gil_scoped_release release;
    done = sk::run_selfplay(o, results, report);
  }
  results.resize(static_cast<size_t>(done));
  return results_to_arrays(results);
}

// A float32 observation of `seat` in a Game (the last actions of its history).
py::array_t<float> encode_game(const sk::Game& g, int seat) {
  py::array_t<float> out(sk::observation_size());
  const auto& h = g.history();
  const size_t first = h.size() > sk::kRecentActions ? h.size() - sk::kRecentActions : 0;
  sk::encode_observation(g.variant(), g.state(), std::span<const sk::Action>(h.data() + first, h.size() - first), seat,
                         out.mutable_data());
  return out;
}

// The Python face of VectorEnv: numpy views of its fixed buffers, and the
// ragged legal-move arrays handed over (moved, not copied) after each step.
class PyVectorEnv {
 public:
  PyVectorEnv(const std::string& variant, int num_envs, const py::handle& seed, int threads,
              const std::vector<std::optional<std::string>>& bots, const std::string& reward, bool dense_mask,
              const py::kwargs& overrides) {
    sk::VectorEnvOptions o;
    o.variant = make_variant(variant, overrides, nullptr);
    o.num_envs = num_envs;
    o.seed = seed_arg(seed);
    o.threads = threads;
    if (bots.size() != sk::kNumSeats) throw py::value_error("bots: one entry per seat (None for an external seat)");
    for (int s = 0; s < sk::kNumSeats; ++s) o.bots[s] = bots[s] ? static_cast<int>(sk::parse_bot(*bots[s])) : -1;
    if (reward == "score") o.reward = sk::RewardMode::kScore;
    else if (reward == "win") o.reward = sk::RewardMode::kWin;
    else if (reward == "log") o.reward = sk::RewardMode::kLog;
    else throw py::value_error("reward must be 'score', 'win' or 'log', got '" + reward + "'");
    o.dense_mask = dense_mask;
    {
      py::gil_scoped_release release;
      env_ = std::make_unique<sk::VectorEnv>(o);
    }
    take_legal();
  }

  void reset() {
    {
      py::gil_scoped_release release;
      env_->reset();
    }
    take_legal();
  }

  void step(const py::array_t<int32_t, py::array::c_style>& actions) {
    if (actions.ndim() != 1 || actions.shape(0) != env_->num_envs())
      throw py::value_error("actions must have shape (" + std::to_string(env_->num_envs()) + ",)");
    std::span<const int32_t> a(actions.data(), static_cast<size_t>(actions.shape(0)));
    {
      py::gil_scoped_release release;
      env_->step(a);
    }
    take_legal();
  }

  template <typename T>
  py::array_t<T> view(T* data, std::vector<py::ssize_t> shape, py::handle self) {
    return py::array_t<T>(shape, data, self);  // the env object keeps the buffer alive
  }

  sk::VectorEnv& env() { return *env_; }
  py::object legal_ids, legal_offsets, legal_features;

 private:
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
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Shuangkou (双扣) rules core: card parsing, pattern reading, comparison, move generation";

  py::class_<sk::Play>(m, "Play", "A play: a card set with one reading (kind, key, stars).")
      .def_property_readonly("kind", [](const sk::Play& p) { return std::string(sk::kind_name(p.kind)); },
                             "single, pair, triple, straight, pair_chain, triple_chain, bomb, "
                             "chain_bomb, uneven_chain_bomb, three_kings or heavenly_kings")
      .def_property_readonly("cards", [](const sk::Play& p) { return p.cards.to_string(); },
                             "the cards played, low to high, jokers last")
      .def_property_readonly("reading", [](const sk::Play& p) { return p.reading.to_string(); },
                             "the cards after wild substitution")
      .def_property_readonly("key", [](const sk::Play& p) { return std::string(sk::rank_token(p.key)); },
                             "the rank compared: the highest rank of the reading")
      .def_property_readonly("stars", [](const sk::Play& p) { return static_cast<int>(p.stars); },
                             "0 for non-bombs; bomb stars (card count under bomb_order=count)")
      .def_property_readonly("is_bomb", [](const sk::Play& p) { return sk::is_bomb(p.kind); })
      .def("__len__", [](const sk::Play& p) { return static_cast<int>(p.size); })
      .def("__repr__", &play_repr)
      .def("__str__", [](const sk::Play& p) { return p.cards.to_string(); })
      .def("__eq__", [](const sk::Play& a, const py::object& b) {
        if (!py::isinstance<sk::Play>(b)) return false;
        const auto& o = b.cast<const sk::Play&>();
        return a.kind == o.kind && a.cards == o.cards && a.reading == o.reading;
      })
      .def("__hash__", [](const sk::Play& p) {
        return py::hash(py::make_tuple(static_cast<int>(p.kind), p.cards.bits(), p.reading.bits()));
      });

  py::class_<Rules>(m, "Rules",
                    "Rules of one variant: Rules(preset, **overrides). Presets: classic, baibian, "
                    "qianbian, qianbian_collect, jj; any RULES section 9 parameter may be overridden "
                    "by keyword, e.g. Rules('qianbian', max_bomb=10).")
      .def(py::init<const std::string&, const py::kwargs&>(), py::arg("variant") = "classic")
      .def_property_readonly("name", &Rules::name)
      .def_property_readonly("params", &Rules::params, "every variant parameter, as text")
      .def("read", &Rules::read, py::arg("cards"),
           "Strongest reading of the cards over all kinds, or None if they are no valid play.")
      .def("readings", &Rules::readings, py::arg("cards"),
           "The highest reading of each kind the cards can be read as.")
      .def("beats", &Rules::beats, py::arg("a"), py::arg("b"),
           "True iff a may be played on b (a: any of its readings; b: a Play or its strongest "
           "reading).")
      .def("legal_moves", &Rules::legal_moves, py::arg("hand"), py::arg("previous") = py::none(),
           "Canonical moves: all leads when previous is None, else the plays that beat previous "
           "(passing is implied).")
      .def("score",
           [](const Rules& r, const py::handle& finish_order, const py::handle& bombs) {
             const auto t = r.score_deal(finish_order, bombs).total;
             return std::vector<int64_t>(t.begin(), t.end());
           },
           py::arg("finish_order"), py::arg("bombs") = py::list(),
           "Final deal scores by seat (base x multiplier + contribution). finish_order lists the "
           "four seats by place; bombs are (seat, cards) in the order played.")
      .def("score_breakdown",
           [](const Rules& r, const py::handle& finish_order, const py::handle& bombs) {
             return breakdown_dict(r.score_deal(finish_order, bombs));
           },
           py::arg("finish_order"), py::arg("bombs") = py::list(),
           "As score(), as a dict: outcome, base (by seat), multiplier, contribution (by seat), total.")
      .def("__repr__", [](const Rules& r) { return "Rules('" + r.name() + "')"; });

  py::class_<sk::Game>(m, "Game",
                       "One deal. Game(variant, seed=0) deals from the seed and applies the first-lead "
                       "rule; Game(variant, hands=[4 card strings], leader=0) is a set deal (no shuffle, "
                       "no revealed card). variant: a preset name or a YAML file; keyword overrides as "
                       "for Rules. Seats 0 and 2 are partners, 1 and 3.")
      .def(py::init(&make_game), py::arg("variant") = "classic", py::arg("seed") = 0, py::arg("hands") = py::none(),
           py::arg("leader") = py::none())
      .def("current_player", [](const sk::Game& g) { return g.state().current_player(); },
           "The seat to act; -1 once the deal is over.")
      .def("legal_moves",
           [](const sk::Game& g) {
             sk::MoveList moves;
             g.legal_moves(moves);
             return std::vector<sk::Play>(moves.begin(), moves.end());
           },
           "Canonical plays of the current player; passing is legal too whenever can_pass().")
      .def("can_pass", [](const sk::Game& g) { return g.state().can_pass(); },
           "True when the current player may pass (not when leading a trick).")
      .def("is_leading", [](const sk::Game& g) { return g.state().is_leading(); })
      .def("apply",
           [](sk::Game& g, const py::handle& move) {
             g.apply(move_arg(g, move));
             return play_or_none(g.history().back().play);
           },
           py::arg("move"),
           "Plays a Play, a card string (read as the trick requires: its kind when following, "
           "else the strongest reading) or 'pass'. An illegal move raises ValueError and changes "
           "nothing. Returns the play made (None for a pass).")
      .def("is_over", [](const sk::Game& g) { return g.state().is_over(); })
      .def("scores", &scores_list,
           "Deal scores by seat once over; before that, the points credited so far "
           "(contributions at the moment of each bomb).")
      .def("score_breakdown",
           [](const sk::Game& g) {
             if (!g.state().is_over()) throw py::value_error("the deal is not over");
             return breakdown_dict(g.state().score(g.variant()));
           })
      .def("outcome",
           [](const sk::Game& g) -> py::object {
             if (!g.state().is_over()) return py::none();
             return py::cast(std::string(sk::outcome_name(g.state().score(g.variant()).outcome)));
           },
           "'double', 'single' or 'draw' once over, else None.")
      .def("hand", [](const sk::Game& g, const py::handle& seat) { return g.state().hand(seat_arg(seat, "seat")).to_string(); },
           py::arg("seat"))
      .def("played", [](const sk::Game& g, const py::handle& seat) { return g.state().played(seat_arg(seat, "seat")).to_string(); },
           py::arg("seat"), "The cards a seat has played so far.")
      .def("initial_hands", [](const sk::Game& g) { return hand_strings(g.initial_hands()); },
           "The hands by seat at the start (after any revealed-card swap).")
      .def("top", [](const sk::Game& g) -> py::object {
             return g.state().top_owner() >= 0 ? py::cast(g.state().top()) : py::none();
           }, "The play to beat, or None when the current player leads.")
      .def("top_owner", [](const sk::Game& g) -> py::object {
             return g.state().top_owner() >= 0 ? py::cast(g.state().top_owner()) : py::none();
           })
      .def("history", &history_list, "Every action so far: (seat, Play), or (seat, None) for a pass.")
      .def("finish_order", [](const sk::Game& g) { return finish_order_list(g.state()); },
           "Seats that went out, in order; once over, all four seats by place.")
      .def("observation", [](const sk::Game& g, const py::handle& seat) {
             return observation_dict(g, seat.is_none() ? g.state().current_player() : seat_arg(seat, "seat"));
           }, py::arg("seat") = py::none(),
           "What a seat may know: own hand, the partner's only where the variant shows it (JJ), "
           "cards left, cards played, the trick, places, points so far, all plays.")
      .def_property_readonly("leader", [](const sk::Game& g) { return g.setup().leader; })
      .def_property_readonly("revealed_card", [](const sk::Game& g) -> py::object {
             const sk::DealSetup& s = g.setup();
             if (s.revealed_card < 0) return py::none();
             py::dict d;
             d["id"] = s.revealed_card;
             d["rank"] = std::string(sk::rank_token(sk::physical_rank(s.revealed_card)));
             d["holder"] = s.revealed_holder;
             d["other_copy_holder"] = s.other_copy_holder;
             return d;
           })
      .def_property_readonly("swapped", [](const sk::Game& g) -> py::object {
             const auto& w = g.setup().swapped;
             if (w[0] < 0) return py::none();
             return py::make_tuple(static_cast<int>(w[0]), static_cast<int>(w[1]));
           }, "The two seats whose hands the revealed-card rule exchanged, or None.")
      .def_property_readonly("params", [](const sk::Game& g) {
             py::dict d;
             for (const auto& [k, v] : sk::params(g.variant())) d[py::str(k)] = v;
             return d;
           })
      .def("to_json", &sk::Game::to_json, "A JSON record that Game.from_json replays exactly.")
      .def_static("from_json", [](const std::string& text) { return sk::Game::from_json(text); }, py::arg("record"))
      .def("clone", [](const sk::Game& g) { return sk::Game(g); })
      .def("__copy__", [](const sk::Game& g) { return sk::Game(g); })
      .def("__deepcopy__", [](const sk::Game& g, py::dict) { return sk::Game(g); }, py::arg("memo"))
      .def("__repr__", [](const sk::Game& g) {
        return "<Game " + std::string(g.state().is_over() ? "over" : "to act: seat " + std::to_string(g.state().current_player())) +
               ", " + std::to_string(g.history().size()) + " actions>";
      });

  py::class_<sk::Match>(m, "Match",
                        "A match of several deals: Match(variant, seed=0, deals=10). Players 0..3 start "
                        "in seats 0..3 and move with the revealed-card rule; points accumulate per player.")
      .def(py::init([](const std::string& variant, const py::handle& seed, int deals, const py::kwargs& kw) {
             return sk::Match(make_variant(variant, kw, nullptr), seed_arg(seed), deals);
           }),
           py::arg("variant") = "classic", py::arg("seed") = 0, py::arg("deals") = 1)
      .def_property_readonly("game", [](sk::Match& m) -> sk::Game& { return m.game(); },
                             py::return_value_policy::reference_internal, "The current deal (seats, not players).")
      .def("next_deal", &sk::Match::next_deal,
           "Credits the finished deal to its players and deals the next (unless the match is over).")
      .def("is_over", &sk::Match::is_over)
      .def_property_readonly("num_deals", &sk::Match::num_deals)
      .def_property_readonly("deals_played", &sk::Match::deals_played)
      .def("totals", [](const sk::Match& m) { return std::vector<int64_t>(m.totals().begin(), m.totals().end()); },
           "Cumulative points by player.")
      .def("player_in_seat", [](const sk::Match& m, const py::handle& s) { return m.player_in_seat(seat_arg(s, "seat")); })
      .def("seat_of", [](const sk::Match& m, const py::handle& p) { return m.seat_of(seat_arg(p, "player")); })
      .def("seating", [](const sk::Match& m) {
             std::vector<int> out;
             for (int s = 0; s < sk::kNumSeats; ++s) out.push_back(m.player_in_seat(s));
             return out;
           }, "The player in each seat of the current deal.")
      .def("titles", [](const sk::Match& m) {
             py::list out;
             for (int p = 0; p < sk::kNumSeats; ++p) {
               const auto t = sk::level_title(m.totals()[p]);
               out.append(py::make_tuple(t.level, std::string(t.title)));
             }
             return out;
           }, "(level, title) of each player's total (RULES section 12).")
      .def("results", [](const sk::Match& m) {
             py::list out;
             for (const auto& r : m.results()) {
               py::dict d;
               d["seating"] = std::vector<int>(r.player_in_seat.begin(), r.player_in_seat.end());
               d["finish_order"] = std::vector<int>(r.places.begin(), r.places.end());
               d["outcome"] = std::string(sk::outcome_name(r.outcome));
               d["points"] = std::vector<int64_t>(r.points_by_player.begin(), r.points_by_player.end());
               out.append(d);
             }
             return out;
           }, "One dict per finished deal: seating, finish_order (seats), outcome, points (by player).");

  m.def("level_title", [](int64_t total) {
          const auto t = sk::level_title(total);
          return py::make_tuple(t.level, std::string(t.title));
        }, py::arg("total_points"), "(level number, title) for accumulated points (RULES section 12).");

  m.def("run_selfplay", &run_selfplay_py, py::arg("variant"), py::arg("games"), py::arg("agents"),
        py::arg("threads") = 0, py::arg("seed") = 0, py::arg("replays") = 0, py::arg("replay_path") = "",
        py::arg("progress") = py::none(),
        "Low-level batch self-play (see shuangkou.selfplay): returns per-deal numpy arrays.");
  m.def("bot_names", &sk::bot_names);

  py::class_<sk::ActionCatalogue>(m, "ActionCatalogue",
                                  "The fixed action space of a variant: id 0 is the pass, then every pattern "
                                  "(kind + reading) a 27-card hand can play.")
      .def(py::init([](const std::string& variant, const py::kwargs& kw) {
             return sk::ActionCatalogue(make_variant(variant, kw, nullptr));
           }),
           py::arg("variant") = "classic")
      .def("__len__", &sk::ActionCatalogue::size)
      .def("pattern", [](const sk::ActionCatalogue& c, int id) -> py::object {
             if (id < 0 || id >= c.size())
               throw py::value_error("action id must be 0.." + std::to_string(c.size() - 1) + ", got " + std::to_string(id));
             return play_or_none(c.pattern(id));
           }, py::arg("id"), "The pattern of an action id (None for 0, the pass).")
      .def("id_of", [](const sk::ActionCatalogue& c, const py::handle& play) {
             if (play.is_none()) return 0;
             const int id = c.id_of(play.cast<sk::Play>());
             if (id < 0) throw py::value_error("this play has no action id (more than 27 cards)");
             return id;
           }, py::arg("play"), "The action id of a Play (None: the pass, 0).");

  m.def("observation_size", &sk::observation_size);
  m.def("observation_layout", [] {
    py::list out;
    for (const auto& s : sk::observation_layout()) {
      py::dict d;
      d["name"] = s.name;
      d["offset"] = s.offset;
      d["size"] = s.size;
      d["meaning"] = s.meaning;
      out.append(d);
    }
    return out;
  }, "The observation vector's slices: name, offset, size, meaning.");
  m.def("encode_observation", [](const sk::Game& g, const py::handle& seat) {
          return encode_game(g, seat_arg(seat, "seat"));
        }, py::arg("game"), py::arg("seat"), "The observation vector (float32) of a seat in a Game.");
  m.def("encode_moves", [](const std::vector<std::optional<sk::Play>>& plays) {
          py::array_t<float> out({static_cast<py::ssize_t>(plays.size()), static_cast<py::ssize_t>(sk::kMoveFeatureSize)});
          for (size_t i = 0; i < plays.size(); ++i)
            sk::encode_move(plays[i] ? *plays[i] : sk::kPass, out.mutable_data() + i * sk::kMoveFeatureSize);
          return out;
        }, py::arg("plays"), "Feature rows of plays (None: the pass).");
  m.attr("MOVE_FEATURE_SIZE") = sk::kMoveFeatureSize;

  py::class_<PyVectorEnv>(m, "VectorEnvCore", "The C++ vector env (see shuangkou.VectorEnv).")
      .def(py::init<const std::string&, int, const py::handle&, int, const std::vector<std::optional<std::string>>&,
                    const std::string&, bool, const py::kwargs&>(),
           py::arg("variant"), py::arg("num_envs"), py::arg("seed"), py::arg("threads"), py::arg("bots"),
           py::arg("reward"), py::arg("dense_mask"))
      .def("reset", &PyVectorEnv::reset)
      .def("step", &PyVectorEnv::step, py::arg("actions"))
      .def_property_readonly("num_envs", [](PyVectorEnv& e) { return e.env().num_envs(); })
      .def_property_readonly("num_actions", [](PyVectorEnv& e) { return e.env().num_actions(); })
      .def_property_readonly("obs", [](py::object self) {
             auto& e = self.cast<PyVectorEnv&>();
             return e.view(e.env().observations(), {e.env().num_envs(), sk::observation_size()}, self);
           })
      .def_property_readonly("mask", [](py::object self) -> py::object {
             auto& e = self.cast<PyVectorEnv&>();
             if (!e.env().has_dense_mask()) return py::none();
             return e.view(e.env().masks(), {e.env().num_envs(), e.env().num_actions()}, self);
           })
      .def_property_readonly("current_player", [](py::object self) {
             auto& e = self.cast<PyVectorEnv&>();
             return e.view(e.env().current_players(), {e.env().num_envs()}, self);
           })
      .def_property_readonly("rewards", [](py::object self) {
             auto& e = self.cast<PyVectorEnv&>();
             return e.view(e.env().rewards(), {e.env().num_envs(), 4}, self);
           })
      .def_property_readonly("dones", [](py::object self) {
             auto& e = self.cast<PyVectorEnv&>();
             return e.view(e.env().dones(), {e.env().num_envs()}, self);
           })
      .def_property_readonly("final_scores", [](py::object self) {
             auto& e = self.cast<PyVectorEnv&>();
             return e.view(e.env().final_scores(), {e.env().num_envs(), 4}, self);
           })
      .def_property_readonly("episodes", [](py::object self) {
             auto& e = self.cast<PyVectorEnv&>();
             return e.view(e.env().episodes(), {e.env().num_envs()}, self);
           })
      .def_readonly("legal_ids", &PyVectorEnv::legal_ids)
      .def_readonly("legal_offsets", &PyVectorEnv::legal_offsets)
      .def_readonly("legal_features", &PyVectorEnv::legal_features)
      .def("state_json", [](PyVectorEnv& e, int j) {
             if (j < 0 || j >= e.env().num_envs()) throw py::value_error("env index out of range");
             const sk::GameState& s = e.env().state(j);
             py::dict d;
             d["current_player"] = s.current_player();
             d["hands"] = std::vector<std::string>{s.hand(0).to_string(), s.hand(1).to_string(), s.hand(2).to_string(),
                                                  s.hand(3).to_string()};
             return d;
           }, py::arg("env"), "For tests: the hands and player to act of env j.")
      .def("finished_results", [](PyVectorEnv& e, const std::vector<int>& envs) {
             std::vector<sk::DealResult> out;
             for (int j : envs) {
               if (j < 0 || j >= e.env().num_envs()) throw py::value_error("env index out of range");
               out.push_back(e.env().last_result(j));
             }
             return results_to_arrays(out);
           }, py::arg("envs"), "Per-deal result arrays of the deals these envs finished last.")
      .def_static("episode_seed", [](const py::handle& seed, int env, int64_t episode) {
             return sk::VectorEnv::episode_seed(seed_arg(seed), env, episode);
           }, py::arg("seed"), py::arg("env"), py::arg("episode"));

  m.def("parse_cards",
        [](const py::handle& cards) { return to_counts(cards, "cards").to_string(); },
        py::arg("cards"),
        "Validates a card string (\"10\" accepted for T) and returns it normalised: tokens "
        "low to high, jokers last.");
  m.def("preset_names", &sk::preset_names);
  m.def("param_names", &sk::param_names);
  m.attr("MAX_MOVES") = sk::kMaxMoves;
  m.attr("GAME_STATE_BYTES") = sizeof(sk::GameState);
  m.attr("DEAL_RESULT_BYTES") = sizeof(sk::DealResult);
}
