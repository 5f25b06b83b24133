// The meaning of config-file entries (variant_from_entries), the YAML writer
// and path detection. The YAML syntax itself (PyYAML) and file handling are
// tested from Python: tests/python/test_config.py.
#include "shuangkou/core/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "shuangkou/core/variant.h"

namespace shuangkou {
namespace {

namespace fs = std::filesystem;

const fs::path kVariantsDir = fs::path(SHUANGKOU_CONFIG_DIR) / "variants";

// The entries a complete file for `v` holds, one per line in params() order.
std::vector<ConfigEntry> entries_of(const Variant& v) {
  std::vector<ConfigEntry> out;
  int line = 0;
  for (const auto& [name, value] : params(v)) out.push_back({name, value, ++line, ""});
  return out;
}

// `entries` with the one of `name` given `value` (or removed when `value` is
// empty). Fails the test if there is not exactly one such entry.
std::vector<ConfigEntry> with_entry(std::vector<ConfigEntry> entries, const std::string& name,
                                    const std::string& value) {
  int found = 0;
  for (auto it = entries.begin(); it != entries.end();) {
    if (it->name != name) {
      ++it;
      continue;
    }
    ++found;
    if (value.empty()) {
      it = entries.erase(it);
    } else {
      it->value = value;
      ++it;
    }
  }
  EXPECT_EQ(found, 1) << name;
  return entries;
}

// The value set_param is given for each allowed value of a parameter:
// "a, b, c" lists, "4..12" ranges.
std::vector<std::string> allowed_list(const std::string& name) {
  const std::string allowed = allowed_values(name);
  std::vector<std::string> out;
  if (const auto dots = allowed.find(".."); dots != std::string::npos) {
    const int lo = std::stoi(allowed.substr(0, dots));
    const int hi = std::stoi(allowed.substr(dots + 2));
    for (int n = lo; n <= hi; ++n) out.push_back(std::to_string(n));
    return out;
  }
  std::stringstream ss(allowed);
  for (std::string item; std::getline(ss, item, ',');) {
    item.erase(0, item.find_first_not_of(' '));
    out.push_back(item);
  }
  return out;
}

// The parameter names of the params() entries where a and b differ.
std::vector<std::string> differences(const Variant& a, const Variant& b) {
  std::vector<std::string> out;
  const auto pa = params(a), pb = params(b);
  for (size_t i = 0; i < pa.size(); ++i)
    if (pa[i].second != pb[i].second) out.push_back(pa[i].first);
  return out;
}

// Runs `f`, which must throw std::invalid_argument, and returns its message.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return "";
}

void expect_contains(const std::string& msg, std::initializer_list<std::string> parts) {
  for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in:\n" << msg;
}

TEST(ConfigFiles, OneFilePerPresetAndNoOthers) {
  std::vector<std::string> stems;
  for (const auto& entry : fs::directory_iterator(kVariantsDir)) {
    EXPECT_EQ(entry.path().extension(), ".yaml") << entry.path();
    stems.push_back(entry.path().stem().string());
  }
  std::sort(stems.begin(), stems.end());
  std::vector<std::string> names = preset_names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(stems, names);
}

TEST(ConfigEntries, EntriesOfEveryPresetGiveThePreset) {
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    EXPECT_EQ(variant_from_entries(entries_of(v), name), v) << name;
  }
}

TEST(ConfigEntries, EveryValueOfEveryParameter) {
  for (const auto& name : param_names()) {
    for (const auto& value : allowed_list(name)) {
      Variant v = preset("qianbian");
      set_param(v, name, value);
      EXPECT_EQ(variant_from_entries(entries_of(v), "mix"), v) << name << "=" << value;
    }
  }
}

// Change one entry of a preset's: the variant differs at that parameter only.
TEST(ConfigEntries, OneChangedEntryDiffersOnlyThere) {
  for (const auto& preset_name : preset_names()) {
    const Variant base = preset(preset_name);
    for (const auto& [name, current] : params(base)) {
      for (const auto& value : allowed_list(name)) {
        if (value == current) continue;
        const Variant v = variant_from_entries(with_entry(entries_of(base), name, value), "my.yaml");
        EXPECT_EQ(differences(base, v), std::vector<std::string>{name})
            << preset_name << " " << name << "=" << value;
        Variant expected = base;
        set_param(expected, name, value);
        EXPECT_EQ(v, expected);
      }
    }
  }
}

TEST(ConfigEntries, AcceptsWhatSetParamAcceptsInAnyOrder) {
  auto e = entries_of(preset("classic"));
  e = with_entry(e, "chain_bomb", "yes");
  e = with_entry(e, "three_kings", "True");
  e = with_entry(e, "uneven_chain", "on");
  e = with_entry(e, "collect_stars", "1");
  e = with_entry(e, "wild_jokers", "bj");
  e = with_entry(e, "max_bomb", "10");
  const Variant v = variant_from_entries(e, "forms");
  EXPECT_TRUE(v.chain_bomb);
  EXPECT_TRUE(v.three_kings);
  EXPECT_TRUE(v.uneven_chain);
  EXPECT_TRUE(v.collect_stars);
  EXPECT_EQ(v.wild_jokers, WildJokers::kBigOnly);
  EXPECT_EQ(v.max_bomb, 10);
  auto reversed = entries_of(preset("jj"));
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(variant_from_entries(reversed, "reversed"), preset("jj"));
}

TEST(ConfigWriter, EveryParameterInOrderUnderItsAllowedValues) {
  const std::regex key_line("^([A-Za-z_]+): (.*)$");
  for (const auto& name : preset_names()) {
    std::stringstream in(variant_to_yaml(preset(name)));
    std::vector<std::pair<std::string, std::string>> keys;
    std::string comments;  // the comment lines just above the current line
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("#", 0) == 0) {
        comments += line + "\n";
        continue;
      }
      std::smatch m;
      if (std::regex_search(line, m, key_line)) {
        keys.emplace_back(m[1], m[2]);
        EXPECT_NE(comments.find(allowed_values(m[1].str())), std::string::npos)
            << name << ": no comment with the allowed values above " << m[1];
      }
      comments.clear();
    }
    EXPECT_EQ(keys, params(preset(name))) << name;
  }
}

TEST(ConfigWriter, CommentsCiteOnlyTheProjectsRules) {
  const std::string text = variant_to_yaml(preset("qianbian"));
  expect_contains(text, {"opy this file", "docs/rules.md"});
  EXPECT_EQ(text.find(std::string("RULES") + ".md"), std::string::npos);  // no file outside
}

TEST(ConfigPaths, PathOrPreset) {
  for (const std::string s : {"a.yaml", "b.yml", "dir/x", "/abs/path", "./classic"})
    EXPECT_TRUE(is_variant_path(s)) << s;
  for (const std::string s : {"classic", "baibian", "bai_bian", "", "yaml"})
    EXPECT_FALSE(is_variant_path(s)) << s;
}

// --- errors ----------------------------------------------------------------

TEST(ConfigErrors, UnknownKey) {
  auto e = entries_of(preset("classic"));
  e.push_back({"max_bombs", "8", 40, ""});
  const std::string msg = error_of([&] { variant_from_entries(e, "cfg/unknown.yaml"); });
  expect_contains(msg, {"cfg/unknown.yaml:40: ", "max_bombs", "wild_jokers", "partner_visible"});
}

TEST(ConfigErrors, AliasIsNotACanonicalKey) {
  auto e = entries_of(preset("classic"));
  e[0].name = "wild";
  const std::string msg = error_of([&] { variant_from_entries(e, "alias.yaml"); });
  expect_contains(msg,
                  {"alias.yaml", "'wild'", "canonical", "missing", "wild_jokers (allowed: none, BJ, both)"});
}

TEST(ConfigErrors, EachMissingKeyIsNamedWithItsAllowedValues) {
  const auto full = entries_of(preset("baibian"));
  for (const auto& name : param_names()) {
    const std::string msg =
        error_of([&] { variant_from_entries(with_entry(full, name, ""), "missing.yaml"); });
    expect_contains(msg, {"missing.yaml", "missing", name, allowed_values(name)});
  }
}

TEST(ConfigErrors, AllMissingKeysAreListed) {
  const std::string msg = error_of([] { variant_from_entries({{"max_bomb", "8", 1, ""}}, "one_key.yaml"); });
  expect_contains(msg, {"one_key.yaml"});
  for (const auto& name : param_names()) {
    if (name == "max_bomb") continue;
    expect_contains(msg, {name + " (allowed: " + allowed_values(name) + ")"});
  }
  EXPECT_EQ(msg.find("max_bomb"), std::string::npos) << msg;
  expect_contains(error_of([] { variant_from_entries({}, "empty.yaml"); }), {"empty.yaml", "missing"});
}

TEST(ConfigErrors, BadValuesNameTheLine) {
  const auto full = entries_of(preset("qianbian"));
  struct Case {
    std::string name, value, allowed;
  };
  for (const Case& c : std::vector<Case>{
           {"chain_bomb", "maybe", "true, false"},
           {"partner_visible", "2", "true, false"},
           {"bomb_order", "size", "count, stars"},
           {"first_lead", "dealer", "revealed_card, previous_winner, random"},
           {"wild_jokers", "SJ", "none, BJ, both"},
           {"max_bomb", "13", "4..12"},
           {"max_bomb", "3", "4..12"},
           {"max_bomb", "eight", "4..12"},
           {"max_bomb", "8.0", "4..12"},
           {"max_bomb", " ", "4..12"},
       }) {
    const auto e = with_entry(full, c.name, c.value);
    int line = 0;
    for (const auto& x : e)
      if (x.name == c.name) line = x.line;
    const std::string msg = error_of([&] { variant_from_entries(e, "bad.yaml"); });
    expect_contains(msg, {"bad.yaml:" + std::to_string(line) + ": ", "'" + c.name + "'", c.allowed});
  }
}

TEST(ConfigErrors, ValuesMustBeScalars) {
  for (const std::string shape : {"a list", "a mapping", "empty"}) {
    auto e = entries_of(preset("jj"));
    e[1].shape = shape;
    const std::string msg = error_of([&] { variant_from_entries(e, "shape.yaml"); });
    expect_contains(msg, {"shape.yaml:2: ", "'max_bomb' is " + shape, "4..12"});
  }
}

TEST(ConfigErrors, RepeatedKey) {
  auto e = entries_of(preset("classic"));
  e.push_back({"max_bomb", "9", 30, ""});
  const std::string msg = error_of([&] { variant_from_entries(e, "twice.yaml"); });
  expect_contains(msg, {"twice.yaml:30: ", "'max_bomb'", "twice", "first at line 2"});
}

TEST(ConfigErrors, EveryProblemIsReported) {
  auto e = entries_of(preset("classic"));
  e = with_entry(e, "chain_bomb", "perhaps");
  e = with_entry(e, "tianwang", "");
  e.push_back({"colour", "red", 50, ""});
  const std::string msg = error_of([&] { variant_from_entries(e, "many.yaml"); });
  expect_contains(msg, {"'perhaps'", "'colour'", "missing variant parameters: tianwang"});
}

}  // namespace
}  // namespace shuangkou
