// Bots as Python objects (shuangkou.Bot): made once from a name or a network,
// then handed to selfplay, the arena, the envs and the actors, which play the
// same C++ object on every thread.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common.h"
#include "shuangkou/bots/bot.h"
#include "shuangkou/model/encode.h"
#include "shuangkou/model/qnet.h"

namespace shuangkou_py {

namespace {

// shuangkou.Bot: one bot, shared and read-only.
struct PyBot {
  sk::BotPtr bot;
  bool named = true;  // made from a name, which makes it again (pickling); false for Bot.dmc
};

const char* arg_kind(sk::BotEntry::Arg a) {
  switch (a) {
    case sk::BotEntry::Arg::kNone:
      return "none";
    case sk::BotEntry::Arg::kOptional:
      return "optional";
    case sk::BotEntry::Arg::kRequired:
      return "required";
  }
  return "none";
}

// The deal's last actions, as a bot is handed them (Decision::recent).
std::span<const sk::Action> recent_of(const sk::Game& game) {
  const auto& history = game.history();
  const size_t from = history.size() > sk::kRecentActions ? history.size() - sk::kRecentActions : 0;
  return {history.data() + from, history.size() - from};
}

// The bot's action id in `game` (see Bot.step's docstring).
int step(const PyBot& b, const sk::Game& game, const py::handle& seed) {
  const sk::GameState& s = game.state();
  if (s.is_over()) throw py::value_error("Bot.step: the deal is over; there is no player to act");
  b.bot->check_variant(game.variant());
  const std::span<const sk::Action> recent = recent_of(game);
  const uint64_t stream =
      seed.is_none() ? sk::mix64(sk::agent_seed(game.setup().seed) + game.history().size()) : seed_arg(seed);
  sk::Play play = sk::kPass;
  run_released(b.bot->slow(), [&](const sk::CancelFlag* cancel) {
    sk::MoveList scratch;
    sk::SplitMix64 rng(stream);
    play = sk::choose_action(*b.bot, game.variant(), s, recent, scratch, rng, cancel);
  });
  return game.rules().catalogue().id_of(play);
}

// The bot's values of the legal actions in `game` (see Bot.values' docstring).
py::object values(const PyBot& b, const sk::Game& game) {
  const sk::GameState& s = game.state();
  if (s.is_over()) throw py::value_error("Bot.values: the deal is over; there is no player to act");
  b.bot->check_variant(game.variant());
  const std::span<const sk::Action> recent = recent_of(game);
  sk::MoveList moves;
  s.legal_moves(game.variant(), moves);
  std::vector<float> q(static_cast<size_t>(moves.size()) + (s.can_pass() ? 1 : 0));
  sk::SplitMix64 rng(0);  // (values draw nothing; Decision wants a stream)
  if (!b.bot->values(sk::Decision{game.variant(), s, recent, moves, rng, nullptr}, q)) return py::none();
  const sk::ActionCatalogue& catalogue = game.rules().catalogue();
  py::dict out;
  if (s.can_pass()) out[py::int_(catalogue.id_of(sk::kPass))] = q.back();
  for (int i = 0; i < moves.size(); ++i) out[py::int_(catalogue.id_of(moves[i]))] = q[static_cast<size_t>(i)];
  return out;
}

}  // namespace

sk::BotPtr bot_arg(const py::handle& obj, const std::string& what) {
  if (py::isinstance<PyBot>(obj)) return obj.cast<const PyBot&>().bot;
  if (!py::isinstance<py::str>(obj))
    throw py::value_error(what + ": a bot is a shuangkou.Bot or a bot's name, got " + shown(obj));
  const std::string text = text_arg(obj, what.c_str());
  if (text.find('\0') != std::string::npos)  // (a C++ message would end at it)
    throw py::value_error(what + ": a bot name holds no NUL character, got " + shown(obj));
  return sk::make_bot(text);  // (its errors name the bot: ValueError)
}

void bind_bots(py::module_& m) {
  py::class_<PyBot>(m, "Bot",
                    "A built-in bot, made once and played in C++ (docs/heuristic.md): Bot('heuristic'),\n"
                    "Bot('search:400'), Bot('dmc:PATH'), or Bot.dmc(qnet) for a network in memory. Pass it\n"
                    "wherever an agent is taken; every thread plays the same read-only object.")
      .def(py::init([](const py::handle& name) { return PyBot{bot_arg(name, "Bot(name)")}; }),
           py::arg("name"),
           "The bot a name stands for (shuangkou.bot_registry() lists them); ValueError naming an unknown\n"
           "bot, a bad argument, or what is wrong with a model file.")
      .def_static(
          "dmc",
          [](const sk::QNet& net, const py::handle& name) {
            const std::string label = text_arg(name, "Bot.dmc name");
            if (label.empty() || label.find('\0') != std::string::npos)
              throw py::value_error("Bot.dmc: name must be non-empty text without NUL, got " + shown(name));
            return PyBot{sk::make_dmc_bot(std::make_shared<const sk::QNet>(net), label), false};
          },
          py::arg("qnet"), py::arg("name") = "qnet",
          "The dmc bot playing a copy of `qnet` as it is now (later changes to it are not seen),\n"
          "labelled `name`; ValueError if its input sizes are not this build's.")
      .def_property_readonly(
          "name", [](const PyBot& b) { return b.bot->label(); },
          "Its label: the name it was made from ('search:400'), or Bot.dmc's name.")
      .def_property_readonly(
          "slow", [](const PyBot& b) { return b.bot->slow(); },
          "True for bots that take long over a move (search): runs report progress more often.")
      .def("step", &step, py::arg("game"), py::arg("seed") = py::none(),
           "The action id (game.rules.catalogue) the bot plays for the player to act in `game`: a\n"
           "legal id. Its random stream is seeded from `seed`, or else from the game's deal seed and\n"
           "the number of actions so far, so the same position gives the same answer. ValueError\n"
           "once the deal is over.")
      .def("values", &values, py::arg("game"),
           "The bot's value of every legal action for the player to act in `game`, as a dict\n"
           "{action id: value} (the dmc bot: its network's Q values, the expected final score), or\n"
           "None for a bot that rates no actions. ValueError once the deal is over.")
      .def(
          "counters",
          [](const PyBot& b) {
            py::dict out;
            for (const auto& [name, value] : b.bot->counters()) out[py::str(name)] = value;
            return out;
          },
          "Named statistics of the bot's play so far, over every thread that played it: for a\n"
          "guided search ('dmc+search') {'decisions', 'searched', 'changed'}; {} for most bots.")
      .def(
          "check_variant",
          [](const PyBot& b, const py::handle& variant) {
            b.bot->check_variant(make_rules(variant, py::kwargs()).variant());
          },
          py::arg("variant"),
          "None if the bot can play `variant` (a preset name, a variant file or a Rules); ValueError\n"
          "naming the problem if not: the built-in 'dmc' plays only the rule sets it ships a network\n"
          "for (shuangkou.builtin_models()). Every runner asks before its first deal.")
      .def("__repr__",
           [](const PyBot& b) { return "Bot(" + std::string(py::repr(py::str(b.bot->label()))) + ")"; })
      .def("__eq__",
           [](const PyBot& a, const py::handle& other) {
             return py::isinstance<PyBot>(other) && other.cast<const PyBot&>().bot == a.bot;
           })
      .def("__hash__", [](const PyBot& b) { return std::hash<const void*>()(b.bot.get()); })
      // Read-only: a copy is the same bot. Pickled by its name, made again (a model
      // file read again) when unpickled.
      .def("__copy__", [](const PyBot& b) { return b; })
      .def(
          "__deepcopy__", [](const PyBot& b, const py::handle&) { return b; }, py::arg("memo"))
      .def(py::pickle(
          [](const PyBot& b) {
            if (!b.named)
              throw py::type_error("Bot '" + b.bot->label() +
                                   "' plays a network held in memory (Bot.dmc) and cannot be pickled: save "
                                   "the network to a model file and use Bot('dmc:PATH')");
            return py::make_tuple(b.bot->label());
          },
          [](const py::tuple& t) {
            if (t.size() != 1) throw py::value_error("Bot: bad pickled state");
            return PyBot{bot_arg(t[0], "Bot(name)")};
          }));

  m.def(
      "bot_registry",
      [] {
        py::list out;
        for (const sk::BotEntry& e : sk::bot_registry()) {
          py::dict row;
          row["name"] = std::string(e.name);
          row["argument"] = arg_kind(e.arg);
          row["argument_name"] = std::string(e.arg_name);
          row["description"] = std::string(e.description);
          row["guides_search"] = e.guides_search;
          out.append(row);
        }
        return out;
      },
      "The built-in bots, one dict a row: name, argument ('none', 'optional', 'required'),\n"
      "argument_name ('ROLLOUTS', 'PATH'), description, guides_search (whether 'NAME+search'\n"
      "takes it as the guide of a search); in the order help texts list them.");
  {
    py::dict guided;
    guided["suffix"] = "+search";
    guided["argument_name"] = "ROLLOUTS";
    guided["default"] = sk::kDefaultGuidedRollouts;
    guided["max"] = sk::kMaxRollouts;
    guided["description"] = std::string(sk::kGuidedSearchDescription) + " (default " +
                            std::to_string(sk::kDefaultGuidedRollouts) + "); " +
                            std::string(sk::kGuidedLeafDescription);
    // (help texts and docs/heuristic.md list the "NAME+search" form from it)
    m.attr("GUIDED_SEARCH") = guided;
  }
  m.def("bot_names", &sk::bot_names, "The built-in bots' names, in the registry's order.");
  m.def(
      "bot_label", [](const py::handle& name) { return bot_arg(name, "bot name")->label(); }, py::arg("name"),
      "The canonical name of a bot ('heuristic', 'search:400'); ValueError naming an unknown bot or a\n"
      "bad argument.");
  m.def(
      "set_builtin_models",
      [](const py::handle& models) {
        if (!py::isinstance<py::dict>(models))
          throw py::value_error("set_builtin_models: expected a dict {preset: model file}, got " +
                                shown(models));
        std::vector<std::pair<std::string, std::string>> pairs;
        for (const auto& [name, path] : models.cast<py::dict>())
          pairs.emplace_back(text_arg(name, "preset"), path_arg(path, "path"));
        sk::set_builtin_models(std::move(pairs));
      },
      py::arg("models"),
      "The model files the bot 'dmc' (without a path) plays, {preset: path}: each rule set plays its own\n"
      "network; the package registers the weights it ships. ValueError, changing nothing, for an\n"
      "unknown or repeated preset; the files are read when 'dmc' is next made.");
  m.def(
      "builtin_models",
      [] {
        py::dict out;
        for (const auto& [name, path] : sk::builtin_models()) out[py::str(name)] = path;
        return out;
      },
      "{preset: model file} of the built-in 'dmc': the rule sets it plays, each with its own network.");
}

}  // namespace shuangkou_py
