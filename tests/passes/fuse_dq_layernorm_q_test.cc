// fuse-dq-layernorm-q: DQ -> LayerNormalization -> Q becomes qrt:LayerNormQuantized, and its
// output is the unfused graph's bit for bit at every tier: uint8 and int8 both ends, rows on
// both sides of the layer norm kernel's switch (MLAS's kernel from 8, Welford's below), a middle
// axis (rows over the trailing axes), without bias, a Q without zero point; refused when the
// LayerNormalization's output or statistics are read elsewhere.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct LnCase {
  DataType x_type, y_type;
  Dims dims;
  int64_t axis;
  bool bias = true, y_zero_point = true, ln_is_output = false, mean_is_output = false;
};

Tensor Codes(DataType t, uint8_t bits) {
  Tensor z = Tensor::Allocate(t, {}).value();
  static_cast<uint8_t*>(z.raw())[0] = bits;
  return z;
}

Graph MakeGraph(const LnCase& c) {
  ModelBuilder b("lnq", {{"", 17}}, false);
  EXPECT_TRUE(b.AddInput("x", c.x_type, ShapeFromDims(c.dims)).ok());
  int64_t n = 1;
  for (size_t d = size_t(c.axis < 0 ? int64_t(c.dims.size()) + c.axis : c.axis); d < c.dims.size(); ++d) {
    n *= c.dims[d];
  }
  const Dims norm(c.dims.end() - (c.axis < 0 ? -c.axis : int64_t(c.dims.size()) - c.axis), c.dims.end());
  std::mt19937 rng(11);
  std::normal_distribution<float> gauss(1.f, 0.4f);
  std::vector<float> gamma(static_cast<size_t>(n)), beta(static_cast<size_t>(n));
  for (auto& v : gamma) v = gauss(rng);
  for (auto& v : beta) v = gauss(rng) - 1.f;
  EXPECT_TRUE(b.AddInitializer("gamma", Tensor::FromVector<float>(gamma, norm)).ok());
  EXPECT_TRUE(b.AddInitializer("beta", Tensor::FromVector<float>(beta, norm)).ok());
  EXPECT_TRUE(b.AddInitializer("sx", Tensor::FromVector<float>({0.0417f}, {})).ok());
  EXPECT_TRUE(b.AddInitializer("zx", Codes(c.x_type, c.x_type == DataType::kInt8 ? uint8_t(int8_t(-5)) : 129)).ok());
  EXPECT_TRUE(b.AddInitializer("sy", Tensor::FromVector<float>({0.023f}, {})).ok());
  EXPECT_TRUE(b.AddInitializer("zy", Codes(c.y_type, c.y_type == DataType::kInt8 ? 3 : 121)).ok());
  NodeSpec dq{"dq", std::nullopt, "DequantizeLinear", {"x", "sx", "zx"}, {"xf"}, {}};
  NodeSpec ln{"ln", std::nullopt, "LayerNormalization", {"xf", "gamma"}, {"yf"}, {}};
  if (c.bias) ln.inputs.push_back("beta");
  if (c.mean_is_output) ln.outputs.push_back("mean");
  ln.attrs.Set("axis", c.axis);
  ln.attrs.Set("epsilon", 1e-5f);
  NodeSpec q{"q", std::nullopt, "QuantizeLinear", {"yf", "sy"}, {"y"}, {}};
  if (c.y_zero_point) q.inputs.push_back("zy");
  for (NodeSpec* node : {&dq, &ln, &q}) EXPECT_TRUE(b.AddNode(std::move(*node)).ok());
  EXPECT_TRUE(b.AddOutput("y", DataType::kUndefined, std::nullopt).ok());
  if (c.ln_is_output) EXPECT_TRUE(b.AddOutput("yf", DataType::kUndefined, std::nullopt).ok());
  if (c.mean_is_output) EXPECT_TRUE(b.AddOutput("mean", DataType::kUndefined, std::nullopt).ok());
  return b.Finish().value();
}

void Check(const LnCase& c, int want_rewrites) {
  const std::string what = std::string(DataTypeName(c.x_type)) + "->" + std::string(DataTypeName(c.y_type)) + " " +
                           DimsToString(c.dims) + " axis " + std::to_string(c.axis);
  Graph g = MakeGraph(c);
  Graph fused = g;
  PassStats stats;
  ASSERT_TRUE(RunPasses(fused, "default", true, &stats).ok()) << what;
  std::map<std::string, int> counts(stats.begin(), stats.end());
  EXPECT_EQ(counts["fuse-dq-layernorm-q"], want_rewrites) << what;
  Tensor x = Tensor::Allocate(c.x_type, c.dims).value();
  std::mt19937 rng(5);
  for (int64_t i = 0; i < x.numel(); ++i) static_cast<uint8_t*>(x.raw())[i] = uint8_t(rng());
  // A row of one repeated code: zero variance, the output is beta's quantization.
  if (x.numel() >= c.dims.back()) {
    for (int64_t i = 0; i < c.dims.back(); ++i) static_cast<uint8_t*>(x.raw())[i] = 77;
  }
  auto want = testing::RunGraph(g, {x}, "none", Isa::kScalar);
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (Isa isa : TiersThisCpuHas()) {
    auto got = testing::RunGraph(g, {x}, "default", isa);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), want->size());
    for (size_t k = 0; k < want->size(); ++k) {
      EXPECT_EQ(testing::CompareBits((*got)[k], (*want)[k]), "") << what << " output " << k << " at " << IsaName(isa);
    }
  }
}

TEST(FuseDqLayerNormQ, RowByRowIsTheUnfusedGraphBitForBit) {
  for (DataType xt : {DataType::kUInt8, DataType::kInt8}) {
    for (DataType yt : {DataType::kUInt8, DataType::kInt8}) {
      Check({xt, yt, {2, 32, 64}, -1}, 1);  // a transformer's rows: MLAS's kernel
      Check({xt, yt, {3, 5}, -1}, 1);       // Welford's rows
      Check({xt, yt, {2, 3, 4, 5}, 2}, 1);  // rows over the last two axes
    }
  }
  Check({DataType::kUInt8, DataType::kUInt8, {4, 300}, -1, /*bias=*/false}, 1);
  Check({DataType::kUInt8, DataType::kUInt8, {4, 20}, -1, true, /*y_zero_point=*/false}, 1);
}

TEST(FuseDqLayerNormQ, RefusesWhenFloatsAreReadElsewhere) {
  Check({DataType::kUInt8, DataType::kUInt8, {4, 20}, -1, true, true, /*ln_is_output=*/true}, 0);
  Check({DataType::kInt8, DataType::kUInt8, {4, 20}, -1, true, true, false, /*mean_is_output=*/true}, 0);
}

}  // namespace
}  // namespace qrt
