// Cross-check of the fast reader and move generator against the brute-force
// reference in tests/cpp/reference (written separately, from the rules alone).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "reference/brute_force.h"
#include "shuangkou/core/movegen.h"
#include "shuangkou/core/pattern.h"
#include "test_util.h"

namespace shuangkou {
namespace {

struct VariantPair {
  std::string name;
  Variant fast;
  skref::RefVariant ref;
};

// The five presets, plus parameter mixes no preset has, built independently
// on both sides.
std::vector<VariantPair> variants_under_test() {
  std::vector<VariantPair> out;
  for (const auto& name : preset_names()) out.push_back({name, preset(name), skref::preset(name)});
  {
    VariantPair p{"classic+chain+three_kings+BJ", preset("classic"), skref::preset("classic")};
    set_param(p.fast, "chain_bomb", "true");
    set_param(p.fast, "three_kings", "true");
    set_param(p.fast, "wild", "BJ");
    p.ref.chain_bomb = p.ref.three_kings = true;
    p.ref.wild = 1;
    out.push_back(p);
  }
  {
    VariantPair p{"qianbian+max_bomb=10+tianwang=bottom", preset("qianbian"), skref::preset("qianbian")};
    set_param(p.fast, "max_bomb", "10");
    set_param(p.fast, "tianwang", "bottom");
    p.ref.max_bomb = 10;
    p.ref.tianwang_top = false;
    out.push_back(p);
  }
  {
    VariantPair p{"qianbian+count order", preset("qianbian"), skref::preset("qianbian")};
    set_param(p.fast, "bomb_order", "count");
    p.ref.bomb_order_stars = false;
    out.push_back(p);
  }
  return out;
}

using Key = std::tuple<int, uint64_t, uint64_t, int, int, int>;  // kind, reading, cards, key, stars, size

Key key_of(const Play& p) {
  return {static_cast<int>(p.kind), p.reading.bits(), p.cards.bits(), p.key, p.stars, p.size};
}

Key key_of(const skref::RefPlay& p) {
  return {static_cast<int>(p.kind),
          testing::from_array(p.reading).bits(),
          testing::from_array(p.cards).bits(),
          p.key,
          p.stars,
          p.size};
}

std::string describe(const Key& k) {
  return std::string(kind_name(static_cast<Kind>(std::get<0>(k)))) +
         " cards=" + CardCounts(std::get<2>(k)).to_string() +
         " reading=" + CardCounts(std::get<1>(k)).to_string() + " stars=" + std::to_string(std::get<4>(k));
}

// Reports the symmetric difference of two move sets; empty string if equal.
std::string diff(const std::multiset<Key>& fast, const std::multiset<Key>& ref) {
  std::string out;
  for (const auto& k : fast)
    if (fast.count(k) != ref.count(k))
      out += "  fast x" + std::to_string(fast.count(k)) + ": " + describe(k) + "\n";
  for (const auto& k : ref)
    if (!fast.count(k)) out += "  missing: " + describe(k) + "\n";
  return out;
}

constexpr int kHandsPerVariant = 10000;

TEST(ReferenceCrossCheck, MoveGenerationLeadingAndFollowing) {
  MoveList moves;
  for (const auto& vp : variants_under_test()) {
    std::mt19937_64 rng(std::hash<std::string>{}(vp.name) ^ 0x5eed);
    int differences = 0, follows_checked = 0;
    long long moves_checked = 0;
    for (int trial = 0; trial < kHandsPerVariant && differences < 5; ++trial) {
      const int n = std::uniform_int_distribution<int>(5, 27)(rng);
      const CardCounts hand = testing::random_hand(rng, n);
      const auto ref_hand = testing::to_array(hand);

      // Leading.
      generate_leads(vp.fast, hand, moves);
      std::multiset<Key> fast, ref;
      for (const Play& m : moves) fast.insert(key_of(m));
      const auto ref_leads = skref::canonical_moves(vp.ref, ref_hand, nullptr);
      for (const auto& m : ref_leads) ref.insert(key_of(m));
      if (const std::string d = diff(fast, ref); !d.empty()) {
        ++differences;
        ADD_FAILURE() << vp.name << " leading with " << hand.to_string() << "\n" << d;
      }
      moves_checked += moves.size();

      // Following a random play of another random hand.
      const CardCounts other = testing::random_hand(rng, std::uniform_int_distribution<int>(5, 27)(rng));
      const auto other_leads = skref::canonical_moves(vp.ref, testing::to_array(other), nullptr);
      if (other_leads.empty()) continue;
      const auto& prev_ref =
          other_leads[std::uniform_int_distribution<size_t>(0, other_leads.size() - 1)(rng)];
      const auto prev =
          read_as(vp.fast, testing::from_array(prev_ref.cards), static_cast<Kind>(prev_ref.kind));
      ASSERT_TRUE(prev.has_value()) << vp.name << " " << skref::to_string(prev_ref.cards);
      ASSERT_EQ(key_of(*prev), key_of(prev_ref)) << vp.name;
      generate_follows(vp.fast, hand, *prev, moves);
      fast.clear();
      ref.clear();
      for (const Play& m : moves) fast.insert(key_of(m));
      for (const auto& m : skref::canonical_moves(vp.ref, ref_hand, &prev_ref)) ref.insert(key_of(m));
      if (const std::string d = diff(fast, ref); !d.empty()) {
        ++differences;
        ADD_FAILURE() << vp.name << " following " << prev->cards.to_string() << " (" << kind_name(prev->kind)
                      << ") with " << hand.to_string() << "\n"
                      << d;
      }
      ++follows_checked;
      moves_checked += moves.size();
    }
    EXPECT_EQ(differences, 0) << vp.name;
    EXPECT_GE(follows_checked, kHandsPerVariant * 9 / 10) << vp.name;
    EXPECT_GT(moves_checked, kHandsPerVariant * 10) << vp.name;  // the check saw real move lists
  }
}

// Random card sets, many of them near-patterns (a move's cards with one card
// added, removed or swapped), read by both sides.
TEST(ReferenceCrossCheck, ReaderOnRandomCardSets) {
  MoveList moves;
  for (const auto& vp : variants_under_test()) {
    std::mt19937_64 rng(std::hash<std::string>{}(vp.name) ^ 0xcafe);
    int differences = 0, valid_sets = 0;
    for (int trial = 0; trial < 20000 && differences < 5; ++trial) {
      CardCounts cards;
      if (trial % 2) {
        cards = testing::random_hand(rng, std::uniform_int_distribution<int>(1, 20)(rng));
      } else {
        generate_leads(vp.fast, testing::random_hand(rng, 27), moves);
        cards = moves[std::uniform_int_distribution<int>(0, moves.size() - 1)(rng)].cards;
        const int r = std::uniform_int_distribution<int>(0, kNumRanks - 1)(rng);
        switch (trial % 6) {
          case 0:
            if (cards.count(r)) cards.remove(r);
            break;
          case 2:
            cards.add(r);
            break;
          default:
            break;
        }
        if (!cards.fits_two_decks() || cards.empty()) continue;
      }
      const Readings fast = read_all(vp.fast, cards);
      std::multiset<Key> f, r;
      for (int k = 0; k < kNumKinds; ++k)
        if (fast.has(static_cast<Kind>(k))) f.insert(key_of(fast.by_kind[k]));
      for (const auto& p : skref::all_readings(vp.ref, testing::to_array(cards))) r.insert(key_of(p));
      valid_sets += !f.empty();
      if (const std::string d = diff(f, r); !d.empty()) {
        ++differences;
        ADD_FAILURE() << vp.name << " reading " << cards.to_string() << "\n" << d;
      }
    }
    EXPECT_EQ(differences, 0) << vp.name;
    EXPECT_GT(valid_sets, 5000) << vp.name;
  }
}

}  // namespace
}  // namespace shuangkou
