// fuse-integer-epilogue: ONNX Runtime's dynamically quantized convolution (and, at the end,
// its matrix product)
//   x -DynamicQuantizeLinear-> ConvInteger [-> Add(int32 bias)] -> Cast -> Mul(x_scale * w_scale)
//     [-> Add(bias)]
// becomes one qrt:ConvIntegerToFloat, and the promise: outputs bit-identical with and without
// the pass at every ISA tier, for per-tensor and per-channel scales, biases computed at run time
// (as the quantizer writes them) or absent, grouped and padded geometries; one negative test per
// legality rule.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct Spec {
  int64_t c = 6, m = 8, k = 3, group = 1, hw = 9;
  bool int_bias = true, float_bias = false;
  bool per_channel = false;      // w_scale of shape [M, 1, 1]
  std::string w_scale_shape;     // overrides the shape of w_scale (refusal cases)
  bool cast_read_twice = false;  // the Cast's output is a graph output too
  int cast_to = 1;
};

std::string Json(const Spec& s) {
  const int64_t cg = s.c / s.group, wn = s.m * cg * s.k * s.k;
  const std::string ws_shape = !s.w_scale_shape.empty() ? s.w_scale_shape
                               : s.per_channel          ? "[" + std::to_string(s.m) + ",1,1]"
                                                        : "[]";
  const int64_t ws_n = s.w_scale_shape == "[1,1,1,9]" ? 9 : s.w_scale_shape == "[8]" ? 8 : s.per_channel ? s.m : 1;
  std::string inits = R"({"name":"w","dtype":"uint8","shape":[)" + std::to_string(s.m) + "," + std::to_string(cg) +
                      "," + std::to_string(s.k) + "," + std::to_string(s.k) + R"(],"data":)" +
                      testing::RandomIntsJson(wn, 1, 0, 255) + "},";
  inits += R"({"name":"wz","dtype":"uint8","shape":[],"data":[131]},)";
  inits += R"({"name":"ws","dtype":"float32","shape":)" + ws_shape + R"(,"data":)" +
           testing::RandomFloatsJson(ws_n, 2, 0.001f, 0.02f) + "},";
  // The bias divides by the scales in their flat form ([M] per channel), as the quantizer does.
  inits += R"({"name":"wsf","dtype":"float32","shape":)" +
           std::string(ws_n == 1 ? "[]" : "[" + std::to_string(ws_n) + "]") + R"(,"data":)" +
           testing::RandomFloatsJson(ws_n, 2, 0.001f, 0.02f) + "},";
  inits += R"({"name":"bf","dtype":"float32","shape":[)" + std::to_string(s.m) + R"(],"data":)" +
           testing::RandomFloatsJson(s.m, 3, -2.f, 2.f) + "},";
  inits += R"({"name":"bshape","dtype":"int64","shape":[4],"data":[1,-1,1,1]},)";
  inits += R"({"name":"fb","dtype":"float32","shape":[1,)" + std::to_string(s.m) + R"(,1,1],"data":)" +
           testing::RandomFloatsJson(s.m, 4, -1.f, 1.f) + "}";
  const int64_t pad = s.k / 2;
  std::string conv_attrs = R"({"group":)" + std::to_string(s.group) + R"(,"pads":[)" + std::to_string(pad) + "," +
                           std::to_string(pad) + "," + std::to_string(pad) + "," + std::to_string(pad) + "]}";
  std::string nodes = R"({"name":"dql","op":"DynamicQuantizeLinear","inputs":["x"],"outputs":["xq","xs","xz"]},)"
                      R"({"name":"conv","op":"ConvInteger","inputs":["xq","w","xz","wz"],"outputs":["acc"],"attrs":)" +
                      conv_attrs + "},";
  nodes += R"({"name":"scale","op":"Mul","inputs":["xs","ws"],"outputs":["k"]},)";
  std::string cast_in = "acc";
  if (s.int_bias) {
    nodes += R"({"name":"bscale","op":"Mul","inputs":["xs","wsf"],"outputs":["kf"]},)"
             R"({"name":"bdiv","op":"Div","inputs":["bf","kf"],"outputs":["bq"]},)"
             R"({"name":"bfloor","op":"Floor","inputs":["bq"],"outputs":["bfl"]},)"
             R"({"name":"bcast","op":"Cast","inputs":["bfl"],"outputs":["bi"],"attrs":{"to":6}},)"
             R"({"name":"breshape","op":"Reshape","inputs":["bi","bshape"],"outputs":["bir"]},)"
             R"({"name":"badd","op":"Add","inputs":["acc","bir"],"outputs":["accb"]},)";
    cast_in = "accb";
  }
  nodes += R"({"name":"cast","op":"Cast","inputs":[")" + cast_in + R"("],"outputs":["accf"],"attrs":{"to":)" +
           std::to_string(s.cast_to) + "}},";
  nodes += R"({"name":"mul","op":"Mul","inputs":["accf","k"],"outputs":[")" + std::string(s.float_bias ? "t" : "y") +
           R"("]})";
  if (s.float_bias) nodes += R"(,{"name":"add","op":"Add","inputs":["fb","t"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"})";
  if (s.cast_read_twice) outputs += R"(,{"name":"accf"})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":"float32","shape":[2,)" +
         std::to_string(s.c) + "," + std::to_string(s.hw) + "," + std::to_string(s.hw) + R"(]}],"outputs":[)" +
         outputs + R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const Spec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "citf.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

Tensor Input(const Spec& s, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.3f, 1.5f);
  Tensor t = Tensor::Allocate(DataType::kFloat32, {2, s.c, s.hw, s.hw}).value();
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

void ExpectExact(const Spec& s) {
  for (uint32_t seed : {5u, 6u}) {
    EXPECT_EQ(
        testing::CompareFusedToUnfused([&] { return Load(s); }, {Input(s, seed)}, {"default", "fuse-integer-epilogue"}),
        "")
        << Json(s);
  }
}

TEST(FuseIntegerEpilogue, FusesTheChainAndStaysExact) {
  for (bool int_bias : {true, false}) {
    for (bool float_bias : {false, true}) {
      for (bool per_channel : {false, true}) {
        for (int64_t group : {1, 2}) {
          Spec s;
          s.int_bias = int_bias, s.float_bias = float_bias, s.per_channel = per_channel, s.group = group;
          const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-integer-epilogue");
          EXPECT_EQ(n, 1) << Json(s);
          EXPECT_EQ(ops.count("ConvInteger"), 0u);
          EXPECT_EQ(ops.at("ConvIntegerToFloat"), 1);
          EXPECT_EQ(ops.count("Add"), 0u) << "both Adds are taken";
          EXPECT_EQ(ops.count("Cast") ? ops.at("Cast") : 0, int_bias ? 1 : 0);  // the bias's own Cast stays
          ExpectExact(s);
        }
      }
    }
  }
  Spec pointwise;  // 1x1, oneDNN's other kernels
  pointwise.k = 1, pointwise.c = 16, pointwise.m = 24;
  EXPECT_EQ(testing::DefaultPassOutcome(Load(pointwise), "fuse-integer-epilogue").first, 1);
  ExpectExact(pointwise);
}

TEST(FuseIntegerEpilogue, RefusesWhenTheRulesDoNotHold) {
  Spec twice;
  twice.cast_read_twice = true;
  Spec to_int;
  to_int.cast_to = 7;  // int64: no float epilogue
  to_int.int_bias = false;
  Spec spatial_scale;  // a scale along W would not be per channel
  spatial_scale.w_scale_shape = "[1,1,1,9]";
  spatial_scale.int_bias = false;
  Spec wrong_axis;  // [M] aligns with W's axis, not the channels
  wrong_axis.w_scale_shape = "[8]";
  wrong_axis.hw = 8;
  wrong_axis.int_bias = false;
  for (const Spec& s : {twice, to_int, spatial_scale, wrong_axis}) {
    const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-integer-epilogue");
    EXPECT_EQ(n, 0) << Json(s);
    EXPECT_EQ(ops.at("ConvInteger"), 1);
    if (s.cast_to == 1) ExpectExact(s);
  }
}

// x -DynamicQuantizeLinear-> MatMulInteger(B) -> Cast -> Mul(x_scale * b_scale) [-> Add(bias)].
struct MatSpec {
  Dims a = {2, 5, 24};
  int64_t n = 10;
  bool per_column = false, bias = true, b_signed = false;
  std::string scale_shape;  // overrides the b_scale shape (refusals)
};

std::string MatJson(const MatSpec& s) {
  const int64_t k = s.a.back();
  const std::string bs_shape = !s.scale_shape.empty() ? s.scale_shape
                               : s.per_column         ? "[" + std::to_string(s.n) + "]"
                                                      : "[]";
  const int64_t bs_n = s.scale_shape == "[2,1]" ? 2 : s.per_column ? s.n : 1;
  std::string dims = "[";
  for (size_t i = 0; i < s.a.size(); ++i) dims += (i ? "," : "") + std::to_string(s.a[i]);
  dims += "]";
  std::string inits = R"({"name":"b","dtype":")" + std::string(s.b_signed ? "int8" : "uint8") + R"(","shape":[)" +
                      std::to_string(k) + "," + std::to_string(s.n) + R"(],"data":)" +
                      testing::RandomIntsJson(k * s.n, 11, s.b_signed ? -128 : 0, s.b_signed ? 127 : 255) + "},";
  inits += R"({"name":"bz","dtype":")" + std::string(s.b_signed ? "int8" : "uint8") + R"(","shape":[],"data":[)" +
           std::string(s.b_signed ? "0" : "128") + "]},";
  inits += R"({"name":"bs","dtype":"float32","shape":)" + bs_shape + R"(,"data":)" +
           testing::RandomFloatsJson(bs_n, 12, 0.001f, 0.03f) + "},";
  inits += R"({"name":"bias","dtype":"float32","shape":[)" + std::to_string(s.n) + R"(],"data":)" +
           testing::RandomFloatsJson(s.n, 13, -1.f, 1.f) + "}";
  std::string nodes = R"({"name":"dql","op":"DynamicQuantizeLinear","inputs":["x"],"outputs":["xq","xs","xz"]},)"
                      R"({"name":"mm","op":"MatMulInteger","inputs":["xq","b","xz","bz"],"outputs":["acc"]},)"
                      R"({"name":"scale","op":"Mul","inputs":["xs","bs"],"outputs":["k"]},)"
                      R"({"name":"cast","op":"Cast","inputs":["acc"],"outputs":["accf"],"attrs":{"to":1}},)";
  nodes +=
      R"({"name":"mul","op":"Mul","inputs":["k","accf"],"outputs":[")" + std::string(s.bias ? "t" : "y") + R"("]})";
  if (s.bias) nodes += R"(,{"name":"add","op":"Add","inputs":["t","bias"],"outputs":["y"]})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":"float32","shape":)" +
         dims + R"(}],"outputs":[{"name":"y"}],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph LoadMat(const MatSpec& s) {
  StatusOr<Graph> g = LoadJsonText(MatJson(s), "mis.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << MatJson(s);
  return std::move(g).value();
}

TEST(FuseIntegerEpilogue, FusesTheMatMulChainAndStaysExact) {
  for (bool per_column : {false, true}) {
    for (bool bias : {true, false}) {
      for (bool b_signed : {false, true}) {
        for (const Dims& a : {Dims{2, 5, 24}, Dims{7, 300}, Dims{1, 1, 64}}) {
          MatSpec s;
          s.a = a, s.per_column = per_column, s.bias = bias, s.b_signed = b_signed;
          const auto [n, ops] = testing::DefaultPassOutcome(LoadMat(s), "fuse-integer-epilogue");
          EXPECT_EQ(n, 1) << MatJson(s);
          EXPECT_EQ(ops.count("MatMulInteger"), 0u);
          EXPECT_EQ(ops.at("MatMulIntegerScaled"), 1);
          EXPECT_EQ(ops.count("Cast"), 0u);
          EXPECT_EQ(ops.count("Add"), 0u);
          std::mt19937 rng(3);
          std::normal_distribution<float> d(0.2f, 2.f);
          Tensor x = Tensor::Allocate(DataType::kFloat32, a).value();
          for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = d(rng);
          EXPECT_EQ(
              testing::CompareFusedToUnfused([&] { return LoadMat(s); }, {x}, {"default", "fuse-integer-epilogue"}), "")
              << MatJson(s);
        }
      }
    }
  }
}

TEST(FuseIntegerEpilogue, RefusesAMatMulScaleThatIsNotPerColumn) {
  MatSpec s;
  s.scale_shape = "[2,1]";  // broadcasts over rows: not per column
  s.a = {2, 2, 24};
  s.bias = false;
  const auto [n, ops] = testing::DefaultPassOutcome(LoadMat(s), "fuse-integer-epilogue");
  EXPECT_EQ(n, 0);
  EXPECT_EQ(ops.at("MatMulInteger"), 1);
}

}  // namespace
}  // namespace qrt
