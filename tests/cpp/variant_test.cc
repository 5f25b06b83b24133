#include "shuangkou/core/variant.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace shuangkou {
namespace {

// docs/rules.md §13, column by column.
TEST(Variant, PresetsMatchTheRulesTable) {
  const Variant c = preset("classic");
  EXPECT_EQ(c.wild_jokers, WildJokers::kNone);
  EXPECT_EQ(c.max_bomb, 8);
  EXPECT_FALSE(c.chain_bomb);
  EXPECT_FALSE(c.uneven_chain);
  EXPECT_FALSE(c.three_kings);
  EXPECT_EQ(c.bomb_order, BombOrder::kCount);
  EXPECT_EQ(c.tianwang, Tianwang::kTop);
  EXPECT_EQ(c.first_lead, FirstLead::kPreviousWinner);
  EXPECT_EQ(c.base_table, BaseTable::kClassic);
  EXPECT_EQ(c.multiplier, MultiplierRule::kBombCountMax);
  EXPECT_EQ(c.contribution, ContributionRule::kNone);
  EXPECT_FALSE(c.partner_visible);

  const Variant b = preset("baibian");
  EXPECT_EQ(b.wild_jokers, WildJokers::kBigOnly);
  EXPECT_EQ(b.max_bomb, 8);
  EXPECT_TRUE(b.chain_bomb);
  EXPECT_FALSE(b.uneven_chain);
  EXPECT_TRUE(b.three_kings);
  EXPECT_EQ(b.bomb_order, BombOrder::kStars);
  EXPECT_EQ(b.tianwang, Tianwang::kTop);
  EXPECT_EQ(b.first_lead, FirstLead::kRevealedCard);
  EXPECT_EQ(b.base_table, BaseTable::kCommon);
  EXPECT_EQ(b.multiplier, MultiplierRule::kStarMax);
  EXPECT_EQ(b.multiplier_from, MultiplierFrom::kWinners);
  EXPECT_EQ(b.contribution, ContributionRule::kPlayer);
  EXPECT_FALSE(b.partner_visible);

  const Variant q = preset("qianbian");
  EXPECT_EQ(q.wild_jokers, WildJokers::kBoth);
  EXPECT_EQ(q.max_bomb, 8);
  EXPECT_TRUE(q.chain_bomb);
  EXPECT_TRUE(q.uneven_chain);
  EXPECT_EQ(q.uneven_star, UnevenStar::kMax);
  EXPECT_TRUE(q.three_kings);
  EXPECT_EQ(q.bomb_order, BombOrder::kStars);
  EXPECT_EQ(q.tianwang, Tianwang::kTop);
  EXPECT_EQ(q.first_lead, FirstLead::kRevealedCard);
  EXPECT_EQ(q.multiplier, MultiplierRule::kStarMax);
  EXPECT_EQ(q.multiplier_from, MultiplierFrom::kAll);
  EXPECT_EQ(q.contribution, ContributionRule::kTeam);
  EXPECT_FALSE(q.collect_stars);

  const Variant qc = preset("qianbian_collect");
  EXPECT_EQ(qc.wild_jokers, WildJokers::kBoth);
  EXPECT_EQ(qc.max_bomb, 12);
  EXPECT_TRUE(qc.uneven_chain);
  EXPECT_EQ(qc.uneven_star, UnevenStar::kMin);
  EXPECT_EQ(qc.tianwang, Tianwang::kBottom);
  EXPECT_EQ(qc.first_lead, FirstLead::kRandom);
  EXPECT_EQ(qc.multiplier_from, MultiplierFrom::kAll);
  EXPECT_EQ(qc.contribution, ContributionRule::kTeam);
  EXPECT_TRUE(qc.collect_stars);

  const Variant j = preset("jj");
  EXPECT_EQ(j.wild_jokers, WildJokers::kBigOnly);
  EXPECT_TRUE(j.chain_bomb);
  EXPECT_FALSE(j.uneven_chain);
  EXPECT_TRUE(j.three_kings);
  EXPECT_EQ(j.first_lead, FirstLead::kRevealedCard);
  EXPECT_EQ(j.base_table, BaseTable::kJJ);
  EXPECT_EQ(j.multiplier, MultiplierRule::kStarProduct);
  EXPECT_EQ(j.contribution, ContributionRule::kNone);
  EXPECT_TRUE(j.partner_visible);
}

TEST(Variant, UnknownPresetNamesTheKnownOnes) {
  try {
    preset("bai_bian");
    FAIL();
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("bai_bian"), std::string::npos);
    EXPECT_NE(msg.find("qianbian_collect"), std::string::npos);
  }
}

// The parameters whose values differ between two variants.
std::vector<std::string> differing(const Variant& a, const Variant& b) {
  std::vector<std::string> out;
  const auto pa = params(a), pb = params(b);
  for (size_t i = 0; i < pa.size(); ++i)
    if (pa[i].second != pb[i].second) out.push_back(pa[i].first);
  return out;
}

// A preset built on another differs from it in exactly the parameters its
// description names (docs/rules.md §13).
TEST(Variant, PresetsBuiltOnAnotherChangeOnlyTheirOwnParameters) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(differing(preset("baibian"), preset("qianbian")),
            (Names{"wild_jokers", "uneven_chain", "multiplier_from", "contribution"}));
  EXPECT_EQ(differing(preset("qianbian"), preset("qianbian_collect")),
            (Names{"max_bomb", "uneven_star", "tianwang", "first_lead", "collect_stars"}));
  EXPECT_EQ(differing(preset("baibian"), preset("jj")),
            (Names{"base_table", "multiplier", "multiplier_from", "contribution", "partner_visible"}));
  EXPECT_EQ(preset("classic"), Variant{});  // the defaults are the classic rules
}

TEST(Variant, PresetLookupIgnoresCase) {
  for (const auto& name : preset_names()) {
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(preset(upper), preset(name)) << upper;
  }
}

TEST(Variant, EveryPresetHasADescriptionAndUnknownOnesAreNamed) {
  std::set<std::string_view> seen;
  for (const auto& name : preset_names()) {
    const std::string_view d = preset_description(name);
    EXPECT_GT(d.size(), 20u) << name;
    EXPECT_TRUE(seen.insert(d).second) << name << ": the same description as another preset";
  }
  EXPECT_EQ(preset_description("JJ"), preset_description("jj"));
  EXPECT_EQ(preset_names(),
            (std::vector<std::string>{"classic", "baibian", "qianbian", "qianbian_collect", "jj"}));
  for (auto lookup :
       {+[](std::string_view n) { preset(n); }, +[](std::string_view n) { preset_description(n); }}) {
    try {
      lookup("nope");
      ADD_FAILURE() << "an unknown preset was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(),
                   "unknown variant preset 'nope' (known: classic, baibian, qianbian, qianbian_collect, jj)");
    }
  }
}

TEST(Variant, EveryParameterIsSettableAloneAndRoundTrips) {
  for (const auto& name : preset_names()) {
    const Variant base = preset(name);
    for (const auto& [param, text] : params(base)) {
      Variant v = base;
      set_param(v, param, text);
      EXPECT_EQ(v, base) << name << " " << param;
    }
  }
  // Each parameter changes exactly its own field.
  Variant v = preset("classic");
  set_param(v, "max_bomb", "10");
  EXPECT_EQ(v.max_bomb, 10);
  set_param(v, "wild", "both");
  EXPECT_EQ(v.wild_jokers, WildJokers::kBoth);
  set_param(v, "wild_jokers", "bj");
  EXPECT_EQ(v.wild_jokers, WildJokers::kBigOnly);
  set_param(v, "chain_bomb", "true");
  set_param(v, "uneven_chain", "yes");
  set_param(v, "uneven_star", "min");
  set_param(v, "three_kings", "1");
  set_param(v, "bomb_order", "stars");
  set_param(v, "tianwang", "bottom");
  set_param(v, "first_lead", "random");
  set_param(v, "team_formation", "fixed");
  set_param(v, "base_table", "jj");
  set_param(v, "multiplier", "star_product");
  set_param(v, "multiplier_from", "all");
  set_param(v, "contribution", "team");
  set_param(v, "collect_stars", "true");
  set_param(v, "partner_visible", "on");
  EXPECT_TRUE(v.chain_bomb && v.uneven_chain && v.three_kings && v.collect_stars && v.partner_visible);
  EXPECT_EQ(v.uneven_star, UnevenStar::kMin);
  EXPECT_EQ(v.bomb_order, BombOrder::kStars);
  EXPECT_EQ(v.tianwang, Tianwang::kBottom);
  EXPECT_EQ(v.first_lead, FirstLead::kRandom);
  EXPECT_EQ(v.team_formation, TeamFormation::kFixed);
  EXPECT_EQ(v.base_table, BaseTable::kJJ);
  EXPECT_EQ(v.multiplier, MultiplierRule::kStarProduct);
  EXPECT_EQ(v.multiplier_from, MultiplierFrom::kAll);
  EXPECT_EQ(v.contribution, ContributionRule::kTeam);
  EXPECT_EQ(param_names().size(), params(v).size());
}

TEST(Variant, BadParametersNameTheProblemAndChangeNothing) {
  const Variant before = preset("baibian");
  struct Case {
    const char* name;
    const char* value;
    const char* expect_in_message;
  };
  const Case cases[] = {
      {"max_bomb", "3", "4..12"},
      {"max_bomb", "13", "4..12"},
      {"max_bomb", "eight", "max_bomb"},
      {"max_bomb", "8x", "max_bomb"},
      {"chain_bomb", "maybe", "true, false"},
      {"bomb_order", "size", "count, stars"},
      {"wild", "SJ", "none, BJ, both"},
      {"tianwang", "middle", "top, bottom"},
      {"maxbomb", "8", "unknown variant parameter"},
      {"first_lead", "", "revealed_card"},
  };
  for (const auto& c : cases) {
    Variant v = before;
    try {
      set_param(v, c.name, c.value);
      ADD_FAILURE() << c.name << "=" << c.value << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect_in_message), std::string::npos) << e.what();
    }
    EXPECT_EQ(v, before);
  }
}

}  // namespace
}  // namespace shuangkou
