// fuse-dq-maxpool-q: DQ -> MaxPool -> Q with one grid becomes MaxPool on the codes, and the
// output is the unfused graph's bit for bit at every tier: uint8 and int8 (zero points at the
// ends), SPPF's 5x5 window and three pools in a row, strides, windows over nothing but
// padding, a Q without zero point; refused where the grids differ, the pool's output is read
// elsewhere, it has Indices, or its opset takes no 8-bit input.
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

struct PoolCase {
  std::string what;
  DataType type = DataType::kUInt8;
  int32_t zero_point = 131;
  Dims dims = {1, 3, 9, 11};
  std::vector<int64_t> kernel = {5, 5}, strides = {1, 1}, pads = {2, 2, 2, 2};
  int chain = 1;          // pools in a row, each between a DQ and a Q (SPPF)
  float q_scale = 0.05f;  // the Q's scale (the DQ's is 0.05)
  int32_t q_zero_point_shift = 0;
  bool no_zero_point = false;  // DQ and Q without zero points (uint8)
  bool pool_read_elsewhere = false, indices = false;
  int64_t opset = 13;
};

Graph MakeGraph(const PoolCase& c) {
  ModelBuilder b("mpq", {{"", c.opset}}, false);
  EXPECT_TRUE(b.AddInput("x", c.type, ShapeFromDims(c.dims)).ok());
  EXPECT_TRUE(b.AddInitializer("s", Tensor::FromVector<float>({0.05f}, {})).ok());
  EXPECT_TRUE(b.AddInitializer("sq", Tensor::FromVector<float>({c.q_scale}, {})).ok());
  for (auto [name, shift] : {std::pair{"z", 0}, std::pair{"zq", c.q_zero_point_shift}}) {
    Tensor z = Tensor::Allocate(c.type, {}).value();
    static_cast<uint8_t*>(z.raw())[0] = uint8_t(c.zero_point + shift);
    EXPECT_TRUE(b.AddInitializer(name, std::move(z)).ok());
  }
  std::string in = "x";
  for (int i = 0; i < c.chain; ++i) {
    const std::string n = std::to_string(i), f = "f" + n, m = "m" + n, q = "q" + n;
    NodeSpec dq{"dq" + n, std::nullopt, "DequantizeLinear", {in, "s"}, {f}, {}};
    if (!c.no_zero_point) dq.inputs.push_back("z");
    NodeSpec pool{"pool" + n, std::nullopt, "MaxPool", {f}, {m}, {}};
    if (c.indices) pool.outputs.push_back("idx" + n);
    pool.attrs.Set("kernel_shape", c.kernel);
    pool.attrs.Set("strides", c.strides);
    pool.attrs.Set("pads", c.pads);
    NodeSpec qn{"q" + n, std::nullopt, "QuantizeLinear", {m, "sq"}, {q}, {}};
    if (!c.no_zero_point) qn.inputs.push_back("zq");
    for (NodeSpec* node : {&dq, &pool, &qn}) EXPECT_TRUE(b.AddNode(std::move(*node)).ok());
    if (c.pool_read_elsewhere) EXPECT_TRUE(b.AddOutput(m, DataType::kUndefined, std::nullopt).ok());
    if (c.indices) EXPECT_TRUE(b.AddOutput("idx" + n, DataType::kUndefined, std::nullopt).ok());
    in = q;
  }
  EXPECT_TRUE(b.AddOutput(in, DataType::kUndefined, std::nullopt).ok());
  return b.Finish().value();
}

void Check(const PoolCase& c, int want_rewrites) {
  Graph g = MakeGraph(c);
  PassStats stats;
  ASSERT_TRUE(RunPasses(g, "default", true, &stats).ok()) << c.what;
  std::map<std::string, int> counts(stats.begin(), stats.end());
  EXPECT_EQ(counts["fuse-dq-maxpool-q"], want_rewrites) << c.what;
  Tensor x = Tensor::Allocate(c.type, c.dims).value();
  std::mt19937 rng(3);
  for (int64_t i = 0; i < x.numel(); ++i) {
    x.data<uint8_t>()[i] = rng() % 6 == 0 ? uint8_t(rng() % 2 ? 0 : 255) : uint8_t(rng());  // the ends too
  }
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return MakeGraph(c); }, {x}, {"default"}), "") << c.what;
}

TEST(FuseDqMaxPoolQ, PoolsTheCodesWithTheSameBits) {
  PoolCase sppf;
  sppf.what = "SPPF, three 5x5 pools";
  sppf.chain = 3;
  Check(sppf, 3);
  PoolCase s8 = sppf;
  s8.what = "int8, zero point -128", s8.type = DataType::kInt8, s8.zero_point = -128;
  Check(s8, 3);
  PoolCase top = s8;
  top.what = "int8, zero point 127", top.zero_point = 127;
  Check(top, 3);
  PoolCase strided;
  strided.what = "3x3 stride 2, wide rows", strided.dims = {2, 2, 20, 70}, strided.kernel = {3, 3};
  strided.strides = {2, 2}, strided.pads = {1, 1, 1, 1};
  Check(strided, 1);
  PoolCase padding;
  padding.what = "windows over nothing but padding", padding.kernel = {1, 1}, padding.pads = {1, 1, 1, 1};
  Check(padding, 1);
  PoolCase plain;
  plain.what = "no zero points", plain.no_zero_point = true, plain.zero_point = 0;
  Check(plain, 1);
}

TEST(FuseDqMaxPoolQ, RefusesWhereTheCodesWouldDiffer) {
  PoolCase c;
  c.what = "another scale", c.q_scale = 0.06f;
  Check(c, 0);
  c = PoolCase(), c.what = "another zero point", c.q_zero_point_shift = 1;
  Check(c, 0);
  c = PoolCase(), c.what = "the pool's floats read elsewhere", c.pool_read_elsewhere = true;
  Check(c, 0);
  c = PoolCase(), c.what = "Indices", c.indices = true;
  Check(c, 0);
  c = PoolCase(), c.what = "opset 11", c.opset = 11;
  Check(c, 0);
}

}  // namespace
}  // namespace qrt
