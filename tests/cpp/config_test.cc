#include "shuangkou/config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "shuangkou/variant.h"

namespace shuangkou {
namespace {

namespace fs = std::filesystem;

const fs::path kVariantsDir = fs::path(SHUANGKOU_CONFIG_DIR) / "variants";

std::string preset_path(const std::string& name) { return (kVariantsDir / (name + ".yaml")).string(); }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh folder for the files one test writes, removed afterwards.
class ConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("shuangkou_config_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

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

// The text with the line "name: old" replaced by "name: value" (or removed
// when `value` is empty). Fails the test if the line is not there once.
std::string with_line(const std::string& text, const std::string& name, const std::string& value) {
  const std::regex line("^" + name + ": [^\n]*\n", std::regex::multiline);
  const auto count =
      std::distance(std::sregex_iterator(text.begin(), text.end(), line), std::sregex_iterator());
  EXPECT_EQ(count, 1) << name;
  return std::regex_replace(text, line, value.empty() ? "" : name + ": " + value + "\n",
                            std::regex_constants::format_first_only);
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

TEST(ConfigFiles, EachPresetFileLoadsToThePreset) {
  for (const auto& name : preset_names()) {
    EXPECT_EQ(load_variant_file(preset_path(name)), preset(name)) << name;
  }
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

// Every parameter spelled out by its canonical name, in params() order, each
// under a comment that gives its allowed values.
TEST(ConfigFiles, PresetFilesSpellOutEveryParameterInOrder) {
  const std::regex key_line("^([A-Za-z_]+):");
  for (const auto& name : preset_names()) {
    std::stringstream in(read_text(preset_path(name)));
    std::vector<std::string> keys;
    std::string comments;  // the comment lines just above the current line
    bool has_copy_hint = false;
    for (std::string line; std::getline(in, line);) {
      if (line.find("opy this file") != std::string::npos) has_copy_hint = true;
      if (line.rfind("#", 0) == 0) {
        comments += line + "\n";
        continue;
      }
      std::smatch m;
      if (std::regex_search(line, m, key_line)) {
        keys.push_back(m[1]);
        EXPECT_NE(comments.find(allowed_values(m[1].str())), std::string::npos)
            << name << ": no comment with the allowed values above " << m[1];
      }
      comments.clear();
    }
    EXPECT_EQ(keys, param_names()) << name;
    EXPECT_TRUE(has_copy_hint) << name;
  }
}

TEST(ConfigFiles, ToYamlRoundTripsEveryPreset) {
  for (const auto& name : preset_names()) {
    const Variant v = preset(name);
    EXPECT_EQ(variant_from_yaml(variant_to_yaml(v), name), v) << name;
  }
}

TEST(ConfigFiles, ToYamlRoundTripsACustomMix) {
  Variant v = preset("classic");
  set_param(v, "wild_jokers", "both");
  set_param(v, "max_bomb", "5");
  set_param(v, "uneven_chain", "true");
  set_param(v, "uneven_star", "min");
  set_param(v, "tianwang", "bottom");
  set_param(v, "team_formation", "fixed");
  set_param(v, "base_table", "jj");
  set_param(v, "multiplier", "star_max");
  set_param(v, "multiplier_from", "all");
  set_param(v, "contribution", "player");
  set_param(v, "partner_visible", "true");
  const std::string text = variant_to_yaml(v);
  EXPECT_EQ(variant_from_yaml(text, "custom"), v);
  expect_contains(text, {"opy this file", "wild_jokers: both", "max_bomb: 5"});
}

TEST(ConfigFiles, ToYamlRoundTripsEveryValueOfEveryParameter) {
  for (const auto& name : param_names()) {
    for (const auto& value : allowed_list(name)) {
      Variant v = preset("qianbian");
      set_param(v, name, value);
      EXPECT_EQ(variant_from_yaml(variant_to_yaml(v), "mix"), v) << name << "=" << value;
    }
  }
}

// Copy a preset file and change one key: the variant differs from the preset
// at that parameter only.
TEST_F(ConfigFileTest, CopiedFileWithOneChangedKeyDiffersOnlyThere) {
  for (const auto& preset_name : preset_names()) {
    const Variant base = preset(preset_name);
    const std::string text = read_text(preset_path(preset_name));
    for (const auto& [name, current] : params(base)) {
      for (const auto& value : allowed_list(name)) {
        if (value == current) continue;
        const std::string path = write("my_variant.yaml", with_line(text, name, value));
        const Variant v = load_variant_file(path);
        EXPECT_EQ(differences(base, v), std::vector<std::string>{name})
            << preset_name << " " << name << "=" << value;
        Variant expected = base;
        set_param(expected, name, value);
        EXPECT_EQ(v, expected);
      }
    }
  }
}

TEST(ConfigFiles, AcceptsWhatSetParamAccepts) {
  std::string text = variant_to_yaml(preset("classic"));
  text = with_line(text, "chain_bomb", "yes");
  text = with_line(text, "three_kings", "True");
  text = with_line(text, "uneven_chain", "on");
  text = with_line(text, "collect_stars", "1");
  text = with_line(text, "wild_jokers", "bj");
  text = with_line(text, "max_bomb", "\"10\"");
  text = with_line(text, "tianwang", "'bottom'  # trailing comment");
  const Variant v = variant_from_yaml(text, "forms");
  EXPECT_TRUE(v.chain_bomb);
  EXPECT_TRUE(v.three_kings);
  EXPECT_TRUE(v.uneven_chain);
  EXPECT_TRUE(v.collect_stars);
  EXPECT_EQ(v.wild_jokers, WildJokers::kBigOnly);
  EXPECT_EQ(v.max_bomb, 10);
  EXPECT_EQ(v.tianwang, Tianwang::kBottom);
  // Key order does not matter.
  std::string reversed;
  const auto ps = params(preset("jj"));
  for (auto it = ps.rbegin(); it != ps.rend(); ++it) reversed += it->first + ": " + it->second + "\n";
  EXPECT_EQ(variant_from_yaml(reversed, "reversed"), preset("jj"));
}

// --- errors ----------------------------------------------------------------

TEST(ConfigErrors, UnknownKey) {
  const std::string text = variant_to_yaml(preset("classic")) + "max_bombs: 8\n";
  const std::string msg = error_of([&] { variant_from_yaml(text, "cfg/unknown.yaml"); });
  expect_contains(msg, {"cfg/unknown.yaml", "max_bombs", "wild_jokers", "partner_visible"});
}

TEST(ConfigErrors, AliasIsNotACanonicalKey) {
  const std::string text = std::regex_replace(variant_to_yaml(preset("classic")),
                                              std::regex("^wild_jokers:", std::regex::multiline), "wild:");
  const std::string msg = error_of([&] { variant_from_yaml(text, "alias.yaml"); });
  expect_contains(msg,
                  {"alias.yaml", "'wild'", "canonical", "missing", "wild_jokers (allowed: none, BJ, both)"});
}

TEST(ConfigErrors, EachMissingKeyIsNamedWithItsAllowedValues) {
  const std::string full = variant_to_yaml(preset("baibian"));
  for (const auto& name : param_names()) {
    const std::string msg = error_of([&] { variant_from_yaml(with_line(full, name, ""), "missing.yaml"); });
    expect_contains(msg, {"missing.yaml", "missing", name, allowed_values(name)});
  }
}

TEST(ConfigErrors, AllMissingKeysAreListed) {
  const std::string msg = error_of([] { variant_from_yaml("max_bomb: 8\n", "one_key.yaml"); });
  expect_contains(msg, {"one_key.yaml"});
  for (const auto& name : param_names()) {
    if (name == "max_bomb") continue;
    expect_contains(msg, {name + " (allowed: " + allowed_values(name) + ")"});
  }
  EXPECT_EQ(msg.find("max_bomb"), std::string::npos) << msg;
}

TEST(ConfigErrors, BadValues) {
  const std::string full = variant_to_yaml(preset("qianbian"));
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
           {"max_bomb", "\"\"", "4..12"},
       }) {
    const std::string msg =
        error_of([&] { variant_from_yaml(with_line(full, c.name, c.value), "bad.yaml"); });
    expect_contains(msg, {"bad.yaml:", "'" + c.name + "'", c.allowed});
  }
  // The message points at the line of the key.
  const std::string msg = error_of(
      [] { variant_from_yaml(with_line(variant_to_yaml(preset("classic")), "tianwang", "up"), "x.yaml"); });
  const std::string text = variant_to_yaml(preset("classic"));
  const auto line = 1 + std::count(text.begin(), text.begin() + text.find("\ntianwang:") + 1, '\n');
  expect_contains(msg, {"x.yaml:" + std::to_string(line) + ": ", "'up'", "top, bottom"});
}

TEST(ConfigErrors, ValuesMustBeScalars) {
  const std::string full = variant_to_yaml(preset("jj"));
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"max_bomb", "[8]"},
           {"chain_bomb", "\n  - true\n  - false"},
           {"bomb_order", "{stars: 1}"},
           {"tianwang", ""},  // "tianwang:" with no value
       }) {
    std::string text = with_line(full, name, "PLACEHOLDER");
    text.replace(text.find(" PLACEHOLDER"), 12, value.empty() ? "" : " " + value);
    const std::string msg = error_of([&] { variant_from_yaml(text, "shape.yaml"); });
    expect_contains(msg, {"shape.yaml:", "'" + name + "'", allowed_values(name)});
  }
}

TEST(ConfigErrors, DocumentMustBeOneMapping) {
  for (const std::string text : {"- wild_jokers\n- max_bomb\n", "classic\n", "", "# nothing\n",
                                 "max_bomb: 8\n---\nmax_bomb: 9\n", "[1, 2]: 3\n"}) {
    const std::string msg = error_of([&] { variant_from_yaml(text, "doc.yaml"); });
    expect_contains(msg, {"doc.yaml", "mapping"});
  }
}

TEST(ConfigErrors, RepeatedKey) {
  const std::string text = variant_to_yaml(preset("classic")) + "max_bomb: 9\n";
  const std::string msg = error_of([&] { variant_from_yaml(text, "twice.yaml"); });
  expect_contains(msg, {"twice.yaml", "'max_bomb'", "twice"});
}

TEST(ConfigErrors, BadYamlSyntax) {
  const std::string msg =
      error_of([] { variant_from_yaml("wild_jokers: none\nmax_bomb: [8\n", "syntax.yaml"); });
  expect_contains(msg, {"syntax.yaml", "YAML syntax error"});
  const std::string msg2 =
      error_of([] { variant_from_yaml("wild_jokers: none\n  max_bomb: 8\n", "indent.yaml"); });
  expect_contains(msg2, {"indent.yaml:2", "YAML syntax error"});
}

TEST(ConfigErrors, EveryProblemIsReported) {
  std::string text = variant_to_yaml(preset("classic"));
  text = with_line(text, "chain_bomb", "perhaps");
  text = with_line(text, "tianwang", "");
  text += "colour: red\n";
  const std::string msg = error_of([&] { variant_from_yaml(text, "many.yaml"); });
  expect_contains(msg, {"'perhaps'", "'colour'", "missing variant parameters: tianwang"});
}

TEST_F(ConfigFileTest, FileErrorsNameThePath) {
  const std::string missing = (dir_ / "no_such.yaml").string();
  expect_contains(error_of([&] { load_variant_file(missing); }), {missing, "cannot read"});
  const std::string folder = (dir_ / "folder.yaml").string();
  fs::create_directories(folder);
  expect_contains(error_of([&] { load_variant_file(folder); }), {folder, "cannot read"});
  const std::string bad = write("bad.yaml", with_line(read_text(preset_path("jj")), "max_bomb", "99"));
  expect_contains(error_of([&] { load_variant_file(bad); }), {bad + ":", "'max_bomb'", "4..12"});
  const std::string broken = write("broken.yaml", "wild_jokers: [\n");
  expect_contains(error_of([&] { load_variant_file(broken); }), {broken, "YAML syntax error"});
}

// --- resolve_variant ---------------------------------------------------------

TEST_F(ConfigFileTest, ResolveVariant) {
  for (const auto& name : preset_names()) {
    EXPECT_EQ(resolve_variant(name), preset(name)) << name;
    EXPECT_EQ(resolve_variant(preset_path(name)), preset(name)) << name;
  }
  // A path: ending in .yaml or .yml, or containing a '/'.
  Variant custom = preset("qianbian");
  set_param(custom, "max_bomb", "10");
  const std::string text = variant_to_yaml(custom);
  EXPECT_EQ(resolve_variant(write("custom.yml", text)), custom);
  EXPECT_EQ(resolve_variant(write("custom_no_extension", text)), custom);
  // A file named like a preset is still a file.
  EXPECT_EQ(resolve_variant(write("jj.yaml", text)), custom);

  // A path that is not there: the file error, not the preset one.
  expect_contains(error_of([] { resolve_variant("no_such_variant.yaml"); }),
                  {"no_such_variant.yaml", "cannot read"});
  expect_contains(error_of([] { resolve_variant("no/such/variant"); }), {"no/such/variant", "cannot read"});
  // Neither a preset nor a path: the preset error.
  expect_contains(error_of([] { resolve_variant("bai_bian"); }),
                  {"unknown variant preset 'bai_bian'", "qianbian_collect", ".yaml"});
  expect_contains(error_of([] { resolve_variant(""); }), {"unknown variant preset"});
}

}  // namespace
}  // namespace shuangkou
