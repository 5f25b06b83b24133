// Deal records (Game::to_json, Game::from_json): the JSON format
// "shuangkou-deal/1" (the lines of `selfplay --replays` files), written and
// read here, apart from the state machine in game.cc. Reading is hardened: a record is
// bounded in size and depth before the JSON library sees it, every field is
// checked by name, and the moves are replayed so a record that does not
// replay to itself is refused (tests/fuzz/record_fuzz.cc feeds it mutations).
#include "shuangkou/core/record.h"

#include <array>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "shuangkou/core/clip.h"
#include "shuangkou/core/game.h"

namespace shuangkou {
namespace {

using nlohmann::json;

constexpr std::array<char, 4> kSuits = {'S', 'H', 'D', 'C'};

}  // namespace

void check_record_shape(std::string_view text, size_t max_bytes, std::string_view what) {
  if (text.size() > max_bytes)
    throw std::invalid_argument("record is " + std::to_string(text.size()) + " bytes, more than the " +
                                std::to_string(max_bytes) + " " + std::string(what) + " can be");
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxRecordDepth)
        throw std::invalid_argument("record is nested more than " + std::to_string(kMaxRecordDepth) +
                                    " levels deep; " + std::string(what) + " is not");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}

std::string Game::to_json() const {
  json j;
  j["format"] = "shuangkou-deal/1";
  json params = json::object();
  for (const auto& [k, v] : shuangkou::params(variant())) params[k] = v;
  j["variant"] = params;
  j["dealt"] = setup_.dealt;
  j["seed"] = setup_.dealt ? json(setup_.seed) : json(nullptr);
  if (setup_.revealed_card >= 0) {
    const int id = setup_.revealed_card;
    const int rank = physical_rank(id);
    j["revealed_card"] = {
        {"id", id},
        {"rank", std::string(rank_token(rank))},
        {"suit", rank >= kSmallJoker ? json(nullptr) : json(std::string(1, kSuits[id % 54 / 13]))},
        {"holder", setup_.revealed_holder},
        {"other_copy_holder", setup_.other_copy_holder}};
  } else {
    j["revealed_card"] = nullptr;
  }
  j["swapped"] = setup_.swapped[0] >= 0 ? json({setup_.swapped[0], setup_.swapped[1]}) : json(nullptr);
  j["previous_first_finisher"] = setup_.previous_first_finisher;
  j["leader"] = setup_.leader;
  json hands = json::array();
  for (const auto& h : initial_) hands.push_back(h.to_string());
  j["hands"] = hands;
  json moves = json::array();
  for (const auto& a : history_) {
    if (is_pass(a.play)) {
      moves.push_back({{"seat", a.seat}, {"kind", "pass"}});
      continue;
    }
    json m = {{"seat", a.seat},
              {"kind", std::string(kind_name(a.play.kind))},
              {"cards", a.play.cards.to_string()},
              {"reading", a.play.reading.to_string()}};
    if (is_bomb(a.play.kind)) m["stars"] = a.play.stars;
    moves.push_back(m);
  }
  j["moves"] = moves;
  j["over"] = state_.is_over();
  if (state_.is_over()) {
    const Places places = state_.places();
    const DealScore d = state_.score(variant());
    j["finish_order"] = std::vector<int>(places.begin(), places.end());
    j["outcome"] = std::string(outcome_name(d.outcome));
    j["scores"] = d.total;
    j["breakdown"] = {
        {"base", d.base}, {"multiplier", d.multiplier}, {"contribution", d.contribution}, {"total", d.total}};
  } else {
    j["finish_order"] = std::vector<int>(state_.finish_order().begin(),
                                         state_.finish_order().begin() + state_.num_finished());
    j["outcome"] = nullptr;
    j["scores"] = nullptr;
    j["breakdown"] = nullptr;
  }
  return j.dump();
}

namespace {

// A JSON value as quoted in an error message.
std::string quote(const json& value) { return clip(value.dump()); }

// An integer field in [lo, hi]; anything else (a float, a bool, a string, a
// negative or huge number) is refused, naming the field.
int64_t int_field(const json& value, const std::string& what, int64_t lo, int64_t hi) {
  const bool integer = value.is_number_integer() || value.is_number_unsigned();
  if (integer && value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(hi))
    throw std::invalid_argument(what + " must be an integer " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ", got " + quote(value));
  if (!integer || value.get<int64_t>() < lo || value.get<int64_t>() > hi)
    throw std::invalid_argument(what + " must be an integer " + std::to_string(lo) + ".." +
                                std::to_string(hi) + ", got " + quote(value));
  return value.get<int64_t>();
}

// A string field of at most `max` characters.
std::string string_field(const json& value, const std::string& what, size_t max = 256) {
  if (!value.is_string()) throw std::invalid_argument(what + " must be a string, got " + quote(value));
  const auto& s = value.get_ref<const std::string&>();
  if (s.size() > max)
    throw std::invalid_argument(what + " is " + std::to_string(s.size()) + " characters long, more than " +
                                std::to_string(max));
  return s;
}

// The value of `key` in the record `j`; std::invalid_argument if it is missing.
const json& need(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key))
    throw std::invalid_argument(std::string("record has no '") + key + "'");
  return j.at(key);
}

// The record's variant: every parameter, by name, and no other.
Variant record_variant(const json& params) {
  if (!params.is_object()) throw std::invalid_argument("record 'variant' must be an object");
  Variant v;
  for (const auto& name : param_names()) {
    if (!params.contains(name)) throw std::invalid_argument("record variant has no parameter '" + name + "'");
    const json& value = params.at(name);
    const std::string what = "record variant parameter '" + name + "'";
    set_param(v, name, value.is_string() ? string_field(value, what, 64) : quote(value));
  }
  for (const auto& [name, value] : params.items())
    if (std::find(param_names().begin(), param_names().end(), name) == param_names().end())
      throw std::invalid_argument("record variant has an unknown parameter " + quote(name));
  return v;
}

// The game the record starts from: dealt from its seed (whose deal must be
// the hands and leader it states) or set from its hands.
Game record_start(const json& j, const Variant& v) {
  const json& hand_list = need(j, "hands");
  if (!hand_list.is_array() || hand_list.size() != kNumSeats)
    throw std::invalid_argument("record 'hands' must list 4 hands");
  std::array<CardCounts, kNumSeats> hands;
  for (int s = 0; s < kNumSeats; ++s)
    hands[s] = CardCounts::parse(string_field(hand_list[s], "record hand " + std::to_string(s)));
  const int leader = static_cast<int>(int_field(need(j, "leader"), "record 'leader'", 0, kNumSeats - 1));
  const json& dealt = need(j, "dealt");
  if (!dealt.is_boolean())
    throw std::invalid_argument("record 'dealt' must be true or false, got " + quote(dealt));
  if (!dealt.get<bool>()) return Game(v, hands, leader);
  const int previous =
      j.contains("previous_first_finisher")
          ? static_cast<int>(int_field(j.at("previous_first_finisher"), "record 'previous_first_finisher'",
                                       -1, kNumSeats - 1))
          : -1;
  const json& seed = need(j, "seed");
  if (!seed.is_number_unsigned())
    throw std::invalid_argument("record 'seed' must be an integer 0..2**64-1, got " + quote(seed));
  Game game(v, seed.get<uint64_t>(), previous);
  if (game.initial_hands() != hands || game.setup().leader != leader)
    throw std::invalid_argument("record hands or leader differ from the deal of its seed");
  return game;
}

// Plays the record's moves, each checked; errors name the move.
void play_moves(Game& game, const json& moves) {
  if (!moves.is_array()) throw std::invalid_argument("record 'moves' must be a list");
  for (size_t i = 0; i < moves.size(); ++i) {
    const json& m = moves[i];
    const std::string where = "record move " + std::to_string(i) + ": ";
    if (!m.is_object() || !m.contains("seat") || !m.contains("kind"))
      throw std::invalid_argument(where + "needs 'seat' and 'kind'");
    const int seat = static_cast<int>(int_field(m.at("seat"), where + "'seat'", 0, kNumSeats - 1));
    if (seat != game.state().current_player())
      throw std::invalid_argument(where + "seat " + std::to_string(seat) + " is not the player to act (" +
                                  std::to_string(game.state().current_player()) + ")");
    try {
      const std::string kind = string_field(m.at("kind"), "'kind'", 64);
      Play play = kPass;
      if (kind != "pass") {
        if (!m.contains("cards")) throw std::invalid_argument("needs 'cards'");
        play.cards = CardCounts::parse(string_field(m.at("cards"), "'cards'"));
        play.kind = parse_kind(kind);
      }
      game.apply(play);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + e.what());
    }
  }
}

// "agents" (optional): who sat in each seat, four labels, as selfplay, the arena and the
// web table write them. The record's own metadata: the replay does not depend on it.
void check_agents(const json& j) {
  if (!j.contains("agents")) return;
  const json& agents = j.at("agents");
  bool ok = agents.is_array() && agents.size() == kNumSeats;
  for (size_t i = 0; ok && i < agents.size(); ++i) ok = agents[i].is_string();
  if (!ok) throw std::invalid_argument("record 'agents' must list four seat labels, got " + quote(agents));
}

// The replay must reproduce the record exactly: every key it states.
void check_replay(const json& j, const Game& game) {
  const json replayed = json::parse(game.to_json());
  if (j.contains("over") && j.at("over") != replayed.at("over"))
    throw std::invalid_argument(std::string("record says the deal is ") +
                                (j.at("over") == true ? "" : "not ") + "over but its replay " +
                                (replayed.at("over") == true ? "is" : "is not"));
  for (const auto& [key, value] : j.items()) {
    if (key == "agents") continue;  // (checked by check_agents)
    if (!replayed.contains(key)) throw std::invalid_argument("record has an unknown key " + quote(key));
    if (replayed.at(key) == value) continue;
    if (key == "moves") {
      const json& moves = j.at("moves");
      for (size_t i = 0; i < moves.size(); ++i)
        if (replayed["moves"][i] != moves[i])
          throw std::invalid_argument("record move " + std::to_string(i) + " differs from its replay: " +
                                      quote(moves[i]) + " replays as " + quote(replayed["moves"][i]));
    }
    throw std::invalid_argument("record '" + key + "' differs from the replay: " + quote(value) +
                                " replays as " + quote(replayed.at(key)));
  }
}

}  // namespace

Game Game::from_json(const std::string& text) {
  check_record_shape(text);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // syntax errors, and numbers out of range (1e400)
    throw std::invalid_argument("record is not valid JSON: " + clip(e.what()));
  }
  try {
    if (need(j, "format") != "shuangkou-deal/1")
      throw std::invalid_argument("record format is not shuangkou-deal/1");
    const Variant v = record_variant(need(j, "variant"));
    Game game = record_start(j, v);
    play_moves(game, need(j, "moves"));
    check_agents(j);
    check_replay(j, game);
    return game;
  } catch (const json::exception& e) {
    throw std::invalid_argument("malformed record: " + clip(e.what()));
  }
}

}  // namespace shuangkou
