// The Q network: Eigen's forward pass against a plain double-precision one,
// and model files that round-trip and refuse to load when damaged.
#include "shuangkou/model/qnet.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>

#include "test_util.h"

namespace shuangkou {
namespace {

QNet random_net(const QNetShape& shape, uint64_t seed) {
  return testing::random_qnet(shape, seed, {{"variant", "baibian"}});
}

// The textbook forward pass over the concatenated input, in double.
std::vector<double> reference(const QNet& net, const std::vector<float>& obs, const std::vector<float>& moves,
                              int count) {
  const QNetShape& s = net.shape();
  const auto& t = net.tensors();
  std::vector<double> q;
  for (int k = 0; k < count; ++k) {
    std::vector<double> a(s.hidden[0]);
    for (int i = 0; i < s.hidden[0]; ++i) {
      double z = t.at("l0.bias")[i];
      for (int j = 0; j < s.obs_size; ++j) z += double(t.at("l0.obs")[i * s.obs_size + j]) * obs[j];
      for (int j = 0; j < s.move_size; ++j)
        z += double(t.at("l0.move")[i * s.move_size + j]) * moves[k * s.move_size + j];
      a[i] = std::max(0.0, z);
    }
    for (size_t l = 1; l < s.hidden.size(); ++l) {
      std::vector<double> b(s.hidden[l]);
      const auto& w = t.at("l" + std::to_string(l) + ".weight");
      for (int i = 0; i < s.hidden[l]; ++i) {
        double z = t.at("l" + std::to_string(l) + ".bias")[i];
        for (size_t j = 0; j < a.size(); ++j) z += double(w[i * a.size() + j]) * a[j];
        b[i] = std::max(0.0, z);
      }
      a = b;
    }
    double z = t.at("out.bias")[0];
    for (size_t j = 0; j < a.size(); ++j) z += double(t.at("out.weight")[j]) * a[j];
    q.push_back(z);
  }
  return q;
}

TEST(QNet, ForwardPassEqualsThePlainOne) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const QNetShape& shape :
       {QNetShape{445, 44, {256, 128}}, QNetShape{5, 3, {4}}, QNetShape{9, 2, {7, 5, 3}}}) {
    const QNet net = random_net(shape, 3);
    for (int count : {1, 2, 25, 300, 3}) {  // growing then shrinking: the workspace is reused
      std::vector<float> obs(shape.obs_size), moves(static_cast<size_t>(count) * shape.move_size), q(count);
      for (float& x : obs) x = u(rng);
      for (float& x : moves) x = u(rng);
      net.q_values(obs.data(), moves.data(), count, q.data());
      const auto want = reference(net, obs, moves, count);
      for (int k = 0; k < count; ++k) EXPECT_NEAR(q[k], want[k], 1e-4 * (1 + std::abs(want[k])));
    }
  }
  EXPECT_EQ(random_net({445, 44, {256, 128}}, 1).multiply_adds(25),
            445 * 256 + 25 * (44 * 256 + 256 * 128 + 128));
}

TEST(QNet, ModelFilesRoundTripAndCopiesStandAlone) {
  const QNet net = random_net({6, 4, {5, 3}}, 11);
  const QNet back = QNet::from_bytes(net.to_bytes());
  EXPECT_EQ(back.shape(), net.shape());
  EXPECT_EQ(back.tensors(), net.tensors());
  EXPECT_EQ(back.metadata().at("variant"), "baibian");
  EXPECT_EQ(back.metadata().at("format"), kQNetFormat);
  std::vector<float> obs(6, 0.5f), moves(8, -0.25f), q1(2), q2(2);
  std::unique_ptr<QNet> original = std::make_unique<QNet>(net);
  const QNet copy = *original;
  original->q_values(obs.data(), moves.data(), 2, q1.data());
  original.reset();  // the copy owns its tensors
  copy.q_values(obs.data(), moves.data(), 2, q2.data());
  EXPECT_EQ(q1, q2);
}

void expect_refused(const std::string& bytes, const std::string& needle) {
  try {
    QNet::from_bytes(bytes, "test model");
    ADD_FAILURE() << "accepted; expected an error naming '" << needle << "'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("test model"), std::string::npos) << e.what();
  }
}

std::string with_header(const std::string& json, const std::string& data) {
  std::string out(8, '\0');
  const uint64_t n = json.size();
  std::memcpy(out.data(), &n, 8);
  return out + json + data;
}

TEST(QNet, DamagedOrForeignFilesAreRefused) {
  const std::string bytes = random_net({3, 2, {2}}, 5).to_bytes();
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_THROW(QNet::from_bytes(bytes.substr(0, n)), std::invalid_argument) << n;
  expect_refused(bytes + "x", "trailing bytes");
  expect_refused("hello, world", "not a model file");
  expect_refused(with_header("not json at all", ""), "not JSON");
  expect_refused(with_header(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})", "abcd"),
                 "no __metadata__");
  expect_refused(with_header(R"({"__metadata__": {"format": "pt"}})", ""), "not a shuangkou Q network");
  // The architecture in the metadata must match the tensors.
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  const std::string header = bytes.substr(8, n), data = bytes.substr(8 + n);
  std::string wrong = header;
  wrong.replace(wrong.find("\"hidden\":\"2\""), 12, "\"hidden\":\"3\"");
  expect_refused(with_header(wrong, data), "shape");
  std::string f16 = header;
  f16.replace(f16.find("F32"), 3, "F16");
  expect_refused(with_header(f16, data), "F16");
  expect_refused(with_header(header, data.substr(4)), "truncated");
  EXPECT_THROW(QNet::load("/nonexistent/model.safetensors"), std::invalid_argument);
}

// The header of a model file, and the file with another header.
std::string header_of(const std::string& bytes) {
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  return bytes.substr(8, n);
}

std::string data_of(const std::string& bytes) { return bytes.substr(8 + header_of(bytes).size()); }

// The header with metadata `key`'s value replaced by `value` (a JSON string).
std::string with_metadata(const std::string& header, const std::string& key, const std::string& value) {
  std::string out = header;
  const std::string at = "\"" + key + "\":";
  const size_t begin = out.find(at) + at.size();
  const size_t end = out.find('"', begin + 1) + 1;
  out.replace(begin, end - begin, value);
  return out;
}

TEST(QNet, SizesInTheMetadataArePlainIntegers) {
  const std::string bytes = random_net({3, 2, {2, 2}}, 6).to_bytes();
  const std::string header = header_of(bytes), data = data_of(bytes);
  for (const char* bad : {"\"2,\"", "\",2\"", "\"+2\"", "\" 2\"", "\"2 \"", "\"02\"", "\"\"", "\"2,,2\"",
                          "\"0\"", "\"65537\"", "\"-2\"", "\"2.0\"", "\"2,2,\"", "\"1e1\""}) {
    expect_refused(with_header(with_metadata(header, "hidden", bad), data), "metadata 'hidden' must be");
    expect_refused(with_header(with_metadata(header, "obs_size", bad), data), "metadata 'obs_size' must be");
    expect_refused(with_header(with_metadata(header, "move_size", bad), data),
                   "metadata 'move_size' must be");
  }
  // The writer's own form reads back.
  EXPECT_EQ(QNet::from_bytes(with_header(with_metadata(header, "hidden", "\"2,2\""), data)).shape().hidden,
            (std::vector<int>{2, 2}));
}

TEST(QNet, KeysGivenTwiceAreRefusedAnywhereInTheHeader) {
  const std::string bytes = random_net({3, 2, {2}}, 7).to_bytes();
  const std::string header = header_of(bytes), data = data_of(bytes);
  const auto twice = [&](const std::string& find, const std::string& insert) {
    std::string h = header;
    h.insert(h.find(find) + find.size(), insert);
    return with_header(h, data);
  };
  // nlohmann-json keeps the last value of a key given twice: another reader might keep the first.
  expect_refused(twice("\"__metadata__\":{", "\"variant\":\"jj\","), "gives the key 'variant' twice");
  expect_refused(twice("\"__metadata__\":{", "\"hidden\":\"7\","), "gives the key 'hidden' twice");
  expect_refused(twice("\"l0.bias\":{", "\"dtype\":\"F16\","), "gives the key 'dtype' twice");
  expect_refused(twice("{", "\"out.bias\":{},"), "gives the key 'out.bias' twice");
  // Nesting deeper than a model header's is refused before anything recurses over it.
  expect_refused(
      twice("\"__metadata__\":{", "\"x\":" + std::string(100000, '[') + std::string(100000, ']') + ","),
      "nested too deeply");
}

TEST(QNet, WhatCanBeBuiltCanBeWrittenAndReadBackAndNoMore) {
  const std::vector<int> deepest(kQNetMaxHidden, 2);
  const QNet deep = random_net({3, 2, deepest}, 8);
  EXPECT_EQ(QNet::from_bytes(deep.to_bytes()).to_bytes(), deep.to_bytes());
  std::vector<int> too_deep = deepest;
  too_deep.push_back(2);
  EXPECT_THROW(random_net({3, 2, too_deep}, 8), std::invalid_argument);
  std::string hidden = "\"2";
  for (int i = 1; i <= kQNetMaxHidden; ++i) hidden += ",2";
  expect_refused(with_header(with_metadata(header_of(deep.to_bytes()), "hidden", hidden + "\""),
                             data_of(deep.to_bytes())),
                 "must list 1..64 widths");

  const QNet widest = random_net({kQNetMaxWidth, 1, {1}}, 9);
  EXPECT_EQ(QNet::from_bytes(widest.to_bytes()).shape().obs_size, kQNetMaxWidth);
  EXPECT_THROW(random_net({kQNetMaxWidth + 1, 1, {1}}, 9), std::invalid_argument);
  EXPECT_THROW(random_net({3, 2, {kQNetMaxWidth + 1}}, 9), std::invalid_argument);

  // The header, metadata included, within kQNetMaxHeader; text that is not UTF-8 is no metadata.
  const QNet net = random_net({3, 2, {2}}, 10);
  const std::string padded = header_of(QNet(net.shape(), net.tensors(), {{"note", ""}}).to_bytes());
  const size_t room = kQNetMaxHeader - (padded.find_last_not_of(' ') + 1);  // (the writer pads to 8 bytes)
  const QNet fits(net.shape(), net.tensors(), {{"note", std::string(room, 'x')}});
  EXPECT_EQ(QNet::from_bytes(fits.to_bytes()).metadata().at("note").size(), room);
  EXPECT_THROW(QNet(net.shape(), net.tensors(), {{"note", std::string(room + 1, 'x')}}),
               std::invalid_argument);
  EXPECT_THROW(QNet(net.shape(), net.tensors(), {{"note", "\xff"}}), std::invalid_argument);
}

TEST(QNet, LoadReadsOnlyRegularFilesAndNoMoreThanTheyHold) {
  const std::string dir = ::testing::TempDir();
  EXPECT_THROW(QNet::load(dir), std::invalid_argument);  // a directory
  EXPECT_THROW(QNet::load("/dev/zero"), std::invalid_argument);
  const std::string fifo = dir + "/qnet_test.fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    QNet::load(fifo);  // opened without blocking: refused at once, not waited on
    ADD_FAILURE() << "a FIFO was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("FIFO"), std::string::npos) << e.what();
  }
  ::unlink(fifo.c_str());
  const std::string file = dir + "/qnet_test.safetensors";
  const QNet net = random_net({3, 2, {2}}, 11);
  {
    std::ofstream out(file, std::ios::binary);
    out << net.to_bytes();
  }
  EXPECT_EQ(QNet::load(file).to_bytes(), net.to_bytes());
  EXPECT_THROW(QNet::load(file + std::string(1, '\0') + "x"), std::invalid_argument);  // not cut at the NUL
  {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    out << "extra";
  }
  try {
    QNet::load(file);
    ADD_FAILURE() << "trailing bytes were accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("trailing bytes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
  }
  ::unlink(file.c_str());
}

}  // namespace
}  // namespace shuangkou
