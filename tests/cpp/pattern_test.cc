#include "shuangkou/core/pattern.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "shuangkou/core/movegen.h"
#include "test_util.h"

namespace shuangkou {
namespace {

nlohmann::json load_examples() {
  const std::string path = testing::test_data_dir() + "/rules_examples.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path + "");
  return nlohmann::json::parse(in);
}

std::optional<Play> read(const std::string& variant, const std::string& cards) {
  return read_best(preset(variant), CardCounts::parse(cards));
}

// docs/rules.md §16, readings. "any" examples (listed under one variant in
// the file) must hold in every variant.
TEST(RulesExamples, Readings) {
  const auto examples = load_examples();
  ASSERT_GE(examples["readings"].size(), 13u);
  for (const auto& e : examples["readings"]) {
    const std::string cards = e["cards"];
    std::vector<std::string> variants = {e["variant"]};
    if (cards == "5 5 5 6 6 6" || cards == "Q K A 2 3") variants = preset_names();
    for (const auto& variant : variants) {
      SCOPED_TRACE(variant + ": " + cards);
      const auto p = read(variant, cards);
      if (e["kind"].is_null()) {
        EXPECT_FALSE(p.has_value()) << kind_name(p->kind);
        continue;
      }
      ASSERT_TRUE(p.has_value());
      EXPECT_EQ(kind_name(p->kind), e["kind"].get<std::string>());
      if (e.contains("reading")) EXPECT_EQ(p->reading.to_string(), e["reading"].get<std::string>());
      if (e.contains("key")) EXPECT_EQ(rank_token(p->key), e["key"].get<std::string>());
      EXPECT_EQ(p->stars, e["stars"].get<int>());
      EXPECT_EQ(p->cards, CardCounts::parse(cards));
    }
  }
}

TEST(RulesExamples, Beats) {
  const auto examples = load_examples();
  ASSERT_GE(examples["beats"].size(), 7u);
  for (const auto& e : examples["beats"]) {
    const std::string variant = e["variant"], a = e["a"], b = e["b"];
    SCOPED_TRACE(variant + ": " + a + " vs " + b);
    const auto pa = read(variant, a), pb = read(variant, b);
    ASSERT_TRUE(pa && pb);
    EXPECT_EQ(beats(*pa, *pb), e["beats"].get<bool>());
    // Strictly greater: at most one of the two beats the other.
    EXPECT_FALSE(beats(*pa, *pb) && beats(*pb, *pa));
  }
}

// Star counts quoted in docs/rules.md §5.
TEST(RulesExamples, StarsOfSection5) {
  const Variant max_star = preset("qianbian");
  const Variant min_star = preset("qianbian_collect");
  auto stars = [](const Variant& v, const char* cards) {
    return read_best(v, CardCounts::parse(cards))->stars;
  };
  EXPECT_EQ(stars(max_star, "3 3 3 3 3 3"), 6);
  EXPECT_EQ(stars(max_star, "7 7 7 7 7 8 8 8 8 8 9 9 9 9 9"), 8);
  EXPECT_EQ(stars(max_star, "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9"), 9);
  EXPECT_EQ(stars(min_star, "7 7 7 7 8 8 8 8 8 9 9 9 9 9 9"), 7);
}

// docs/rules.md §14: with 4 5 6 7 SJ in qianbian the only straight is 4-8.
TEST(RulesExamples, CanonicalStraightExampleOfSection11) {
  MoveList moves;
  generate_leads(preset("qianbian"), CardCounts::parse("4 5 6 7 SJ"), moves);
  int straights = 0;
  for (const Play& m : moves)
    if (m.kind == Kind::kStraight) {
      ++straights;
      EXPECT_EQ(m.reading.to_string(), "4 5 6 7 8");
      EXPECT_EQ(m.cards.to_string(), "4 5 6 7 SJ");
    }
  EXPECT_EQ(straights, 1);
  // The rules layer still reads the straight 3-7 card set: as 4-8.
  EXPECT_EQ(read_as(preset("qianbian"), CardCounts::parse("4 5 6 7 SJ"), Kind::kStraight)->key, 5);
}

TEST(Pattern, TypeFollowsTheTrickBothReadingsAreKept) {
  const Readings r = read_all(preset("qianbian"), CardCounts::parse("7 7 7 8 8 8 9 9 9 SJ SJ BJ"));
  ASSERT_TRUE(r.has(Kind::kTripleChain));
  ASSERT_TRUE(r.has(Kind::kChainBomb));
  EXPECT_EQ(r[Kind::kTripleChain].reading.to_string(), "7 7 7 8 8 8 9 9 9 T T T");
  EXPECT_EQ(r[Kind::kChainBomb].reading.to_string(), "7 7 7 7 8 8 8 8 9 9 9 9");
  EXPECT_EQ(r[Kind::kChainBomb].stars, 7);
  EXPECT_EQ(read_best(preset("qianbian"), CardCounts::parse("7 7 7 8 8 8 9 9 9 SJ SJ BJ"))->kind,
            Kind::kChainBomb);
}

TEST(Pattern, KindNamesRoundTrip) {
  for (int k = 0; k < kNumKinds; ++k)
    EXPECT_EQ(parse_kind(kind_name(static_cast<Kind>(k))), static_cast<Kind>(k));
  EXPECT_THROW(parse_kind("rocket"), std::invalid_argument);
}

// Every reading the reader returns is consistent: make_play over its parts
// rebuilds it, and readings compare as a strict order.
TEST(Pattern, ReadingsAreSelfConsistentAndOrdered) {
  std::mt19937_64 rng(11);
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    MoveList moves;
    std::vector<Play> plays;
    for (int trial = 0; trial < 300; ++trial) {
      generate_leads(v, testing::random_hand(rng, 27), moves);
      for (const Play& m : moves) {
        const Readings all = read_all(v, m.cards);
        ASSERT_TRUE(all.has(m.kind)) << name << " " << m.cards.to_string();
        EXPECT_EQ(all[m.kind], m) << name << " " << m.cards.to_string();
        EXPECT_EQ(make_play(v, m.kind, m.cards, m.reading), m);
        if (trial % 10 == 0) plays.push_back(m);
      }
    }
    for (const Play& a : plays) {
      EXPECT_FALSE(beats(a, a));
      for (const Play& b : plays) {
        if (beats(a, b)) EXPECT_FALSE(beats(b, a)) << a.cards.to_string() << " / " << b.cards.to_string();
        if (is_bomb(a.kind) && is_bomb(b.kind) && a.power == b.power) EXPECT_EQ(a.stars, b.stars);
      }
    }
  }
}

}  // namespace
}  // namespace shuangkou
