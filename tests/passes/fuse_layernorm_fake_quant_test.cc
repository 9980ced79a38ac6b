// fuse-layernorm-fake-quant: the QDQ LayerNormalization of a quantized transformer becomes one
// node, and the promise: outputs bit-identical with and without the pass (scalar and AVX2
// kernels), on rows long and short, with and without B, the input fake quantization taken or
// left to a residual reader; one negative test per legality rule.
//
//   x -Q-DQ-> xf -LayerNorm-> t -Q-DQ-> y      =>      x -LayerNormQuantizeDequantize-> y
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct LnSpec {
  Dims x_dims = {2, 5, 24};
  int64_t axis = -1;
  bool bias = true;
  bool residual = false;   // an Add reads xf too
  bool mean_used = false;  // the Mean output is a graph output
  bool t_used = false;     // t is also a graph output
  std::string x_type = "float32";
};

std::string DimsJson(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string FloatsJson(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(d(rng));
  return s + "]";
}

std::string Json(const LnSpec& s) {
  const int64_t rank = int64_t(s.x_dims.size()), axis = s.axis < 0 ? s.axis + rank : s.axis;
  Dims norm(s.x_dims.begin() + axis, s.x_dims.end());
  const int64_t n = ElementCount(norm);
  std::string inits = R"({"name":"s1","dtype":"float32","shape":[],"data":[0.031]},)"
                      R"({"name":"z1","dtype":"uint8","shape":[],"data":[131]},)"
                      R"({"name":"s2","dtype":"float32","shape":[],"data":[0.027]},)"
                      R"({"name":"z2","dtype":"int8","shape":[],"data":[-3]},)";
  inits += R"({"name":"g","dtype":"float32","shape":)" + DimsJson(norm) + R"(,"data":)" + FloatsJson(n, 1) + "}";
  if (s.bias)
    inits += R"(,{"name":"b","dtype":"float32","shape":)" + DimsJson(norm) + R"(,"data":)" + FloatsJson(n, 2) + "}";
  std::string nodes = R"({"name":"q1","op":"QuantizeLinear","inputs":["x","s1","z1"],"outputs":["xq"]},)"
                      R"({"name":"dq1","op":"DequantizeLinear","inputs":["xq","s1","z1"],"outputs":["xf"]},)";
  const std::string ln_outputs = s.mean_used ? R"(["t","mean"])" : R"(["t"])";
  nodes += R"({"name":"ln","op":"LayerNormalization","inputs":["xf","g")" + std::string(s.bias ? R"(,"b")" : "") +
           R"(],"outputs":)" + ln_outputs + R"(,"attrs":{"axis":)" + std::to_string(s.axis) + "}},";
  nodes += R"({"name":"q2","op":"QuantizeLinear","inputs":["t","s2","z2"],"outputs":["tq"]},)"
           R"({"name":"dq2","op":"DequantizeLinear","inputs":["tq","s2","z2"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"})";
  if (s.residual) {
    nodes += R"(,{"name":"add","op":"Add","inputs":["xf","y"],"outputs":["r"]})";
    outputs += R"(,{"name":"r"})";
  }
  if (s.mean_used) outputs += R"(,{"name":"mean"})";
  if (s.t_used) outputs += R"(,{"name":"t"})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":17},"inputs":[{"name":"x","dtype":")" + s.x_type +
         R"(","shape":)" + DimsJson(s.x_dims) + R"(}],"outputs":[)" + outputs + R"(],"initializers":[)" + inits +
         R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const LnSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "ln.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

// Random rows, rows at a large offset, rows that quantize to one code (variance 0), huge values.
Tensor Inputs(const LnSpec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 2.f);
  Tensor t = Tensor::Allocate(DataType::kFloat32, s.x_dims).value();
  float* p = t.data<float>();
  const int64_t row = s.x_dims.back();
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t r = i / row;
    p[i] = r % 4 == 1 ? 3.f + d(rng) * 0.01f : r % 4 == 2 ? 0.5f : r % 4 == 3 && i % 7 == 0 ? 1e9f : d(rng);
  }
  return t;
}

void ExpectExact(const LnSpec& s, uint32_t seed) {
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, {Inputs(s, seed)},
                                           {"default", "fuse-layernorm-fake-quant"}),
            "")
      << Json(s);
}

TEST(FuseLayerNormFakeQuant, FusesBothFakeQuantizationsAndStaysExact) {
  for (const Dims& dims : {Dims{2, 5, 24}, Dims{3, 7}, Dims{1, 4, 768}, Dims{2, 3, 13}}) {
    for (bool bias : {true, false}) {
      LnSpec s;
      s.x_dims = dims;
      s.bias = bias;
      const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-layernorm-fake-quant");
      EXPECT_EQ(n, 1) << DimsToString(dims);
      EXPECT_EQ(ops.count("LayerNormalization"), 0u);
      EXPECT_EQ(ops.count("QuantizeDequantize"), 0u);
      EXPECT_EQ(ops.at("LayerNormQuantizeDequantize"), 1);
      ExpectExact(s, 7);
    }
  }
  LnSpec axis1;  // two normalized axes
  axis1.x_dims = {2, 3, 8};
  axis1.axis = 1;
  EXPECT_EQ(testing::DefaultPassOutcome(Load(axis1), "fuse-layernorm-fake-quant").first, 1);
  ExpectExact(axis1, 8);
}

TEST(FuseLayerNormFakeQuant, LeavesTheInputFakeQuantToAResidualReader) {
  LnSpec s;
  s.residual = true;
  const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-layernorm-fake-quant");
  EXPECT_EQ(n, 1);
  EXPECT_EQ(ops.at("QuantizeDequantize"), 1);  // xf's, read by the Add too
  EXPECT_EQ(ops.at("LayerNormQuantizeDequantize"), 1);
  ExpectExact(s, 9);
}

TEST(FuseLayerNormFakeQuant, RefusesWhenTheRulesDoNotHold) {
  LnSpec mean;
  mean.mean_used = true;
  LnSpec t;
  t.t_used = true;
  for (const LnSpec& s : {mean, t}) {
    const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-layernorm-fake-quant");
    EXPECT_EQ(n, 0);
    EXPECT_EQ(ops.at("LayerNormalization"), 1);
    ExpectExact(s, 10);
  }
}

}  // namespace
}  // namespace qrt
