// fuse-conv-fake-quant: structure after the pass, one negative test per legality rule, and the
// promise: outputs bit-identical with and without the pass, for scalar and SIMD kernels, for
// every way the float convolution runs (1x1 direct, one row, planes, depthwise rows, gathers,
// im2col, several k blocks) and with threads.
//
//   Before:  x -Conv(w, b)-> c -Q(s, z)-> q -DQ(s, z)-> f     After:  x -ConvQuantizeDequantize(w, b, s, z)-> f
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct ConvSpec {
  Dims x = {1, 8, 5, 7};
  Dims w = {13, 8, 1, 1};
  std::string attrs = "{}";
  bool bias = true;
  std::string dtype = "float32";
  std::string scale = "[0.05]", zp_type = "uint8", zp = "[128]";
  bool conv_is_output = false;  // c is also a graph output
  bool other_reader = false;    // a Relu reads c too
};

std::string DimsJson(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// n values for a tensor initializer, spread over [-1, 1).
std::string Values(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(u(rng));
  return s + "]";
}

std::string Json(const ConvSpec& s) {
  const std::string t = s.dtype;
  std::string inits = R"({"name":"w","dtype":")" + t + R"(","shape":)" + DimsJson(s.w) + R"(,"data":)" +
                      Values(ElementCount(s.w), 1) + "}";
  if (s.bias) {
    inits += R"(,{"name":"b","dtype":")" + t + R"(","shape":[)" + std::to_string(s.w[0]) + R"(],"data":)" +
             Values(s.w[0], 2) + "}";
  }
  inits += R"(,{"name":"s","dtype":"float32","shape":[],"data":)" + s.scale + "}";
  inits += R"(,{"name":"z","dtype":")" + s.zp_type + R"(","shape":[],"data":)" + s.zp + "}";
  std::string nodes = R"({"name":"conv","op":"Conv","inputs":["x","w")" + std::string(s.bias ? R"(,"b")" : "") +
                      R"(],"outputs":["c"],"attrs":)" + s.attrs + "},";
  nodes += R"({"name":"q","op":"QuantizeLinear","inputs":["c","s","z"],"outputs":["q"]},)";
  nodes += R"({"name":"dq","op":"DequantizeLinear","inputs":["q","s","z"],"outputs":["f"]})";
  std::string outputs = R"({"name":"f"})";
  if (s.conv_is_output) outputs += R"(,{"name":"c"})";
  if (s.other_reader) {
    nodes += R"(,{"name":"relu","op":"Relu","inputs":["c"],"outputs":["r"]})";
    outputs += R"(,{"name":"r"})";
  }
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":")" + t +
         R"(","shape":)" + DimsJson(s.x) + R"(}],"outputs":[)" + outputs + R"(],"initializers":[)" + inits +
         R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const ConvSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "conv.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

// (fuse-conv-fake-quant rewrites, live op counts) after the default passes.
std::pair<int, std::map<std::string, int>> Fuse(const ConvSpec& s) {
  return testing::DefaultPassOutcome(Load(s), "fuse-conv-fake-quant");
}

// Random x in [-4, 4) with every 7th element a trap (zeros of both signs, a huge value, NaN):
// the convolution's outputs then land on both saturation ends, and a NaN output reaches the
// fake quantization's NaN rule.
Tensor Input(const Dims& dims, uint32_t seed) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, dims).value();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  const float traps[] = {0.f, -0.f, 1e6f, std::numeric_limits<float>::quiet_NaN(), -3.f};
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = i % 7 == 3 ? traps[(i / 7) % 5] : u(rng);
  return t;
}

void ExpectFusionExact(const ConvSpec& s, uint32_t seed, int threads = 1) {
  const std::vector<Tensor> inputs{Input(s.x, seed)};
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, inputs, {"default", "fuse-q-dq,fuse-conv-fake-quant"},
                                           threads),
            "")
      << "seed " << seed << "\n"
      << Json(s);
}

// Each case reaches one way of running the convolution (conv_float.cc's Choose and the
// GEMM's own paths), where the epilogue is applied at a different place.
TEST(FuseConvFakeQuant, FusesAndStaysExactOnEveryConvolutionPath) {
  struct Case {
    const char* what;
    Dims x, w;
    std::string attrs;
  };
  const Case cases[] = {
      {"1x1, packed rows and a row remainder", {1, 8, 5, 7}, {13, 8, 1, 1}, "{}"},
      {"1x1, one output channel (m == 1 order)", {1, 8, 5, 7}, {1, 8, 1, 1}, "{}"},
      {"1x1, several k blocks", {1, 300, 6, 6}, {10, 300, 1, 1}, "{}"},
      {"kernel as large as the input (transposed B)", {1, 3, 4, 4}, {5, 3, 4, 4}, "{}"},
      {"kernel as large as the input, one channel", {1, 3, 4, 4}, {1, 3, 4, 4}, "{}"},
      {"3x3 planes", {1, 5, 9, 11}, {7, 5, 3, 3}, R"({"pads":[1,1,1,1]})"},
      {"3x3 stride 2 planes", {1, 4, 12, 13}, {9, 4, 3, 3}, R"({"pads":[1,1,1,1],"strides":[2,2]})"},
      {"depthwise, wide rows", {1, 6, 20, 20}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6})"},
      {"depthwise, narrow rows (flat)", {1, 6, 7, 7}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6})"},
      {"depthwise, tiny groups (gathered)", {2, 8, 2, 2}, {8, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":8})"},
      {"grouped 3-D (im2col)", {1, 4, 3, 4, 5}, {6, 2, 2, 2, 2}, R"({"group":2})"},
      {"two images", {2, 8, 5, 7}, {13, 8, 1, 1}, "{}"},
  };
  for (const Case& c : cases) {
    for (bool bias : {true, false}) {
      ConvSpec s;
      s.x = c.x, s.w = c.w, s.attrs = c.attrs, s.bias = bias;
      const auto [n, ops] = Fuse(s);
      EXPECT_EQ(n, 1) << c.what;
      EXPECT_EQ(ops.count("Conv"), 0u) << c.what;
      EXPECT_EQ(ops.count("QuantizeDequantize"), 0u) << c.what;
      EXPECT_EQ(ops.count("ConvQuantizeDequantize") ? ops.at("ConvQuantizeDequantize") : 0, 1) << c.what;
      ExpectFusionExact(s, 10);
    }
  }
}

TEST(FuseConvFakeQuant, ZeroPointsAtTheEndsOddScalesAndThreads) {
  const char* zero_points[][2] = {{"uint8", "[0]"}, {"uint8", "[255]"}, {"int8", "[-128]"}, {"int8", "[127]"}};
  for (auto& [type, zp] : zero_points) {
    for (const char* scale : {"[0.05]", "[-0.02]", "[1e-40]", "[0.0039215689]"}) {
      ConvSpec s;
      s.zp_type = type, s.zp = zp, s.scale = scale;
      s.x = {1, 6, 9, 9}, s.w = {10, 6, 3, 3}, s.attrs = R"({"pads":[1,1,1,1]})";
      EXPECT_EQ(Fuse(s).first, 1) << type << zp << scale;
      ExpectFusionExact(s, 11);
    }
  }
  // Large enough that the GEMM's column passes and the depthwise groups split across threads.
  ConvSpec big;
  big.x = {1, 32, 40, 40}, big.w = {48, 32, 3, 3}, big.attrs = R"({"pads":[1,1,1,1]})";
  ExpectFusionExact(big, 12, 2);
  ConvSpec dw;
  dw.x = {1, 32, 40, 40}, dw.w = {32, 1, 3, 3}, dw.attrs = R"({"pads":[1,1,1,1],"group":32})";
  ExpectFusionExact(dw, 13, 2);
}

TEST(FuseConvFakeQuant, LeavesTheConvolutionWhenTheRulesDoNotHold) {
  ConvSpec out;
  out.conv_is_output = true;
  EXPECT_EQ(Fuse(out).first, 0) << "the convolution's output is a graph output";
  ExpectFusionExact(out, 14);
  ConvSpec shared;
  shared.other_reader = true;
  EXPECT_EQ(Fuse(shared).first, 0) << "another node reads the convolution's output";
  ExpectFusionExact(shared, 15);
  // float64: QuantizeLinear rejects it unfused, and so does the fused op.
  ConvSpec f64;
  f64.dtype = "float64";
  Tensor x = Tensor::Allocate(DataType::kFloat64, f64.x).value();
  EXPECT_FALSE(testing::RunGraph(Load(f64), {x}, "none").ok());
  EXPECT_FALSE(testing::RunGraph(Load(f64), {x}, "default").ok());
}

}  // namespace
}  // namespace qrt
