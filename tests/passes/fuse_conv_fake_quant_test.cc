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
  // A PRelu between the Conv and Q: its slope's shape and values ("" for none), whether the
  // slope is a graph input instead of a constant, and whether its output is a graph output.
  std::string slope_shape, slope_data;
  bool slope_input = false, prelu_is_output = false;
  // A Q/DQ pair (scale 0.03, zero point 7, uint8) between the Conv and the PRelu, as a QDQ
  // quantizer places it; whether another node (Abs) reads that pair's output too.
  bool pair_before_prelu = false, pair_read_elsewhere = false;
  // A clamp right after the Conv: "relu", "clip6" (Clip to [0, 6] by constant inputs), "clip_max"
  // (only a max, 0.5), "clip_attrs" (opset 10's attributes min -0.25, max 1) or "clip_runtime" (its
  // max a graph input); "" for none. clamp_reader: an Abs reads the Conv's output too.
  std::string clamp;
  bool clamp_reader = false;
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
  const bool prelu = !s.slope_shape.empty();
  if (prelu && !s.slope_input) {
    inits += R"(,{"name":"slope","dtype":"float32","shape":)" + s.slope_shape + R"(,"data":)" + s.slope_data + "}";
  }
  inits += R"(,{"name":"z","dtype":")" + s.zp_type + R"(","shape":[],"data":)" + s.zp + "}";
  std::string nodes = R"({"name":"conv","op":"Conv","inputs":["x","w")" + std::string(s.bias ? R"(,"b")" : "") +
                      R"(],"outputs":["c"],"attrs":)" + s.attrs + "},";
  std::string head = "c";  // the value the chain goes on from
  if (!s.clamp.empty()) {
    if (s.clamp == "relu") {
      nodes += R"({"name":"clamp","op":"Relu","inputs":["c"],"outputs":["k"]},)";
    } else if (s.clamp == "clip_attrs") {
      nodes += R"({"name":"clamp","op":"Clip","inputs":["c"],"outputs":["k"],"attrs":{"min":-0.25,"max":1.0}},)";
    } else {
      inits += R"(,{"name":"lo","dtype":"float32","shape":[],"data":[0]})";
      if (s.clamp != "clip_runtime")
        inits += R"(,{"name":"hi","dtype":"float32","shape":[],"data":)" +
                 std::string(s.clamp == "clip_max" ? "[0.5]" : "[6]") + "}";
      nodes += std::string(R"({"name":"clamp","op":"Clip","inputs":["c",)") +
               (s.clamp == "clip_max" ? R"("")" : R"("lo")") + R"(,"hi"],"outputs":["k"]},)";
    }
    if (s.clamp_reader) nodes += R"({"name":"abs_c","op":"Abs","inputs":["c"],"outputs":["ac"]},)";
    head = "k";
  }
  if (s.pair_before_prelu) {
    inits += R"(,{"name":"s0","dtype":"float32","shape":[],"data":[0.03]})";
    inits += R"(,{"name":"z0","dtype":"uint8","shape":[],"data":[7]})";
    nodes += R"({"name":"q0","op":"QuantizeLinear","inputs":[")" + head + R"(","s0","z0"],"outputs":["q0"]},)";
    nodes += R"({"name":"dq0","op":"DequantizeLinear","inputs":["q0","s0","z0"],"outputs":["f0"]},)";
  }
  if (s.pair_read_elsewhere) nodes += R"({"name":"abs","op":"Abs","inputs":["f0"],"outputs":["a"]},)";
  if (prelu) {
    nodes += std::string(R"({"name":"prelu","op":"PRelu","inputs":[")") + (s.pair_before_prelu ? "f0" : head) +
             R"(","slope"],"outputs":["p"]},)";
  }
  nodes += std::string(R"({"name":"q","op":"QuantizeLinear","inputs":[")") + (prelu ? "p" : head) +
           R"(","s","z"],"outputs":["q"]},)";
  nodes += R"({"name":"dq","op":"DequantizeLinear","inputs":["q","s","z"],"outputs":["f"]})";
  std::string outputs = R"({"name":"f"})";
  if (s.conv_is_output) outputs += R"(,{"name":"c"})";
  if (s.prelu_is_output) outputs += R"(,{"name":"p"})";
  if (s.pair_read_elsewhere) outputs += R"(,{"name":"a"})";
  if (s.clamp_reader) outputs += R"(,{"name":"ac"})";
  if (s.other_reader) {
    nodes += R"(,{"name":"relu","op":"Relu","inputs":["c"],"outputs":["r"]})";
    outputs += R"(,{"name":"r"})";
  }
  std::string inputs = R"({"name":"x","dtype":")" + t + R"(","shape":)" + DimsJson(s.x) + "}";
  if (s.slope_input) inputs += R"(,{"name":"slope","dtype":"float32","shape":)" + s.slope_shape + "}";
  if (s.clamp == "clip_runtime") inputs += R"(,{"name":"hi","dtype":"float32","shape":[]})";
  const std::string opset = s.clamp == "clip_attrs" ? "10" : "13";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":)" + opset + R"(},"inputs":[)" + inputs +
         R"(],"outputs":[)" + outputs + R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
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
  std::vector<Tensor> inputs{Input(s.x, seed)};
  if (s.slope_input) inputs.push_back(Tensor::FromVector<float>({0.25f}, {1}));
  if (s.clamp == "clip_runtime") inputs.push_back(Tensor::FromVector<float>({0.75f}, {}));
  const std::vector<std::string> passes = {"default", "fuse-q-dq,fuse-conv-fake-quant"};
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, inputs, passes, threads), "")
      << "seed " << seed << "\n"
      << Json(s);
}

// Each case reaches one way of running the convolution (conv_plan.cc's choice and the
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
      {"depthwise, planes over 32 KB (window of rows)",
       {1, 2, 100, 96},
       {2, 1, 3, 3},
       R"({"pads":[1,1,1,1],"group":2})"},
      {"depthwise stride 2, window of rows",
       {1, 2, 99, 100},
       {2, 1, 3, 3},
       R"({"pads":[1,0,2,1],"strides":[2,2],"group":2})"},
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

// The window of rows with two threads: 16 groups over 100 x 96 planes, enough work per group
// that the groups are split between the threads, each with its own window.
TEST(FuseConvFakeQuant, DepthwiseWindowsWithTwoThreads) {
  ConvSpec s;
  s.x = {1, 16, 100, 96}, s.w = {16, 1, 3, 3}, s.attrs = R"({"pads":[1,1,1,1],"strides":[2,2],"group":16})";
  ExpectFusionExact(s, 12, 2);
  s.attrs = R"({"pads":[1,1,1,1],"group":16})";
  ExpectFusionExact(s, 13, 2);
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
  // With a PRelu between two int8 pairs: per-channel slopes across the threads' column passes
  // and depthwise groups.
  for (ConvSpec s : {big, dw}) {
    s.slope_shape = "[" + std::to_string(s.w[0]) + ",1,1]", s.slope_data = Values(s.w[0], 4);
    s.pair_before_prelu = true, s.zp_type = "int8", s.zp = "[-5]";
    EXPECT_EQ(Fuse(s).first, 1);
    ExpectFusionExact(s, 14, 2);
  }
}

// Conv -> PRelu -> Q -> DQ (MobileFaceNet's pattern): a slope per channel in the shapes that
// broadcast that way, or one slope; negative, zero and NaN slopes; every convolution path
// that applies the epilogue per channel (1x1, planes, depthwise rows, gathers, groups).
TEST(FuseConvFakeQuant, PReluInBetweenIsFusedToo) {
  struct Case {
    Dims x, w;
    std::string attrs, slope_shape, slope_data;
  };
  const std::string six = R"([0.25,-0.5,0,1.5,"nan",-0.0])";
  const Case cases[] = {
      {{1, 8, 5, 7}, {6, 8, 1, 1}, "{}", "[6,1,1]", six},
      {{1, 8, 5, 7}, {6, 8, 1, 1}, "{}", "[1,6,1,1]", six},
      {{1, 8, 5, 7}, {6, 8, 1, 1}, "{}", "[1]", "[0.25]"},
      {{1, 8, 5, 7}, {6, 8, 1, 1}, "{}", "[1,1,1]", "[-2]"},
      {{1, 5, 9, 11}, {6, 5, 3, 3}, R"({"pads":[1,1,1,1]})", "[6,1,1]", six},
      {{2, 6, 20, 20}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6})", "[6,1,1]", six},
      {{1, 6, 2, 2}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6})", "[6,1,1]", six},
      {{1, 4, 6, 6}, {6, 2, 3, 3}, R"({"group":2})", "[6,1,1]", six},
      {{1, 6, 7, 7}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6})", "[6,1,1]", six},  // narrow (flat) rows
      {{1, 6, 20, 21}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6,"strides":[2,2]})", "[6,1,1]", six},
      {{1, 4, 3, 4, 5}, {6, 2, 2, 2, 2}, R"({"group":2})", "[6,1,1,1]", six},  // 3-D, im2col
  };
  for (const Case& c : cases) {
    for (bool pair_before : {false, true}) {
      ConvSpec s;
      s.x = c.x, s.w = c.w, s.attrs = c.attrs, s.slope_shape = c.slope_shape, s.slope_data = c.slope_data;
      s.pair_before_prelu = pair_before;
      const auto [n, ops] = Fuse(s);
      EXPECT_EQ(n, 1) << c.slope_shape << " " << c.attrs;
      EXPECT_EQ(ops.count("PRelu"), 0u) << c.slope_shape;
      EXPECT_EQ(ops.count("QuantizeDequantize"), 0u) << c.slope_shape;
      ExpectFusionExact(s, 20);
    }
  }
  // Another node reads the first pair's output: the chain stops there, and only the Conv and
  // that pair are fused.
  ConvSpec s;
  s.slope_shape = "[1]", s.slope_data = "[0.5]", s.pair_before_prelu = s.pair_read_elsewhere = true;
  const auto [n, ops] = Fuse(s);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(ops.count("PRelu"), 1u);
  EXPECT_EQ(ops.count("QuantizeDequantize"), 1u);
  ExpectFusionExact(s, 26);
}

// ReLU6 and other clamps between the Conv and its quantizer become the epilogue's first step,
// on the float paths (the int8 ones decline a clamp), with and without a PRelu after.
TEST(FuseConvFakeQuant, ReluOrClipAfterTheConvIsFusedAsAClamp) {
  struct Case {
    Dims x, w;
    std::string attrs;
  };
  const Case cases[] = {
      {{1, 8, 5, 7}, {13, 8, 1, 1}, "{}"},                                // 1x1 direct
      {{1, 5, 9, 11}, {6, 5, 3, 3}, R"({"pads":[1,1,1,1]})"},             // im2col
      {{2, 6, 20, 20}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6})"},  // depthwise rows
      {{1, 6, 20, 21}, {6, 1, 3, 3}, R"({"pads":[1,1,1,1],"group":6,"strides":[2,2]})"},
  };
  for (const Case& c : cases) {
    for (const char* clamp : {"relu", "clip6", "clip_max", "clip_attrs"}) {
      for (bool prelu : {false, true}) {
        ConvSpec s;
        s.x = c.x, s.w = c.w, s.attrs = c.attrs, s.clamp = clamp;
        s.scale = "[0.02]";  // a clamp to 6 then spans 300 steps: the uint8 end is reached too
        if (prelu) s.slope_shape = "[1]", s.slope_data = "[0.25]", s.pair_before_prelu = true;
        const auto [n, ops] = Fuse(s);
        EXPECT_EQ(n, 1) << clamp << " " << c.attrs;
        EXPECT_EQ(ops.count("Relu") + ops.count("Clip"), 0u) << clamp << " " << c.attrs;
        EXPECT_EQ(ops.count("ConvQuantizeDequantize"), 1u) << clamp;
        ExpectFusionExact(s, 31);
      }
    }
  }
  // Not fused: a bound known only at run time, or another reader of the Conv's output.
  for (const char* clamp : {"clip_runtime", "relu"}) {
    ConvSpec s;
    s.clamp = clamp;
    s.clamp_reader = std::string(clamp) == "relu";
    const auto [n, ops] = Fuse(s);
    EXPECT_EQ(n, 0) << clamp;
    EXPECT_EQ(ops.count("Conv"), 1u) << clamp;
    ExpectFusionExact(s, 32);
  }
}

TEST(FuseConvFakeQuant, LeavesThePReluWhenItsSlopeIsNotPerChannel) {
  ConvSpec s;
  s.x = {1, 8, 5, 7}, s.w = {6, 8, 1, 1};
  s.slope_shape = "[7]", s.slope_data = "[1,2,3,4,5,6,7]";  // one slope per column
  EXPECT_EQ(Fuse(s).first, 0);
  ExpectFusionExact(s, 21);
  s.slope_shape = "[6,5,1]", s.slope_data = Values(30, 3);  // per channel and row
  EXPECT_EQ(Fuse(s).first, 0);
  ExpectFusionExact(s, 22);
  ConvSpec input;
  input.slope_shape = "[1]", input.slope_input = true;  // not a constant
  EXPECT_EQ(Fuse(input).first, 0);
  ExpectFusionExact(input, 23);
  ConvSpec out;
  out.slope_shape = "[1]", out.slope_data = "[0.5]", out.prelu_is_output = true;
  EXPECT_EQ(Fuse(out).first, 0);
  ExpectFusionExact(out, 24);
  ConvSpec shared;
  shared.slope_shape = "[1]", shared.slope_data = "[0.5]", shared.other_reader = true;
  EXPECT_EQ(Fuse(shared).first, 0) << "another node reads the convolution's output";
  ExpectFusionExact(shared, 25);
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

// Conv -> QuantizeLinear whose 8-bit output two nodes read (so no Q/DQ pair to fuse): the 1x1
// convolution takes the fake quantization and the QuantizeLinear stays; Q(DQ(Q(y))) = Q(y).
struct QuantizeSpec {
  Dims x = {1, 40, 5, 7};
  Dims w = {13, 40, 1, 1};
  std::string attrs = "{}";
  std::string scale = "[0.05]", zp_type = "uint8", zp = "[128]", scale_shape = "[]";
  bool grid_input = false;  // X as DequantizeLinear(uint8 input), W as DequantizeLinear(int8)
  bool conv_read_elsewhere = false;
};

std::string QuantizeJson(const QuantizeSpec& s) {
  const int64_t wn = ElementCount(s.w);
  std::string inits;
  std::string nodes;
  if (s.grid_input) {
    std::mt19937 rng(3);
    std::string wq = "[";
    for (int64_t i = 0; i < wn; ++i) wq += (i ? "," : "") + std::to_string(int(rng() % 256) - 128);
    inits += R"({"name":"wq","dtype":"int8","shape":)" + DimsJson(s.w) + R"(,"data":)" + wq + "]},";
    inits += R"({"name":"ws","dtype":"float32","shape":[],"data":[0.0042]},)";
    inits +=
        R"({"name":"xs","dtype":"float32","shape":[],"data":[0.031]},{"name":"xz","dtype":"uint8","shape":[],"data":[119]},)";
    nodes += R"({"name":"dqx","op":"DequantizeLinear","inputs":["xq","xs","xz"],"outputs":["x"]},)";
    nodes += R"({"name":"dqw","op":"DequantizeLinear","inputs":["wq","ws"],"outputs":["w"]},)";
  } else {
    inits += R"({"name":"w","dtype":"float32","shape":)" + DimsJson(s.w) + R"(,"data":)" + Values(wn, 1) + "},";
  }
  inits +=
      R"({"name":"b","dtype":"float32","shape":[)" + std::to_string(s.w[0]) + R"(],"data":)" + Values(s.w[0], 2) + "},";
  inits += R"({"name":"s","dtype":"float32","shape":)" + s.scale_shape + R"(,"data":)" + s.scale + "},";
  inits += R"({"name":"z","dtype":")" + s.zp_type + R"(","shape":)" + s.scale_shape + R"(,"data":)" + s.zp + "}";
  nodes += R"({"name":"conv","op":"Conv","inputs":["x","w","b"],"outputs":["c"],"attrs":)" + s.attrs + "},";
  if (s.conv_read_elsewhere) nodes += R"({"name":"relu","op":"Relu","inputs":["c"],"outputs":["r"]},)";
  nodes += R"({"name":"q","op":"QuantizeLinear","inputs":["c","s","z"],"outputs":["q"]},)";
  nodes += R"({"name":"dq","op":"DequantizeLinear","inputs":["q","s","z"],"outputs":["f"]},)";
  nodes += R"({"name":"neg","op":"Neg","inputs":["f"],"outputs":["n"]})";
  const std::string input =
      s.grid_input ? R"({"name":"xq","dtype":"uint8","shape":)" : R"({"name":"x","dtype":"float32","shape":)";
  std::string outputs = R"([{"name":"q"},{"name":"n"})";
  if (s.conv_read_elsewhere) outputs += R"(,{"name":"r"})";
  return R"({"format":"qrt.graph","version":1,"inputs":[)" + input + DimsJson(s.x) + R"(}],"outputs":)" + outputs +
         R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph LoadQuantize(const QuantizeSpec& s) {
  StatusOr<Graph> g = LoadJsonText(QuantizeJson(s), "conv_q.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << QuantizeJson(s);
  return std::move(g).value();
}

TEST(FuseConvFakeQuant, PointwiseConvolutionBeforeAQuantizeLinearTakesItsFakeQuantization) {
  for (bool grid : {false, true}) {
    for (const char* zp : {"[0]", "[128]", "[255]"}) {
      QuantizeSpec s;
      s.grid_input = grid, s.zp = zp;
      const auto [n, ops] = testing::DefaultPassOutcome(LoadQuantize(s), "fuse-conv-fake-quant");
      EXPECT_EQ(n, 1);
      EXPECT_EQ(ops.count("Conv"), 0u);
      EXPECT_EQ(ops.at("ConvQuantizeDequantize"), 1);
      // In the default pipeline link-conv-codes then has the convolution write the QuantizeLinear's
      // codes itself; without it the QuantizeLinear stays, reading the fake quantization.
      EXPECT_EQ(ops.count("QuantizeLinear"), 0u);
      Tensor x = grid ? Tensor::Allocate(DataType::kUInt8, s.x).value() : Input(s.x, 21);
      if (grid) {
        std::mt19937 rng(22);
        for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t(rng());
      }
      const std::vector<std::string> passes = {"default", "fuse-q-dq,fuse-conv-fake-quant"};
      for (int threads : {1, 2}) {
        EXPECT_EQ(testing::CompareFusedToUnfused([&] { return LoadQuantize(s); }, {x}, passes, threads), "")
            << "grid " << grid << " zp " << zp << "\n"
            << QuantizeJson(s);
      }
    }
  }
  // Signed output, a scale at the top of the allowed range, one that is the smallest normal.
  for (const char* scale : {"[1.3e36]", "[1.1754944e-38]", "[0.0039215689]"}) {
    QuantizeSpec s;
    s.scale = scale, s.zp_type = "int8", s.zp = "[-7]";
    EXPECT_EQ(testing::DefaultPassOutcome(LoadQuantize(s), "fuse-conv-fake-quant").first, 1) << scale;
    EXPECT_EQ(testing::CompareFusedToUnfused([&] { return LoadQuantize(s); }, {Input(s.x, 23)}, {"default"}), "")
        << scale;
  }
}

TEST(FuseConvFakeQuant, LeavesAConvolutionBeforeAQuantizeLinearWhenTheRulesDoNotHold) {
  auto rewrites = [](const QuantizeSpec& s) {
    return testing::DefaultPassOutcome(LoadQuantize(s), "fuse-conv-fake-quant").first;
  };
  QuantizeSpec s;
  EXPECT_EQ(rewrites(s), 1);
  // Any kernel, stride or padding with one group is taken (the int8 path runs over patches).
  QuantizeSpec t = s;
  t.w = {13, 40, 3, 3}, t.attrs = R"({"pads":[1,1,1,1]})";
  EXPECT_EQ(rewrites(t), 1);
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return LoadQuantize(t); }, {Input(t.x, 29)}, {"default"}), "");
  t = s, t.attrs = R"({"strides":[2,2]})";
  EXPECT_EQ(rewrites(t), 1);
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return LoadQuantize(t); }, {Input(t.x, 31)}, {"default"}), "");
  t = s, t.w = {40, 1, 1, 1}, t.attrs = R"({"group":40})";
  EXPECT_EQ(rewrites(t), 0);
  t = s, t.conv_read_elsewhere = true;  // the float output is needed too
  EXPECT_EQ(rewrites(t), 0);
  for (const char* scale : {"[-0.05]", "[1e-40]", "[2e36]", "[0]"}) {  // negative, subnormal, too large, zero
    t = s, t.scale = scale;
    EXPECT_EQ(rewrites(t), 0) << scale;
  }
  t = s, t.scale_shape = "[13]", t.scale = Values(13, 5), t.zp = "[1,2,3,4,5,6,7,8,9,10,11,12,13]";
  t.attrs = "{}";
  EXPECT_EQ(rewrites(t), 0);  // per-axis
}

// The fused op written by hand: steps it cannot run are plan errors, never crashes.
TEST(FuseConvFakeQuant, TheFusedOpRejectsBadSteps) {
  auto plan = [](const std::string& inputs, const std::string& slope_shape, const std::string& attrs = "{}") {
    const std::string json =
        R"({"format":"qrt.graph","version":1,"inputs":[{"name":"x","dtype":"float32","shape":[1,2,3,3]}],)"
        R"("outputs":[{"name":"y"}],"initializers":[)"
        R"({"name":"w","dtype":"float32","shape":[4,2,1,1],"data":[1,2,3,4,5,6,7,8]},)"
        R"({"name":"s","dtype":"float32","shape":[],"data":[0.1]},)"
        R"({"name":"z","dtype":"uint8","shape":[],"data":[3]},)"
        R"({"name":"slope","dtype":"float32","shape":)" +
        slope_shape +
        R"(,"data":[0.5,0.5,0.5,0.5]}],)"
        R"("nodes":[{"name":"c","op":"ConvQuantizeDequantize","domain":"qrt","inputs":)" +
        inputs + R"(,"outputs":["y"],"attrs":)" + attrs + "}]}";
    StatusOr<Graph> g = LoadJsonText(json, "op.json", ".");
    if (!g.ok()) return StatusOr<std::vector<Tensor>>(g.status());  // too few inputs: a load error
    return testing::RunGraph(std::move(g).value(), {Tensor::Allocate(DataType::kFloat32, {1, 2, 3, 3}).value()},
                             "none");
  };
  auto ok = plan(R"(["x","w","","s","z"])", "[4]");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  ok = plan(R"(["x","w","","","","slope","s","z"])", "[4,1,1]");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  const std::pair<const char*, const char*> bad[] = {
      {R"(["x","w","","","z"])", "[4,1,1]"},          // a zero point without its scale
      {R"(["x","w","","","","","",""])", "[4,1,1]"},  // no step (an empty tail is dropped: too few inputs)
      {R"(["x","w","","","","slope","s"])", "[4]"},   // [4] broadcasts along W, not channels
      {R"(["x","w","","slope","z"])", "[4,1,1]"},     // a scale of four values
      {R"(["x","w","","s","w"])", "[4,1,1]"},         // a float zero point
  };
  for (const auto& [inputs, slope] : bad) {
    auto r = plan(inputs, slope);
    EXPECT_FALSE(r.ok()) << inputs << " slope " << slope;
  }
  // The clamp: both bounds or none; not with output_codes (the codes path writes no clamp).
  ok = plan(R"(["x","w","","s","z"])", "[4]", R"({"clamp_min":0.0,"clamp_max":6.0})");
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  auto r = plan(R"(["x","w","","s","z"])", "[4]", R"({"clamp_min":0.0})");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(testing::Contains(r.status().message(), "go together")) << r.status().message();
  r = plan(R"(["x","w","","s","z"])", "[4]", R"({"clamp_min":0.0,"clamp_max":6.0,"output_codes":1})");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(testing::Contains(r.status().message(), "only step")) << r.status().message();
}

}  // namespace
}  // namespace qrt
