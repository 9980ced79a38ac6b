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
#include <random>
#include <tuple>

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
  bool second_pointwise = false;  // the second convolution is 1x1 too
  bool projection = false;        // a 1x1 convolution (and its Q/DQ) after the second one
  bool pw_not_pointwise = false;  // the first one is 3x3 (pads 1)
  bool f_read_elsewhere = false;  // a Relu reads the first fake quantization's output too
  bool f_is_output = false;
  bool fx_read_elsewhere = false;  // a Relu reads X's fake-quantized floats too
  bool prelu = false;              // a PRelu between the first convolution and its fake quantization
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
  if (s.second_pointwise) w2 = {c, c, 1, 1};
  std::string inits = Init("w1", "float32", w1, Values(ElementCount(w1), 1, 0.5f)) + "," +
                      Init("b1", "float32", {c}, Values(c, 2, 1.f)) + "," +
                      Init("w2", "float32", w2, Values(ElementCount(w2), 3, 0.5f)) + "," +
                      Init("b2", "float32", {c}, Values(c, 4, 1.f)) + "," + Init("sx", "float32", {}, "[0.03]") + "," +
                      Init("zx", "uint8", {}, "[128]") + "," + Init("s1", "float32", {}, "[0.047]") + "," +
                      Init("z1", s.zp_type, {}, s.zp) + "," + Init("s2", "float32", {}, "[0.02]") + "," +
                      Init("z2", "int8", {}, "[-3]") + "," + Init("slope", "float32", {c, 1, 1}, Values(c, 5, 1.f)) +
                      "," + Init("w3", "float32", {16, c, 1, 1}, Values(16 * c, 12, 0.5f)) + "," +
                      Init("s4", "float32", {}, "[0.06]") + "," + Init("z4", "uint8", {}, "[140]");
  std::string nodes;
  std::string x = "x";
  if (s.grid_input) {
    nodes += R"({"name":"qx","op":"QuantizeLinear","inputs":["x","sx","zx"],"outputs":["qx"]},)";
    nodes += R"({"name":"dqx","op":"DequantizeLinear","inputs":["qx","sx","zx"],"outputs":["fx"]},)";
    x = "fx";
  }
  const std::string pw_attrs = s.pw_not_pointwise ? R"({"pads":[1,1,1,1]})" : "{}";
  nodes +=
      R"({"name":"pw","op":"Conv","inputs":[")" + x + R"(","w1","b1"],"outputs":["c1"],"attrs":)" + pw_attrs + "},";
  std::string c1 = "c1";
  if (s.prelu) {
    nodes += R"({"name":"prelu","op":"PRelu","inputs":["c1","slope"],"outputs":["p1"]},)";
    c1 = "p1";
  }
  nodes += R"({"name":"q1","op":"QuantizeLinear","inputs":[")" + c1 + R"(","s1","z1"],"outputs":["q1"]},)";
  nodes += R"({"name":"dq1","op":"DequantizeLinear","inputs":["q1","s1","z1"],"outputs":["f1"]},)";
  const std::string dw_attrs =
      s.second_pointwise ? "{}"
                         : "{" + s.dw_attrs + (s.dw_not_depthwise ? "" : R"(,"group":)" + std::to_string(c)) + "}";
  nodes += R"({"name":"dw","op":"Conv","inputs":["f1","w2","b2"],"outputs":["c2"],"attrs":)" + dw_attrs + "},";
  nodes += R"({"name":"q2","op":"QuantizeLinear","inputs":["c2","s2","z2"],"outputs":["q2"]},)";
  nodes += std::string(R"({"name":"dq2","op":"DequantizeLinear","inputs":["q2","s2","z2"],"outputs":[")") +
           (s.projection ? "f2" : "y") + R"("]})";
  if (s.projection) {
    nodes += R"(,{"name":"project","op":"Conv","inputs":["f2","w3"],"outputs":["c3"]})";
    nodes += R"(,{"name":"q4","op":"QuantizeLinear","inputs":["c3","s4","z4"],"outputs":["q4"]})";
    nodes += R"(,{"name":"dq4","op":"DequantizeLinear","inputs":["q4","s4","z4"],"outputs":["y"]})";
  }
  std::string outputs = R"({"name":"y"})";
  if (s.f_read_elsewhere) {
    nodes += R"(,{"name":"relu","op":"Relu","inputs":["f1"],"outputs":["r"]})";
    outputs += R"(,{"name":"r"})";
  }
  if (s.f_is_output) outputs += R"(,{"name":"f1"})";
  if (s.fx_read_elsewhere) {
    nodes += R"(,{"name":"relu_x","op":"Relu","inputs":["fx"],"outputs":["rx"]})";
    outputs += R"(,{"name":"rx"})";
  }
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

// Rule 4's link: the first convolution reads the codes of X's fake quantization (the Q/DQ pair
// that fuse-q-dq made one), which becomes a QuantizeLinear.
int InputLink(const LinkSpec& s) { return s.grid_input ? 1 : 0; }

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
      EXPECT_EQ(n, 1 + InputLink(s)) << c.what;
      EXPECT_EQ(ops.at("ConvQuantizeDequantize"), 2) << c.what;
      EXPECT_EQ(ops.count("QuantizeDequantize"), 0u) << c.what;
      EXPECT_EQ(ops.count("DequantizeLinear"), 0u) << c.what;
      ExpectExact(s, 31);
    }
  }
}

// MobileNetV2's block: expansion -> depthwise -> projection, each link passing codes (the
// depthwise convolution quantizes each output plane it computed); and 1x1 -> 1x1.
TEST(LinkConvCodes, ChainsOfConvolutions) {
  struct Case {
    const char* what;
    Dims spatial;
    std::string attrs;
  };
  const Case cases[] = {
      {"flat rows", {14, 14}, R"("pads":[1,1,1,1])"},
      {"flat rows, odd sizes", {13, 11}, R"("pads":[1,1,1,1])"},
      {"window of rows", {100, 96}, R"("pads":[1,1,1,1])"},
      {"window of rows, odd width (quantized every few rows)", {99, 97}, R"("pads":[1,1,1,1])"},
      {"stride 2", {30, 31}, R"("pads":[1,1,1,1],"strides":[2,2])"},
      {"gathered (the codes quantized whole)", {2, 2}, R"("pads":[1,1,1,1])"},
  };
  for (const Case& c : cases) {
    for (bool grid : {true, false}) {
      LinkSpec s;
      s.spatial = c.spatial, s.dw_attrs = c.attrs, s.projection = true, s.grid_input = grid;
      const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "link-conv-codes");
      EXPECT_EQ(n, 2 + InputLink(s)) << c.what;
      EXPECT_EQ(ops.at("ConvQuantizeDequantize"), 3) << c.what;
      ExpectExact(s, 36);
      ExpectExact(s, 37, 2);
    }
  }
  LinkSpec s;
  s.second_pointwise = true, s.projection = true;
  EXPECT_EQ(Links(s), 2 + InputLink(s));
  ExpectExact(s, 38);
}

TEST(LinkConvCodes, CodeTypesZeroPointsAtTheEndsBatchesAndThreads) {
  const std::pair<const char*, const char*> zero_points[] = {
      {"uint8", "[0]"}, {"uint8", "[255]"}, {"int8", "[-128]"}, {"int8", "[127]"}, {"int8", "[0]"}};
  for (const auto& [type, zp] : zero_points) {
    LinkSpec s;
    s.zp_type = type, s.zp = zp;
    EXPECT_EQ(Links(s), 1 + InputLink(s)) << type << zp;
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
  EXPECT_EQ(Links(s), 1 + InputLink(s));
  // One-group convolutions of any kernel read and write codes too (the int8 path over patches).
  LinkSpec t = s;
  t.dw_not_depthwise = true;  // the reader is a full 3x3 convolution
  EXPECT_EQ(Links(t), 1 + InputLink(t));
  ExpectExact(t, 36);
  t = s, t.pw_not_pointwise = true;  // the writer is 3x3
  EXPECT_EQ(Links(t), 1 + InputLink(t));
  t = s, t.f_read_elsewhere = true;  // the floats are needed too
  EXPECT_EQ(Links(t), InputLink(t));
  t = s, t.f_is_output = true;
  EXPECT_EQ(Links(t), InputLink(t));
  t = s, t.fx_read_elsewhere = true;  // X's fake-quantized floats are needed too: no rule 4
  EXPECT_EQ(Links(t), 1);
  ExpectExact(t, 39);
  t = s, t.prelu = true;  // the writer's epilogue has a PRelu before the fake quantization
  EXPECT_EQ(Links(t), InputLink(t));
  // Unlinked graphs still run exactly.
  t = s, t.prelu = true;
  ExpectExact(t, 35);
}

// Rule 2 and 3 on MobileNetV2's residual pattern: a projection whose QuantizeLinear output an
// Add and a DequantizeLinear read, the DequantizeLinear feeding the next 1x1 (or depthwise)
// convolution; and an 8-bit graph input through a DequantizeLinear that something else reads
// too (it stays). Codes of both types, with and without zero points.
struct ResidualSpec {
  std::string zp_type = "uint8", zp = "[131]";  // the projection's codes
  bool zp_absent = false;
  bool next_depthwise = false;
  bool dq_read_elsewhere = false;
  bool per_axis_dq = false;  // the DequantizeLinear has a scale per channel
  bool next_prelu = false;   // the next convolution's steps: Q/DQ, PRelu, Q/DQ (MobileFaceNet)
};

std::string ResidualJson(const ResidualSpec& s) {
  const int64_t c = 24, m2 = s.next_depthwise ? c : 32;
  const std::string z = s.zp_absent ? "" : R"(,"z1")";
  std::string per_channel_scales = "[";
  for (int64_t i = 0; i < c; ++i) per_channel_scales += (i ? "," : "") + std::to_string(0.01 + 0.002 * double(i));
  per_channel_scales += "]";
  std::string inits = Init("w1", "float32", {c, 16, 1, 1}, Values(c * 16, 6, 0.5f)) + "," +
                      Init("b1", "float32", {c}, Values(c, 7, 1.f)) + "," +
                      Init("w2", "float32", s.next_depthwise ? Dims{c, 1, 3, 3} : Dims{m2, c, 1, 1},
                           Values(s.next_depthwise ? c * 9 : m2 * c, 8, 0.5f)) +
                      "," + Init("b2", "float32", {m2}, Values(m2, 9, 1.f)) + "," +
                      Init("sx", "float32", {}, "[0.03]") + "," + Init("zx", "uint8", {}, "[128]") + "," +
                      Init("s1", "float32", {}, "[0.047]") + "," + Init("s1c", "float32", {c}, per_channel_scales) +
                      "," + Init("s2", "float32", {}, "[0.02]") + "," + Init("z2", "int8", {}, "[-3]") + "," +
                      Init("s3", "float32", {}, "[0.025]") + "," + Init("z3", "uint8", {}, "[77]") + "," +
                      Init("slope", "float32", {m2, 1, 1}, Values(m2, 11, 1.f));
  if (!s.zp_absent) {
    inits += "," + Init("z1", s.zp_type, {}, s.zp);
    std::string zps = "[";
    for (int64_t i = 0; i < c; ++i) zps += (i ? "," : "") + s.zp.substr(1, s.zp.size() - 2);
    inits += "," + Init("z1c", s.zp_type, {c}, zps + "]");
  }
  std::string nodes;
  nodes += R"({"name":"dqx","op":"DequantizeLinear","inputs":["x","sx","zx"],"outputs":["fx"]},)";
  nodes += R"({"name":"pw","op":"Conv","inputs":["fx","w1","b1"],"outputs":["c1"]},)";
  nodes += R"({"name":"q1","op":"QuantizeLinear","inputs":["c1","s1")" + z + R"(],"outputs":["q1"]},)";
  if (s.per_axis_dq) {
    nodes += R"({"name":"dq1","op":"DequantizeLinear","inputs":["q1","s1c")" +
             std::string(s.zp_absent ? "" : R"(,"z1c")") + R"(],"outputs":["f1"],"attrs":{"axis":1}},)";
  } else {
    nodes += R"({"name":"dq1","op":"DequantizeLinear","inputs":["q1","s1")" + z + R"(],"outputs":["f1"]},)";
  }
  const std::string attrs = s.next_depthwise ? R"({"group":24,"pads":[1,1,1,1]})" : "{}";
  nodes += R"({"name":"next","op":"Conv","inputs":["f1","w2","b2"],"outputs":["c2"],"attrs":)" + attrs + "},";
  if (s.next_prelu) {
    nodes += R"({"name":"q3","op":"QuantizeLinear","inputs":["c2","s3","z3"],"outputs":["q3"]},)";
    nodes += R"({"name":"dq3","op":"DequantizeLinear","inputs":["q3","s3","z3"],"outputs":["f3"]},)";
    nodes += R"({"name":"prelu","op":"PRelu","inputs":["f3","slope"],"outputs":["p3"]},)";
    nodes += R"({"name":"q2","op":"QuantizeLinear","inputs":["p3","s2","z2"],"outputs":["q2"]},)";
  } else {
    nodes += R"({"name":"q2","op":"QuantizeLinear","inputs":["c2","s2","z2"],"outputs":["q2"]},)";
  }
  nodes += R"({"name":"dq2","op":"DequantizeLinear","inputs":["q2","s2","z2"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"},{"name":"q1"})";
  if (s.dq_read_elsewhere) {
    nodes += R"(,{"name":"abs","op":"Abs","inputs":["fx"],"outputs":["a"]})";
    outputs += R"(,{"name":"a"})";
  }
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[{"name":"x","dtype":"uint8","shape":[1,16,9,11]}],"outputs":[)" +
         outputs + R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

TEST(LinkConvCodes, ProjectionsWriteTheirQuantizeLinearsCodesAndReadersTakeDequantizeLinearsCodes) {
  const std::pair<const char*, const char*> zero_points[] = {
      {"uint8", "[131]"}, {"uint8", "[0]"}, {"int8", "[-128]"}, {"int8", "[127]"}};
  for (bool depthwise : {false, true}) {
    for (const auto& [type, zp] : zero_points) {
      for (int variant = 0; variant < 3; ++variant) {
        const bool elsewhere = variant == 1;
        ResidualSpec s;
        s.zp_type = type, s.zp = zp, s.next_depthwise = depthwise, s.dq_read_elsewhere = elsewhere;
        s.next_prelu = variant == 2;  // a reader with the PRelu chain (MobileFaceNet's)
        auto load = [&] {
          StatusOr<Graph> g = LoadJsonText(ResidualJson(s), "residual.json", ".");
          EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << ResidualJson(s);
          return std::move(g).value();
        };
        const auto [n, ops] = testing::DefaultPassOutcome(load(), "link-conv-codes");
        // The projection writes q1 itself; the next convolution reads q1; the first reads x.
        EXPECT_EQ(n, 3) << type << zp << depthwise;
        EXPECT_EQ(ops.count("QuantizeLinear"), 0u);
        EXPECT_EQ(ops.count("DequantizeLinear") ? ops.at("DequantizeLinear") : 0, elsewhere ? 1 : 0);
        Tensor x = Tensor::Allocate(DataType::kUInt8, {1, 16, 9, 11}).value();
        std::mt19937 rng(41);
        for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t(rng());
        for (int threads : {1, 2}) {
          EXPECT_EQ(testing::CompareFusedToUnfused(load, {x}, {"default"}, threads), "")
              << type << zp << " depthwise " << depthwise << "\n"
              << ResidualJson(s);
        }
      }
    }
  }
}

// The next convolution keeps its DequantizeLinear where it has a scale per channel, or no zero
// point while the codes' type is not known before planning (a QuantizeLinear's output: it is
// uint8 by default, but DequantizeLinear also reads int32 without one). The projection still
// writes its codes and the first convolution reads x's.
TEST(LinkConvCodes, DequantizeLinearsPerAxisOrWithoutAZeroPoint) {
  Tensor x = Tensor::Allocate(DataType::kUInt8, {1, 16, 9, 11}).value();
  for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t(i * 37);
  for (bool per_axis : {false, true}) {
    ResidualSpec s;
    s.per_axis_dq = per_axis, s.zp_absent = !per_axis;
    auto load = [&] { return std::move(LoadJsonText(ResidualJson(s), "residual.json", ".")).value(); };
    const auto [n, ops] = testing::DefaultPassOutcome(load(), "link-conv-codes");
    EXPECT_EQ(n, 2) << per_axis;
    EXPECT_EQ(ops.at("DequantizeLinear"), 1) << per_axis;
    EXPECT_EQ(testing::CompareFusedToUnfused(load, {x}, {"default"}), "") << per_axis;
  }
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
        R"("nodes":[{"name":"c","op":"ConvQuantizeDequantize","domain":"qrt","inputs":)" +
        inputs + R"(,"outputs":["y"],"attrs":)" + attrs + "}]}";
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
      {"float32", R"(["x","w","","s","z","","","","s","z"])", R"("input_codes":1)"},  // X is not codes
      {"uint8", R"(["x","w","","s","z"])", R"("input_codes":1)"},                     // no scale for X
      {"uint8", R"(["x","w","","s","z","","","","s","zs"])", R"("input_codes":1)"},   // zero point of another type
      {"uint8", R"(["x","w","","s","z","","","","w","z"])", R"("input_codes":1)"},    // a scale of 18 values
      {"float32", R"(["x","w","","","","slope","s","z"])", R"("output_codes":1)"},    // a PRelu first
      {"float32", R"(["x","w","","s","z","slope"])", R"("output_codes":1)"},          // a step after it
  };
  for (const auto& [type, inputs, attr] : bad) {
    auto r = plan(type, inputs, "{" + group + "," + attr + "}");
    EXPECT_FALSE(r.ok()) << inputs << " " << attr;
  }
}

}  // namespace
}  // namespace qrt
