// link-conv-codes: a 1x1 qrt:ConvQuantizeDequantize whose output only a depthwise one reads
// passes its codes instead of their dequantized floats. Which pairs it links, and the promise:
// outputs bit-identical to the unfused graph, for scalar and SIMD kernels, every way the
// depthwise convolution reads its rows (flat, per row, window, column phases of strides 2 and
// 3, gathered), the int8 and float paths of the producer, both code types and threads.
//
//   Before: x [-Q-DQ] -Conv 1x1- -Q-DQ- -Conv depthwise- -Q-DQ-> y
//   After:  x [-QuantizeDequantize] -CQD(output_codes)-> codes -CQD(input_codes)-> y
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <random>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct LinkSpec {
  int64_t k = 16, channels = 24;  // the 1x1 convolution's input and output channels
  Dims spatial = {14, 14};
  std::string dw_kernel = "[3,3]", dw_attrs = R"("pads":[1,1,1,1])";
  bool grid_input = true;  // x through a Q/DQ pair first, so the 1x1 convolution's X is on a grid
  std::string zp_type = "uint8", zp = "[131]";
  bool dw_not_depthwise = false;  // the second convolution has a full 3x3 kernel
  bool pw_not_pointwise = false;  // the first one is 3x3 (pads 1)
  bool f_read_elsewhere = false;  // a Relu reads the first fake quantization's output too
  bool f_is_output = false;
  bool prelu = false;  // a PRelu between the first convolution and its fake quantization
  int64_t batch = 1;
};

std::string DimsJson(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string Values(int64_t n, uint32_t seed, float scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  std::string s = "[";
  for (int64_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(u(rng));
  return s + "]";
}

std::string Init(const std::string& name, const std::string& type, const Dims& dims, const std::string& data) {
  return R"({"name":")" + name + R"(","dtype":")" + type + R"(","shape":)" + DimsJson(dims) + R"(,"data":)" + data +
         "}";
}

std::string Json(const LinkSpec& s) {
  const int64_t c = s.channels;
  const Dims w1 = s.pw_not_pointwise ? Dims{c, s.k, 3, 3} : Dims{c, s.k, 1, 1};
  Dims w2 = s.dw_not_depthwise ? Dims{c, c, 3, 3} : Dims{c, 1, 3, 3};
  if (!s.dw_not_depthwise && s.dw_kernel != "[3,3]") w2 = {c, 1, 5, 3};
  std::string inits = Init("w1", "float32", w1, Values(ElementCount(w1), 1, 0.5f)) + "," +
                      Init("b1", "float32", {c}, Values(c, 2, 1.f)) + "," +
                      Init("w2", "float32", w2, Values(ElementCount(w2), 3, 0.5f)) + "," +
                      Init("b2", "float32", {c}, Values(c, 4, 1.f)) + "," + Init("sx", "float32", {}, "[0.03]") + "," +
                      Init("zx", "uint8", {}, "[128]") + "," + Init("s1", "float32", {}, "[0.047]") + "," +
                      Init("z1", s.zp_type, {}, s.zp) + "," + Init("s2", "float32", {}, "[0.02]") + "," +
                      Init("z2", "int8", {}, "[-3]") + "," + Init("slope", "float32", {c, 1, 1}, Values(c, 5, 1.f));
  std::string nodes;
  std::string x = "x";
  if (s.grid_input) {
    nodes += R"({"name":"qx","op":"QuantizeLinear","inputs":["x","sx","zx"],"outputs":["qx"]},)";
    nodes += R"({"name":"dqx","op":"DequantizeLinear","inputs":["qx","sx","zx"],"outputs":["fx"]},)";
    x = "fx";
  }
  const std::string pw_attrs = s.pw_not_pointwise ? R"({"pads":[1,1,1,1]})" : "{}";
  nodes += R"({"name":"pw","op":"Conv","inputs":[")" + x + R"(","w1","b1"],"outputs":["c1"],"attrs":)" + pw_attrs +
           "},";
  std::string c1 = "c1";
  if (s.prelu) {
    nodes += R"({"name":"prelu","op":"PRelu","inputs":["c1","slope"],"outputs":["p1"]},)";
    c1 = "p1";
  }
  nodes += R"({"name":"q1","op":"QuantizeLinear","inputs":[")" + c1 + R"(","s1","z1"],"outputs":["q1"]},)";
  nodes += R"({"name":"dq1","op":"DequantizeLinear","inputs":["q1","s1","z1"],"outputs":["f1"]},)";
  const std::string dw_attrs =
      "{" + s.dw_attrs + (s.dw_not_depthwise ? "" : R"(,"group":)" + std::to_string(c)) + "}";
  nodes += R"({"name":"dw","op":"Conv","inputs":["f1","w2","b2"],"outputs":["c2"],"attrs":)" + dw_attrs + "},";
  nodes += R"({"name":"q2","op":"QuantizeLinear","inputs":["c2","s2","z2"],"outputs":["q2"]},)";
  nodes += R"({"name":"dq2","op":"DequantizeLinear","inputs":["q2","s2","z2"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"})";
  if (s.f_read_elsewhere) {
    nodes += R"(,{"name":"relu","op":"Relu","inputs":["f1"],"outputs":["r"]})";
    outputs += R"(,{"name":"r"})";
  }
  if (s.f_is_output) outputs += R"(,{"name":"f1"})";
  Dims xd{s.batch, s.k};
  xd.insert(xd.end(), s.spatial.begin(), s.spatial.end());
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":"float32","shape":)" +
         DimsJson(xd) + R"(}],"outputs":[)" + outputs + R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes +
         "]}";
}

Graph Load(const LinkSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "link.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

int Links(const LinkSpec& s) { return testing::DefaultPassOutcome(Load(s), "link-conv-codes").first; }

// x in [-4, 4): the 1x1 convolution's outputs reach both ends of the codes.
Tensor Input(const LinkSpec& s, uint32_t seed) {
  Dims d{s.batch, s.k};
  d.insert(d.end(), s.spatial.begin(), s.spatial.end());
  Tensor t = Tensor::Allocate(DataType::kFloat32, d).value();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

void ExpectExact(const LinkSpec& s, uint32_t seed, int threads = 1) {
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, {Input(s, seed)}, {"default"}, threads), "")
      << "seed " << seed << "\n"
      << Json(s);
}

// Each depthwise geometry reads its input rows differently (conv_float.cc).
TEST(LinkConvCodes, LinksAndStaysExactOnEveryDepthwisePath) {
  struct Case {
    const char* what;
    Dims spatial;
    std::string kernel, attrs;
  };
  const Case cases[] = {
      {"narrow rows, computed flat", {14, 14}, "[3,3]", R"("pads":[1,1,1,1])"},
      {"7 x 7", {7, 7}, "[3,3]", R"("pads":[1,1,1,1])"},
      {"wide rows, one call each", {12, 40}, "[3,3]", R"("pads":[1,1,1,1])"},
      {"planes over 32 KB: a window of rows", {100, 96}, "[3,3]", R"("pads":[1,1,1,1])"},
      {"stride 2, window, odd width", {99, 101}, "[3,3]", R"("pads":[1,0,2,1],"strides":[2,2])"},
      {"stride 2 into 7", {14, 14}, "[3,3]", R"("pads":[0,0,1,1],"strides":[2,2])"},
      {"stride 3 (a row of floats, then its phases)", {20, 23}, "[3,3]", R"("pads":[2,1,0,3],"strides":[3,3])"},
      {"5 x 3 kernel, dilated", {18, 21}, "[5,3]", R"("pads":[2,1,2,1],"dilations":[1,2])"},
      {"tiny planes (gathered: X dequantized whole)", {2, 2}, "[3,3]", R"("pads":[1,1,1,1])"},
  };
  for (const Case& c : cases) {
    for (bool grid : {true, false}) {
      LinkSpec s;
      s.spatial = c.spatial, s.dw_kernel = c.kernel, s.dw_attrs = c.attrs, s.grid_input = grid;
      const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "link-conv-codes");
      EXPECT_EQ(n, 1) << c.what;
      EXPECT_EQ(ops.at("ConvQuantizeDequantize"), 2) << c.what;
      EXPECT_EQ(ops.count("DequantizeLinear"), 0u) << c.what;
      ExpectExact(s, 31);
    }
  }
}

TEST(LinkConvCodes, CodeTypesZeroPointsAtTheEndsBatchesAndThreads) {
  const std::pair<const char*, const char*> zero_points[] = {
      {"uint8", "[0]"}, {"uint8", "[255]"}, {"int8", "[-128]"}, {"int8", "[127]"}, {"int8", "[0]"}};
  for (const auto& [type, zp] : zero_points) {
    LinkSpec s;
    s.zp_type = type, s.zp = zp;
    EXPECT_EQ(Links(s), 1) << type << zp;
    ExpectExact(s, 32);
  }
  LinkSpec s;
  s.batch = 2, s.channels = 40, s.spatial = {56, 56};
  ExpectExact(s, 33, 2);
  s.dw_attrs = R"("pads":[1,1,1,1],"strides":[2,2])";
  ExpectExact(s, 34, 2);
}

TEST(LinkConvCodes, LeavesPairsItCannotLink) {
  LinkSpec s;
  EXPECT_EQ(Links(s), 1);
  LinkSpec t = s;
  t.dw_not_depthwise = true;  // the reader is not depthwise
  EXPECT_EQ(Links(t), 0);
  t = s, t.pw_not_pointwise = true;  // the writer is not 1x1
  EXPECT_EQ(Links(t), 0);
  t = s, t.f_read_elsewhere = true;  // the floats are needed too
  EXPECT_EQ(Links(t), 0);
  t = s, t.f_is_output = true;
  EXPECT_EQ(Links(t), 0);
  t = s, t.prelu = true;  // the writer's epilogue has a PRelu before the fake quantization
  EXPECT_EQ(Links(t), 0);
  // Unlinked graphs still run exactly.
  t = s, t.pw_not_pointwise = true;
  ExpectExact(t, 35);
}

// The attributes written by hand: what they cannot mean is a plan error, never a crash.
TEST(LinkConvCodes, TheAttributesRejectWhatTheyCannotMean) {
  auto plan = [](const std::string& x_type, const std::string& inputs, const std::string& attrs) {
    const std::string json =
        R"({"format":"qrt.graph","version":1,"inputs":[{"name":"x","dtype":")" + x_type +
        R"(","shape":[1,2,3,3]}],"outputs":[{"name":"y"}],"initializers":[)"
        R"({"name":"w","dtype":"float32","shape":[2,1,3,3],"data":[1,2,3,4,5,6,7,8,9,1,2,3,4,5,6,7,8,9]},)"
        R"({"name":"s","dtype":"float32","shape":[],"data":[0.1]},)"
        R"({"name":"z","dtype":"uint8","shape":[],"data":[3]},)"
        R"({"name":"zs","dtype":"int8","shape":[],"data":[3]},)"
        R"({"name":"slope","dtype":"float32","shape":[2,1,1],"data":[0.5,0.5]}],)"
        R"("nodes":[{"name":"c","op":"ConvQuantizeDequantize","domain":"qrt","inputs":)" + inputs +
        R"(,"outputs":["y"],"attrs":)" + attrs + "}]}";
    StatusOr<Graph> g = LoadJsonText(json, "op.json", ".");
    if (!g.ok()) return StatusOr<std::vector<Tensor>>(g.status());
    Tensor x = Tensor::Allocate(x_type == "uint8" ? DataType::kUInt8 : DataType::kFloat32, {1, 2, 3, 3}).value();
    return testing::RunGraph(std::move(g).value(), {x}, "none");
  };
  const std::string group = R"("group":2,"pads":[1,1,1,1])";
  auto ok = plan("uint8", R"(["x","w","","s","z","","","","s","z"])", "{" + group + R"(,"input_codes":1})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].dtype(), DataType::kFloat32);
  ok = plan("float32", R"(["x","w","","s","z"])", "{" + group + R"(,"output_codes":1})");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].dtype(), DataType::kUInt8);
  const std::tuple<const char*, const char*, const char*> bad[] = {
      {"float32", R"(["x","w","","s","z","","","","s","z"])", R"("input_codes":1)"},   // X is not codes
      {"uint8", R"(["x","w","","s","z"])", R"("input_codes":1)"},                        // no scale for X
      {"uint8", R"(["x","w","","s","z","","","","s","zs"])", R"("input_codes":1)"},    // zero point of another type
      {"uint8", R"(["x","w","","s","z","","","","w","z"])", R"("input_codes":1)"},     // a scale of 18 values
      {"float32", R"(["x","w","","","","slope","s","z"])", R"("output_codes":1)"},     // a PRelu first
      {"float32", R"(["x","w","","s","z","slope"])", R"("output_codes":1)"},           // a step after it
  };
  for (const auto& [type, inputs, attr] : bad) {
    auto r = plan(type, inputs, "{" + group + "," + attr + "}");
    EXPECT_FALSE(r.ok()) << inputs << " " << attr;
  }
}

}  // namespace
}  // namespace qrt
