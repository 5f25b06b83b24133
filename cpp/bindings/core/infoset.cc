// InfoView: a seat's information set, for agents that search in Python.
#include "shuangkou/core/infoset.h"

#include "common.h"
#include "core/rules_api.h"

namespace shuangkou_py {
namespace {

// The 64-bit seed of one world, drawn from a numpy Generator (one draw of its
// bit generator); TypeError for anything else.
uint64_t world_seed(const py::handle& rng) {
  const py::object generator = py::module_::import("numpy.random").attr("Generator");
  if (!py::isinstance(rng, generator))
    throw py::type_error(
        "sample_world takes a numpy.random.Generator (numpy.random.default_rng(seed)), got " + shown(rng));
  return rng.attr("bit_generator").attr("random_raw")().cast<uint64_t>();
}

}  // namespace

void bind_infoset(py::module_& m) {
  py::class_<sk::InfoView>(m, "InfoView",
                           "What one seat may know of a Game, and worlds consistent with it.\n\n"
                           "InfoView(game, seat=None) (seat: the player to act by default). It keeps the "
                           "game privately: nothing it gives out depends on a card the seat cannot see, "
                           "so two games that differ only there give equal views (== and str). "
                           "sample_world(rng) deals those cards anew, as the built-in search bot does "
                           "(docs/infoset.md).")
      .def(py::init([](const sk::Game& g, const py::handle& seat) {
             // Once the deal is over no seat is to act (current_player() is -1): say so, rather
             // than refusing the -1 as a seat out of range.
             const bool to_act = seat.is_none() || (py::isinstance<py::int_>(seat) &&
                                                    seat.cast<py::int_>().equal(py::int_(-1)));
             if (to_act && g.state().current_player() < 0)
               throw py::value_error(
                   "InfoView: the deal is over, so no seat is to act (current_player() is -1); "
                   "name the seat to view: InfoView(game, seat) with seat 0..3");
             return sk::InfoView(g, seat.is_none() ? g.state().current_player() : seat_arg(seat, "seat"));
           }),
           py::arg("game"), py::arg("seat") = py::none())
      .def_property_readonly("seat", &sk::InfoView::seat)
      .def_property_readonly(
          "rules", [](const sk::InfoView& v) { return PyRules(v.rules()); }, "The rule set of the deal.")
      .def("current_player", &sk::InfoView::current_player, "The seat to act; -1 once the deal is over.")
      .def("is_over", &sk::InfoView::is_over)
      .def_property_readonly(
          "hand", [](const sk::InfoView& v) { return v.observation().own_hand.to_string(); },
          "The seat's hand.")
      .def_property_readonly(
          "partner_hand",
          [](const sk::InfoView& v) -> py::object {
            const auto& p = v.observation().partner_hand;
            return p ? py::cast(p->to_string()) : py::none();
          },
          "The partner's hand where the variant shows it (双明), else None.")
      .def_property_readonly(
          "cards_left",
          [](const sk::InfoView& v) {
            const auto& c = v.observation().cards_left;
            return std::vector<int>(c.begin(), c.end());
          },
          "Cards left in each seat's hand.")
      .def(
          "history", [](const sk::InfoView& v) { return history_list(v.history()); },
          "Every action so far: (seat, Play), or (seat, None) for a pass.")
      .def(
          "observation", [](const sk::InfoView& v) { return observation_dict(v.observation(), v.history()); },
          "The dict Game.observation(seat) gives: own hand, the partner's where shown, cards left and "
          "played, the trick, places, points so far, all plays.")
      .def_property_readonly("leader", &sk::InfoView::leader, "The seat that led the deal.")
      .def(
          "legal_action_ids",
          [](const sk::InfoView& v) {
            const auto ids = v.legal_action_ids();
            return to_numpy(std::vector<int64_t>(ids.begin(), ids.end()),
                            {static_cast<py::ssize_t>(ids.size())});
          },
          "The seat's legal action ids (int64, ascending, the pass first where legal) when it is to act; "
          "empty otherwise.")
      .def(
          "encode_observation",
          [](const sk::InfoView& v) { return encode_game(v.sample_world(0), v.seat()); },
          "The seat's observation vector (float32), as shuangkou.encode_observation(game, seat) gives it.")
      .def(
          "sample_world",
          [](const sk::InfoView& v, const py::handle& rng) {
            const uint64_t seed = world_seed(rng);
            py::gil_scoped_release release;
            return v.sample_world(seed);
          },
          py::arg("rng"),
          "A complete Game consistent with everything the seat knows: this deal with the cards the seat "
          "cannot see dealt anew to the seats that hold hidden cards, each keeping its count (the sampler "
          "of the built-in search bot). rng: a numpy.random.Generator (one draw a world). The player to act "
          "is the deal's; the world is a set deal, so it can be cloned, stepped, scored and recorded.")
      .def("__eq__",
           [](const sk::InfoView& a, const py::object& b) -> py::object {
             if (!py::isinstance<sk::InfoView>(b))
               return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a == b.cast<const sk::InfoView&>());
           })
      .def("__hash__", [](const sk::InfoView& v) { return py::hash(py::str(v.to_string())); })
      .def("__str__", &sk::InfoView::to_string)
      .def("__repr__", [](const sk::InfoView& v) {
        return "<InfoView of seat " + std::to_string(v.seat()) + ", " + std::to_string(v.history().size()) +
               " actions, hand " + v.observation().own_hand.to_string() + ">";
      });
}

}  // namespace shuangkou_py
