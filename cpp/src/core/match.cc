#include "shuangkou/core/match.h"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

#include "shuangkou/core/record.h"

namespace shuangkou {

namespace {
int checked_deals(int n) {
  if (n < 1) throw std::invalid_argument("a match needs at least 1 deal, got " + std::to_string(n));
  return n;
}
}  // namespace

Match::Match(const Variant& v, uint64_t seed, int num_deals)
    : variant_(v), seed_(seed), num_deals_(checked_deals(num_deals)), game_(start_deal()) {}

int Match::seat_of(int player) const {
  for (int s = 0; s < kNumSeats; ++s)
    if (player_in_seat_[s] == player) return s;
  throw std::invalid_argument("player must be 0..3, got " + std::to_string(player));
}

Game Match::start_deal() {
  // previous_winner: after a single or draw, the previous first finisher
  // (a player, who may have moved seats since) leads.
  int previous = -1;
  if (!results_.empty() && results_.back().outcome != Outcome::kDouble) {
    const CreditedDeal& last = results_.back();
    previous = seat_of(last.player_in_seat[last.places[0]]);
  }
  Game g(variant_, derive_seed(seed_, results_.size()), previous);
  const auto& swapped = g.setup().swapped;
  if (swapped[0] >= 0) std::swap(player_in_seat_[swapped[0]], player_in_seat_[swapped[1]]);
  return g;
}

void Match::next_deal() {
  if (is_over()) throw std::invalid_argument("the match is over: all its deals are played");
  if (!game_.state().is_over())
    throw std::invalid_argument("the current deal is not over: play it to the end before next_deal()");
  const DealScore score = game_.state().score(variant_);
  CreditedDeal r;
  r.player_in_seat = player_in_seat_;
  r.places = game_.state().places();
  r.outcome = score.outcome;
  r.points_by_player = {};
  for (int seat = 0; seat < kNumSeats; ++seat) {
    r.points_by_player[player_in_seat_[seat]] = score.total[seat];
    totals_[player_in_seat_[seat]] += score.total[seat];
  }
  results_.push_back(r);
  past_histories_.push_back(game_.history());
  if (!is_over()) game_ = start_deal();
}

std::string Match::to_json() const {
  nlohmann::json j;
  j["format"] = "shuangkou-match/1";
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [k, v] : shuangkou::params(variant_)) params[k] = v;
  j["variant"] = params;
  j["seed"] = seed_;
  j["deals"] = num_deals_;
  nlohmann::json deals = nlohmann::json::array();
  auto moves = [](const std::vector<Action>& h) {
    nlohmann::json out = nlohmann::json::array();
    for (const Action& a : h)
      out.push_back(
          {a.seat, is_pass(a.play) ? "pass" : std::string(kind_name(a.play.kind)), a.play.cards.to_string()});
    return out;
  };
  for (const auto& h : past_histories_) deals.push_back(moves(h));
  if (!is_over()) deals.push_back(moves(game_.history()));
  j["histories"] = deals;
  j["credited"] = deals_played();
  return j.dump();
}

Match Match::from_json(const std::string& text) {
  check_record_shape(text, kMaxMatchRecordBytes, "a match record");
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (!j.is_object() || j.value("format", "") != "shuangkou-match/1")
      throw std::invalid_argument("not a shuangkou-match/1 record");
    Variant v;
    for (const auto& name : param_names()) set_param(v, name, j.at("variant").at(name).get<std::string>());
    Match m(v, j.at("seed").get<uint64_t>(), j.at("deals").get<int>());
    const auto& deals = j.at("histories");
    for (size_t d = 0; d < deals.size(); ++d) {
      if (d > 0) m.next_deal();
      for (const auto& a : deals[d]) {
        if (a.at(0).get<int>() != m.game_.state().current_player())
          throw std::invalid_argument("match record: a move out of turn");
        const std::string kind = a.at(1).get<std::string>();
        Play p = kPass;
        if (kind != "pass") {
          p.cards = CardCounts::parse(a.at(2).get<std::string>());
          p.kind = parse_kind(kind);
        }
        m.game_.apply(p);
      }
    }
    const size_t credited = j.at("credited").get<size_t>();
    if (credited != deals.size() && credited + 1 != deals.size())
      throw std::invalid_argument("match record: 'credited' does not fit its histories");
    if (credited == deals.size() && !deals.empty()) m.next_deal();  // the last deal was credited too
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(std::string("malformed match record: ") + e.what());
  }
}

}  // namespace shuangkou
