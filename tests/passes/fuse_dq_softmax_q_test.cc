// fuse-dq-softmax-q: DQ -> Softmax -> Q becomes qrt:SoftmaxQuantized, and its output is the
// unfused graph's bit for bit at every tier: uint8 and int8, the last axis, a middle axis
// (strided rows), opset 11's 2-D coercion, a Q without zero point; refused when the Softmax's
// output is also read elsewhere.
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

struct SoftmaxCase {
  DataType x_type, y_type;
  Dims dims;
  int64_t opset, axis;
  bool y_zero_point, softmax_is_output;
};

Graph MakeGraph(const SoftmaxCase& c) {
  ModelBuilder b("smq", {{"", c.opset}}, false);
  EXPECT_TRUE(b.AddInput("x", c.x_type, ShapeFromDims(c.dims)).ok());
  EXPECT_TRUE(b.AddInitializer("sx", Tensor::FromVector<float>({0.173f}, {})).ok());
  Tensor zx = Tensor::Allocate(c.x_type, {}).value();
  static_cast<uint8_t*>(zx.raw())[0] = c.x_type == DataType::kInt8 ? uint8_t(int8_t(-7)) : 131;
  EXPECT_TRUE(b.AddInitializer("zx", std::move(zx)).ok());
  EXPECT_TRUE(b.AddInitializer("sy", Tensor::FromVector<float>({1.f / 256}, {})).ok());
  Tensor zy = Tensor::Allocate(c.y_type, {}).value();
  static_cast<uint8_t*>(zy.raw())[0] = c.y_type == DataType::kInt8 ? uint8_t(int8_t(-128)) : 0;
  EXPECT_TRUE(b.AddInitializer("zy", std::move(zy)).ok());
  NodeSpec dq{"dq", std::nullopt, "DequantizeLinear", {"x", "sx", "zx"}, {"xf"}, {}};
  NodeSpec sm{"sm", std::nullopt, "Softmax", {"xf"}, {"p"}, {}};
  sm.attrs.Set("axis", c.axis);
  NodeSpec q{"q", std::nullopt, "QuantizeLinear", {"p", "sy"}, {"y"}, {}};
  if (c.y_zero_point) q.inputs.push_back("zy");
  for (NodeSpec* n : {&dq, &sm, &q}) EXPECT_TRUE(b.AddNode(std::move(*n)).ok());
  EXPECT_TRUE(b.AddOutput("y", DataType::kUndefined, std::nullopt).ok());
  if (c.softmax_is_output) {
    EXPECT_TRUE(b.AddOutput("p", DataType::kUndefined, std::nullopt).ok());
  }
  return b.Finish().value();
}

void Check(const SoftmaxCase& c, int want_rewrites) {
  const std::string what = std::string(DataTypeName(c.x_type)) + "->" + std::string(DataTypeName(c.y_type)) + " " +
                           DimsToString(c.dims) + " opset " + std::to_string(c.opset) + " axis " +
                           std::to_string(c.axis);
  Graph g = MakeGraph(c);
  Graph fused = g;
  PassStats stats;
  ASSERT_TRUE(RunPasses(fused, "default", true, &stats).ok()) << what;
  std::map<std::string, int> counts(stats.begin(), stats.end());
  EXPECT_EQ(counts["fuse-dq-softmax-q"], want_rewrites) << what;
  Tensor x = Tensor::Allocate(c.x_type, c.dims).value();
  std::mt19937 rng(3);
  for (int64_t i = 0; i < x.numel(); ++i) static_cast<uint8_t*>(x.raw())[i] = uint8_t(rng());
  auto want = testing::RunGraph(g, {x}, "none", Isa::kScalar);
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (Isa isa : TiersThisCpuHas()) {
    auto got = testing::RunGraph(g, {x}, "default", isa);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(testing::CompareBits((*got)[0], (*want)[0]), "") << what << " at " << IsaName(isa);
  }
}

TEST(FuseDqSoftmaxQ, RowByRowIsTheUnfusedGraphBitForBit) {
  for (DataType xt : {DataType::kUInt8, DataType::kInt8}) {
    for (DataType yt : {DataType::kUInt8, DataType::kInt8}) {
      Check({xt, yt, {2, 4, 7, 33}, 13, -1, true, false}, 1);
      Check({xt, yt, {2, 4, 7, 33}, 13, 1, true, false}, 1);
      Check({xt, yt, {3, 5, 6}, 11, 1, true, false}, 1);
      Check({xt, yt, {1, 2, 300}, 13, 2, true, false}, 1);
    }
  }
  Check({DataType::kUInt8, DataType::kUInt8, {4, 20}, 13, -1, false, false}, 1);
  Check({DataType::kInt8, DataType::kUInt8, {4, 20}, 13, -1, true, true}, 0);
}

}  // namespace
}  // namespace qrt
