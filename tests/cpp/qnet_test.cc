// The Q network: Eigen's forward pass against a plain double-precision one,
// and model files that round-trip and refuse to load when damaged.
#include "shuangkou/qnet.h"

#include <gtest/gtest.h>

#include <cstring>
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

}  // namespace
}  // namespace shuangkou
