// fuse-dq-int4-matmul: MatMul(A, DequantizeLinear(4-bit W)) becomes qrt:MatMulInt4 over packed
// codes, and its output is the unfused graph's, bit for bit, at every tier: int4 and uint4,
// with and without zero points, per tensor, per axis and blocked along either axis, one row
// and many (3-D A), odd N, K on both sides of the GEMM's k blocks.
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

struct Int4Case {
  DataType type;
  Dims a, scale;
  int64_t axis, block;
  bool zero_point;
};

Graph MakeGraph(const Int4Case& c, int64_t k, int64_t n, std::mt19937& rng) {
  ModelBuilder b("int4", {{"", 21}}, false);
  EXPECT_TRUE(b.AddInput("a", DataType::kFloat32, ShapeFromDims(c.a)).ok());
  const bool is_signed = c.type == DataType::kInt4;
  std::uniform_int_distribution<int> code(is_signed ? -8 : 0, is_signed ? 7 : 15);
  Tensor w = Tensor::Allocate(c.type, {k, n}).value();
  for (int64_t i = 0; i < k * n; ++i) static_cast<int8_t*>(w.raw())[i] = int8_t(code(rng));
  std::uniform_real_distribution<float> mantissa(1.f, 2.f);
  std::uniform_int_distribution<int> exponent(-12, 2);
  Tensor scale = Tensor::Allocate(DataType::kFloat32, c.scale).value();
  for (int64_t i = 0; i < scale.numel(); ++i) scale.data<float>()[i] = std::ldexp(mantissa(rng), exponent(rng));
  EXPECT_TRUE(b.AddInitializer("w", std::move(w)).ok());
  EXPECT_TRUE(b.AddInitializer("s", std::move(scale)).ok());
  NodeSpec dq;
  dq.name = "dq";
  dq.op_type = "DequantizeLinear";
  dq.inputs = {"w", "s"};
  if (c.zero_point) {
    Tensor zp = Tensor::Allocate(c.type, c.scale).value();
    for (int64_t i = 0; i < zp.numel(); ++i) static_cast<int8_t*>(zp.raw())[i] = int8_t(code(rng));
    EXPECT_TRUE(b.AddInitializer("z", std::move(zp)).ok());
    dq.inputs.push_back("z");
  }
  dq.outputs = {"wf"};
  dq.attrs.Set("axis", c.axis);
  if (c.block) dq.attrs.Set("block_size", c.block);
  EXPECT_TRUE(b.AddNode(std::move(dq)).ok());
  NodeSpec mm;
  mm.name = "mm";
  mm.op_type = "MatMul";
  mm.inputs = {"a", "wf"};
  mm.outputs = {"y"};
  EXPECT_TRUE(b.AddNode(std::move(mm)).ok());
  EXPECT_TRUE(b.AddOutput("y", DataType::kUndefined, std::nullopt).ok());
  return b.Finish().value();
}

TEST(FuseDqInt4MatMul, PackedProductIsTheUnfusedGraphBitForBit) {
  std::mt19937 rng(7);
  for (int64_t k : {3, 40, 300}) {
    const int64_t n = 67, blocks_k = (k + 15) / 16, blocks_n = (n + 15) / 16;
    for (DataType type : {DataType::kInt4, DataType::kUInt4}) {
      for (const Dims& a : {Dims{1, k}, Dims{5, k}, Dims{2, 3, k}}) {
        const std::vector<Int4Case> cases = {{type, a, {}, 1, 0, true},
                                             {type, a, {n}, 1, 0, false},
                                             {type, a, {k}, 0, 0, true},
                                             {type, a, {blocks_k, n}, 0, 16, true},
                                             {type, a, {k, blocks_n}, 1, 16, false},
                                             {type, a, {blocks_k, n}, 0, 16, false}};
        for (const Int4Case& c : cases) {
          const std::string what = std::string(DataTypeName(type)) + " k " + std::to_string(k) + " a " +
                                   DimsToString(a) + " scale " + DimsToString(c.scale) + " axis " +
                                   std::to_string(c.axis) + " zp " + std::to_string(c.zero_point);
          Graph g = MakeGraph(c, k, n, rng);
          Graph fused = g;
          PassStats stats;
          ASSERT_TRUE(RunPasses(fused, "default", true, &stats).ok()) << what;
          std::map<std::string, int> counts(stats.begin(), stats.end());
          ASSERT_EQ(counts["fuse-dq-int4-matmul"], 1) << what;
          int live = 0;
          for (uint32_t i = 0; i < fused.num_nodes(); ++i) live += !fused.node(NodeId{i}).dead;
          EXPECT_EQ(live, 1) << what;
          Tensor x = Tensor::Allocate(DataType::kFloat32, a).value();
          std::normal_distribution<float> normal(0.f, 10.f);
          for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = normal(rng);
          auto want = testing::RunGraph(g, {x}, "none", Isa::kScalar);
          ASSERT_TRUE(want.ok()) << want.status().message();
          for (Isa isa : TiersThisCpuHas()) {
            auto got = testing::RunGraph(g, {x}, "default", isa);
            ASSERT_TRUE(got.ok()) << got.status().message();
            EXPECT_EQ(testing::CompareBits((*got)[0], (*want)[0]), "") << what << " at " << IsaName(isa);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace qrt
