#include "shapes.h"

#include <span>

#include "shuangkou/model/encode.h"

namespace shuangkou_py {

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
