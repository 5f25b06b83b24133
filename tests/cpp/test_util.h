// Helpers shared by the C++ tests: random deals, the test data folder, and a
// seat's information set.
#pragma once

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "shuangkou/bots/bot.h"
#include "shuangkou/core/cards.h"
#include "shuangkou/core/game.h"
#include "shuangkou/core/seats.h"
#include "shuangkou/core/variant.h"
#include "shuangkou/model/qnet.h"

namespace shuangkou::testing {

// The project's test data folder, tests/data (rules_examples.json: the worked
// examples of docs/rules.md §16).
inline std::string test_data_dir() { return SHUANGKOU_TEST_DATA_DIR; }

// The networks the package ships (python/shuangkou/models/dmc_PRESET.safetensors),
// registered as the built-in dmc's, as the package does at import; returns
// them as (preset, path). None where the folder holds none.
inline std::vector<std::pair<std::string, std::string>> register_shipped_models() {
  std::vector<std::pair<std::string, std::string>> models;
  for (const std::string& name : preset_names()) {
    const std::string path = std::string(SHUANGKOU_MODELS_DIR) + "/dmc_" + name + ".safetensors";
    if (std::filesystem::exists(path)) models.emplace_back(name, path);
  }
  set_builtin_models(models);
  return models;
}

// The shipped baibian network's file (the built-in dmc's for baibian).
inline std::string shipped_baibian_model() {
  return std::string(SHUANGKOU_MODELS_DIR) + "/dmc_baibian.safetensors";
}

// The 108 cards of two decks, by rank.
inline std::vector<int> double_deck_ranks() {
  std::vector<int> deck;
  for (int r = 0; r < kNumRanks; ++r)
    for (int k = 0; k < copies_in_two_decks(r); ++k) deck.push_back(r);
  return deck;
}

// `n` cards dealt at random from two shuffled decks.
inline CardCounts random_hand(std::mt19937_64& rng, int n) {
  std::vector<int> deck = double_deck_ranks();
  std::shuffle(deck.begin(), deck.end(), rng);
  CardCounts h;
  for (int i = 0; i < n; ++i) h.add(deck[i]);
  return h;
}

inline std::array<int, kNumRanks> to_array(CardCounts c) {
  std::array<int, kNumRanks> a{};
  for (int r = 0; r < kNumRanks; ++r) a[r] = c.count(r);
  return a;
}

inline CardCounts from_array(const std::array<int, kNumRanks>& a) {
  CardCounts c;
  for (int r = 0; r < kNumRanks; ++r) c.add(r, a[r]);
  return c;
}

// A Q network of this shape with normal(0, 0.3) weights.
inline QNet random_qnet(const QNetShape& shape, uint64_t seed,
                        std::map<std::string, std::string> metadata = {}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  std::map<std::string, std::vector<float>> tensors;
  for (const auto& [name, dims] : QNet::tensor_shapes(shape)) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    auto& t = tensors[name];
    for (int64_t i = 0; i < n; ++i) t.push_back(normal(rng));
  }
  return QNet(shape, tensors, std::move(metadata));
}

// Deals the cards the player to act cannot see anew among the seats that may
// hold them, keeping every seat's count: the player's information set.
inline GameState same_information(const Variant& v, const GameState& s, std::mt19937_64& rng) {
  const int seat = s.current_player();
  std::vector<int> pool;
  std::vector<int> hidden;
  for (int i = 0; i < kNumSeats; ++i) {
    if (i == seat || (v.partner_visible && i == partner_of(seat))) continue;
    hidden.push_back(i);
    for (int r = 0; r < kNumRanks; ++r)
      for (int k = 0; k < s.hand(i).count(r); ++k) pool.push_back(r);
  }
  std::shuffle(pool.begin(), pool.end(), rng);
  std::array<CardCounts, kNumSeats> hands;
  for (int i = 0; i < kNumSeats; ++i) hands[i] = s.hand(i);
  size_t next = 0;
  for (int i : hidden) {
    CardCounts h;
    for (int k = 0; k < s.hand(i).size(); ++k) h.add(pool[next++]);
    hands[i] = h;
  }
  return s.redealt(hands);
}

}  // namespace shuangkou::testing
