// Argument conversion shared by the binding files: integers, reals, text,
// paths, seats, seeds, cards and bots, each checked with a ValueError that
// names the argument, the value given and what is allowed.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cards.h"

namespace py = pybind11;
namespace shuangkou {}
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

// The text of a variant argument: a str or an os.PathLike; ValueError otherwise.
std::string variant_text(const py::handle& variant);
// "a, b, c".
std::string join_names(const std::vector<std::string>& names);
// A seat 0..3, a seed 0..2**64-1; ValueError otherwise.
int seat_arg(const py::handle& obj, const char* what);
uint64_t seed_arg(const py::handle& seed);

}  // namespace shuangkou_py
