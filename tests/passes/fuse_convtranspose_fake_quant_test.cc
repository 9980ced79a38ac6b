// fuse-convtranspose-fake-quant: a QDQ ConvTranspose's output fake quantization moves into the
// op, and the promise: outputs bit-identical with and without the pass (scalar and AVX2
// kernels), with and without B, strided, grouped; left alone when the output has another reader.
//
//   x -Q-DQ-> ConvTranspose(DQ(w), b) -> t -Q-DQ-> y      =>      ... ConvTransposeQuantizeDequantize -> y
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct CtSpec {
  int64_t in_channels = 4, out_per_group = 3, group = 1;
  bool bias = true;
  bool t_used = false;  // t is also a graph output
  std::string attrs = R"("strides":[2,2],"pads":[1,1,1,1],"output_padding":[1,1])";
};

std::string Json(const CtSpec& s) {
  const int64_t w_count = s.in_channels * s.out_per_group * 9, out_channels = s.out_per_group * s.group;
  std::string inits = R"({"name":"s1","dtype":"float32","shape":[],"data":[0.04]},)"
                      R"({"name":"z1","dtype":"uint8","shape":[],"data":[128]},)"
                      R"({"name":"s2","dtype":"float32","shape":[],"data":[0.03]},)"
                      R"({"name":"z2","dtype":"uint8","shape":[],"data":[121]},)"
                      R"({"name":"ws","dtype":"float32","shape":[],"data":[0.02]},)";
  inits += R"({"name":"wq","dtype":"int8","shape":[)" + std::to_string(s.in_channels) + "," +
           std::to_string(s.out_per_group) + R"(,3,3],"data":)" + testing::RandomIntsJson(w_count, 1, -127, 127) + "}";
  if (s.bias) {
    inits += R"(,{"name":"b","dtype":"float32","shape":[)" + std::to_string(out_channels) + R"(],"data":)" +
             testing::RandomIntsJson(out_channels, 2, -3, 3) + "}";
  }
  std::string nodes = R"({"name":"q1","op":"QuantizeLinear","inputs":["x","s1","z1"],"outputs":["xq"]},)"
                      R"({"name":"dq1","op":"DequantizeLinear","inputs":["xq","s1","z1"],"outputs":["xf"]},)"
                      R"({"name":"dqw","op":"DequantizeLinear","inputs":["wq","ws"],"outputs":["w"]},)";
  nodes += R"({"name":"ct","op":"ConvTranspose","inputs":["xf","w")" + std::string(s.bias ? R"(,"b")" : "") +
           R"(],"outputs":["t"],"attrs":{)" + s.attrs + R"(,"group":)" + std::to_string(s.group) + "}},";
  nodes += R"({"name":"q2","op":"QuantizeLinear","inputs":["t","s2","z2"],"outputs":["tq"]},)"
           R"({"name":"dq2","op":"DequantizeLinear","inputs":["tq","s2","z2"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"})";
  if (s.t_used) outputs += R"(,{"name":"t"})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":"float32","shape":[2,)" +
         std::to_string(s.in_channels) + R"(,7,9]}],"outputs":[)" + outputs + R"(],"initializers":[)" + inits +
         R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const CtSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "ct.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

Tensor Inputs(const CtSpec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 2.f);
  Tensor t = Tensor::Allocate(DataType::kFloat32, {2, s.in_channels, 7, 9}).value();
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = i % 5 == 0 ? 0.02f * float(i % 9) : d(rng);
  return t;
}

void ExpectExact(const CtSpec& s, uint32_t seed) {
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, {Inputs(s, seed)},
                                           {"default", "fuse-convtranspose-fake-quant"}),
            "")
      << Json(s);
}

TEST(FuseConvTransposeFakeQuant, FusesAndStaysExact) {
  CtSpec grouped;
  grouped.group = 2;
  CtSpec no_bias;
  no_bias.bias = false;
  CtSpec plain;
  plain.attrs = R"("strides":[1,1])";
  for (const CtSpec& s : {CtSpec{}, grouped, no_bias, plain}) {
    const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-convtranspose-fake-quant");
    EXPECT_EQ(n, 1) << Json(s);
    EXPECT_EQ(ops.count("ConvTranspose"), 0u);
    EXPECT_EQ(ops.at("QuantizeDequantize"), 1);  // the input's
    EXPECT_EQ(ops.at("ConvTransposeQuantizeDequantize"), 1);
    ExpectExact(s, 3);
  }
}

TEST(FuseConvTransposeFakeQuant, LeavesAnOutputWithAnotherReader) {
  CtSpec s;
  s.t_used = true;
  const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-convtranspose-fake-quant");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(ops.at("ConvTranspose"), 1);
  ExpectExact(s, 4);
}

}  // namespace
}  // namespace qrt
