// qrt:ConvQuantizeDequantize's int8 pointwise path in a graph: the quantization grids reach it
// from DequantizeLinear (X and the per-channel weights) and from another fused convolution, the
// default passes (which take the path) give the unfused float graph's bits, and the forced
// algorithm (conv_algorithm pointwise-int8) is refused where a grid is missing.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "ops/kernels/pwconv/conv_pointwise_int8.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct Net {
  int64_t k = 40, m = 7, h = 9, w = 11, batch = 1;
  // A second pointwise convolution reads the first's fake-quantized output.
  bool chained = false;
};

// xq -DQ-> x -Conv(DQ(wq, per-channel scales), b)-> -Q-> -DQ-> y, and when chained
// y -Conv(DQ(wq2, one scale))-> -Q-> -DQ-> y2. With `path`, the first convolution is written as
// the fused node (run with Algorithm(path) forced); with `float_x`, X is a float graph input (no grid).
std::string Json(const Net& n, const std::string& path = "", bool float_x = false) {
  const std::string m = std::to_string(n.m), k = std::to_string(n.k);
  const std::string dims =
      "[" + std::to_string(n.batch) + "," + k + "," + std::to_string(n.h) + "," + std::to_string(n.w) + "]";
  std::string inits =
      R"({"name":"sx","dtype":"float32","shape":[],"data":[0.0213]},{"name":"zx","dtype":"uint8","shape":[],"data":[131]},)"
      R"({"name":"wq","dtype":"int8","shape":[)" +
      m + "," + k + R"(,1,1],"data":)" + testing::RandomIntsJson(n.m * n.k, 1, -128, 127) +
      R"(},{"name":"sw","dtype":"float32","shape":[)" + m + R"(],"data":)" +
      testing::RandomFloatsJson(n.m, 2, 0.002f, 0.02f) + R"(},{"name":"b","dtype":"float32","shape":[)" + m +
      R"(],"data":)" + testing::RandomFloatsJson(n.m, 3, -1.f, 1.f) +
      R"(},{"name":"sy","dtype":"float32","shape":[],"data":[0.093]},{"name":"zy","dtype":"int8","shape":[],"data":[-5]})";
  std::string nodes =
      R"({"name":"dqw","op":"DequantizeLinear","inputs":["wq","sw"],"outputs":["w"],"attrs":{"axis":0}},)";
  if (!float_x) nodes += R"({"name":"dqx","op":"DequantizeLinear","inputs":["xq","sx","zx"],"outputs":["x"]},)";
  if (path.empty()) {
    nodes += R"({"name":"conv","op":"Conv","inputs":["x","w","b"],"outputs":["c"]},)"
             R"({"name":"q","op":"QuantizeLinear","inputs":["c","sy","zy"],"outputs":["q"]},)"
             R"({"name":"dq","op":"DequantizeLinear","inputs":["q","sy","zy"],"outputs":["y"]})";
  } else {
    nodes += R"({"name":"conv","op":"ConvQuantizeDequantize","domain":"qrt","inputs":["x","w","b","sy","zy"],)"
             R"("outputs":["y"]})";
  }
  std::string outputs = R"([{"name":"y"}])";
  if (n.chained) {
    inits += R"(,{"name":"wq2","dtype":"int8","shape":[5,)" + m + R"(,1,1],"data":)" +
             testing::RandomIntsJson(5 * n.m, 4, -128, 127) +
             R"(},{"name":"sw2","dtype":"float32","shape":[],"data":[0.0123]})"
             R"(,{"name":"sy2","dtype":"float32","shape":[],"data":[0.071]})";
    nodes += R"(,{"name":"dqw2","op":"DequantizeLinear","inputs":["wq2","sw2"],"outputs":["w2"]},)";
    if (path.empty()) {
      nodes += R"({"name":"conv2","op":"Conv","inputs":["y","w2"],"outputs":["c2"]},)"
               R"({"name":"q2","op":"QuantizeLinear","inputs":["c2","sy2"],"outputs":["q2"]},)"
               R"({"name":"dq2","op":"DequantizeLinear","inputs":["q2","sy2"],"outputs":["y2"]})";
    } else {  // the second reads the first fused node's grid
      nodes += R"({"name":"conv2","op":"ConvQuantizeDequantize","domain":"qrt","inputs":["y","w2","","sy2"],)"
               R"("outputs":["y2"]})";
    }
    outputs = R"([{"name":"y2"}])";
  }
  const std::string input =
      float_x ? R"({"name":"x","dtype":"float32","shape":)" : R"({"name":"xq","dtype":"uint8","shape":)";
  return R"({"format":"qrt.graph","version":1,"inputs":[)" + input + dims + R"(}],"outputs":)" + outputs +
         R"(,"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const std::string& json) {
  StatusOr<Graph> g = LoadJsonText(json, "int8.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << json;
  return std::move(g).value();
}

// "int8": the integer pointwise path; "f32": the float one (direct, for these 1x1 convolutions).
std::string Algorithm(const std::string& path) { return path == "int8" ? "pointwise-int8" : "direct"; }

StatusOr<std::vector<Tensor>> RunForced(const std::string& json, const std::string& path,
                                        const std::vector<Tensor>& inputs) {
  return testing::RunGraph(Load(json), inputs, "none", kIsaAuto, 1, Algorithm(path));
}

Tensor Input(const Net& n, uint32_t seed) {
  Tensor t = Tensor::Allocate(DataType::kUInt8, {n.batch, n.k, n.h, n.w}).value();
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = uint8_t(rng());
  return t;
}

TEST(ConvInt8Grid, DefaultPassesGiveTheUnfusedFloatGraphsBits) {
  // k 16 and up takes the integer path (the chained second convolution too, reading the first's
  // grid); 300 with two k blocks; a batch of 2.
  for (const Net& n : {Net{32, 7, 9, 11, 1, false}, Net{40, 32, 9, 11, 2, true}, Net{300, 17, 5, 30, 1, true},
                       Net{64, 24, 16, 16, 1, false}}) {
    for (int threads : {1, 2}) {
      const std::string json = Json(n);
      EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(json); }, {Input(n, 7)}, {"default"}, threads), "")
          << "k " << n.k << " threads " << threads;
    }
  }
}

TEST(ConvInt8Grid, TheGridsReachTheFusedNodeAndTheForcedPathsAgree) {
  if (!PointwiseInt8Available())
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX512_VNNI: the int8 pointwise path is refused and the ordered float "
                    "convolution runs (tested in conv_test)";
  Net n;
  auto int8 = RunForced(Json(n, "int8"), "int8", {Input(n, 9)});
  ASSERT_TRUE(int8.ok()) << int8.status().message();  // X's and W's grids came from their DQs
  auto f32 = RunForced(Json(n, "f32"), "f32", {Input(n, 9)});
  ASSERT_TRUE(f32.ok()) << f32.status().message();
  EXPECT_EQ(testing::CompareBits((*int8)[0], (*f32)[0]), "");
}

// Grids from a fused convolution's output and from qrt:QuantizeDequantize reach the consumer.
TEST(ConvInt8Grid, GridsFromFusedConvolutionsAndFakeQuantizers) {
  if (!PointwiseInt8Available())
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX512_VNNI: the int8 pointwise path is refused and the ordered float "
                    "convolution runs (tested in conv_test)";
  Net n;
  n.m = 32, n.chained = true;
  auto int8 = RunForced(Json(n, "int8"), "int8", {Input(n, 11)});
  ASSERT_TRUE(int8.ok()) << int8.status().message();
  auto f32 = RunForced(Json(n, "f32"), "f32", {Input(n, 11)});
  ASSERT_TRUE(f32.ok()) << f32.status().message();
  EXPECT_EQ(testing::CompareBits((*int8)[0], (*f32)[0]), "");
  // X from qrt:QuantizeDequantize of a float input.
  std::string json = Json(n, "int8", true);
  const std::string to_conv = R"("inputs":["x","w","b","sy","zy"])";
  json.replace(json.find(to_conv), to_conv.size(), R"("inputs":["xg","w","b","sy","zy"])");
  const std::string first_node = R"("nodes":[)";
  json.replace(
      json.find(first_node), first_node.size(),
      R"("nodes":[{"name":"fq","op":"QuantizeDequantize","domain":"qrt","inputs":["x","sx","zx"],"outputs":["xg"]},)");
  Tensor x = Tensor::Allocate(DataType::kFloat32, {n.batch, n.k, n.h, n.w}).value();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = u(rng);
  auto r = RunForced(json, "int8", {x});
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto r32 = RunForced(json, "f32", {x});
  ASSERT_TRUE(r32.ok()) << r32.status().message();
  EXPECT_EQ(testing::CompareBits((*r)[0], (*r32)[0]), "");
}

TEST(ConvInt8Grid, ForcingTheIntegerPathWithoutAGridIsRefused) {
  if (!PointwiseInt8Available())
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX512_VNNI: the int8 pointwise path is refused and the ordered float "
                    "convolution runs (tested in conv_test)";
  Net n;
  auto r = RunForced(Json(n, "int8", true), "int8",
                     {Tensor::Allocate(DataType::kFloat32, {n.batch, n.k, n.h, n.w}).value()});
  ASSERT_FALSE(r.ok());  // X is a float graph input: no grid
  EXPECT_TRUE(testing::Contains(r.status().message(), "conv_algorithm pointwise-int8")) << r.status().message();
  EXPECT_TRUE(
      RunForced(Json(n, "f32", true), "f32", {Tensor::Allocate(DataType::kFloat32, {n.batch, n.k, n.h, n.w}).value()})
          .ok());
}

}  // namespace
}  // namespace qrt
