#include "shuangkou/core/rules.h"

#include <gtest/gtest.h>

#include "shuangkou/rl/vector_env.h"

namespace shuangkou {
namespace {

TEST(Rules, CopiesShareOneCatalogueBuiltOnFirstUse) {
  const Rules r = Rules::preset("qianbian");
  EXPECT_EQ(r.name(), "qianbian");
  EXPECT_EQ(r.variant(), preset("qianbian"));
  EXPECT_FALSE(r.catalogue_built());
  const Rules copy = r;
  const ActionCatalogue& c = copy.catalogue();
  EXPECT_TRUE(r.catalogue_built());
  EXPECT_EQ(&r.catalogue(), &c);
  EXPECT_EQ(c.size(), 12580);
}

TEST(Rules, AVectorEnvUsesTheCatalogueOfItsRules) {
  VectorEnvOptions o;
  o.rules = Rules::preset("baibian");
  o.num_envs = 2;
  const VectorEnv env(o);
  EXPECT_EQ(&env.catalogue(), &o.rules.catalogue());
  EXPECT_EQ(&env.rules().catalogue(), &o.rules.catalogue());
}

TEST(Rules, NamedVariantsAndPresetErrors) {
  Variant v = preset("classic");
  v.max_bomb = 10;
  const Rules r("classic max_bomb=10", v);
  EXPECT_EQ(r.variant().max_bomb, 10);
  EXPECT_EQ(r.name(), "classic max_bomb=10");
  EXPECT_EQ(Rules().variant(), preset("classic"));
  EXPECT_THROW(Rules::preset("bai_bian"), std::invalid_argument);
}

}  // namespace
}  // namespace shuangkou
