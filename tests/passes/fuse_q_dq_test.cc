// fuse-q-dq: structure after the pass, one negative test per legality rule, and the promise:
// outputs bit-identical with and without the pass, for scalar and AVX2 kernels, on random and
// edge inputs.
//
//   Before:  x -Q(s, z)-> q -DQ(s, z)-> xf -Relu-> y      After:  x -QuantizeDequantize(s, z)-> xf -Relu-> y
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct PairSpec {
  std::string x_type = "float32";
  std::string q_scale = "[0.05]", q_scale_shape = "[]";
  std::string dq_scale = "[0.05]";
  std::string zp_type = "uint8", q_zp = "[128]", dq_zp = "[128]";
  bool zero_points = true;    // both Q and DQ take a zero point
  bool q_is_output = false;   // q is also a graph output
  bool second_dq = false;     // a second DQ reads q
  bool other_reader = false;  // a non-DQ node (Identity) reads q
  bool dq_is_output = false;  // xf is a graph output
  bool scale_input = false;   // Q's scale is a graph input, not a constant
  bool output_dtype = false;  // Q (no zero point) states output_dtype int8 (opset 21)
  std::string dq_shape;       // DQ's scale/zero point shape when not Q's
  Dims x_dims = {2, 3, 4, 5};
  int opset = 13;
};

std::string DimsJson(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

std::string Json(const PairSpec& s) {
  const std::string scale_shape = s.q_scale_shape, dq_shape = s.dq_shape.empty() ? scale_shape : s.dq_shape;
  std::string inits = R"({"name":"dqs","dtype":"float32","shape":)" + dq_shape + R"(,"data":)" + s.dq_scale + "}";
  if (!s.scale_input) {
    inits += R"(,{"name":"qs","dtype":"float32","shape":)" + scale_shape + R"(,"data":)" + s.q_scale + "}";
  }
  if (s.zero_points) {
    inits += R"(,{"name":"qz","dtype":")" + s.zp_type + R"(","shape":)" + scale_shape + R"(,"data":)" + s.q_zp + "}";
    inits += R"(,{"name":"dqz","dtype":")" + s.zp_type + R"(","shape":)" + dq_shape + R"(,"data":)" + s.dq_zp + "}";
  }
  std::string inputs = R"({"name":"x","dtype":")" + s.x_type + R"(","shape":)" + DimsJson(s.x_dims) + "}";
  if (s.scale_input) inputs += R"(,{"name":"qs","dtype":"float32","shape":[]})";
  const std::string qz = s.zero_points ? R"(,"qz")" : "", dqz = s.zero_points ? R"(,"dqz")" : "";
  const std::string q_attrs = s.output_dtype ? R"(,"attrs":{"output_dtype":3})" : "";
  std::string nodes =
      R"({"name":"q","op":"QuantizeLinear","inputs":["x","qs")" + qz + R"(],"outputs":["q"])" + q_attrs + "},";
  nodes += R"({"name":"dq","op":"DequantizeLinear","inputs":["q","dqs")" + dqz + R"(],"outputs":["xf"]},)";
  nodes += R"({"name":"relu","op":"Relu","inputs":["xf"],"outputs":["y"]})";
  std::string outputs = R"({"name":"y"})";
  if (s.q_is_output) outputs += R"(,{"name":"q"})";
  if (s.dq_is_output) outputs += R"(,{"name":"xf"})";
  if (s.second_dq) {
    nodes += R"(,{"name":"dq2","op":"DequantizeLinear","inputs":["q","dqs")" + dqz + R"(],"outputs":["xf2"]})";
    outputs += R"(,{"name":"xf2"})";
  }
  if (s.other_reader) {
    nodes += R"(,{"name":"other","op":"Identity","inputs":["q"],"outputs":["q2"]})";
    outputs += R"(,{"name":"q2"})";
  }
  return R"({"format":"qrt.graph","version":1,"opsets":{"":)" + std::to_string(s.opset) + R"(},"inputs":[)" + inputs +
         R"(],"outputs":[)" + outputs + R"(],"initializers":[)" + inits + R"(],"nodes":[)" + nodes + "]}";
}

Graph Load(const PairSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "pair.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

// (fuse-q-dq rewrites, live op counts) after the default passes.
std::pair<int, std::map<std::string, int>> Fuse(const PairSpec& s) {
  return testing::DefaultPassOutcome(Load(s), "fuse-q-dq");
}

// Ties at .5 steps, saturation both ways, NaN, infinities, signed zeros, tiny and huge values,
// and random values; for float16 data, random bit patterns (NaN and infinity among them).
Tensor Inputs(const std::string& type, const Dims& dims, float scale, std::mt19937& rng) {
  const DataType dt = *ParseDataType(type);
  Tensor t = Tensor::Allocate(dt, dims).value();
  if (dt != DataType::kFloat32) {
    for (size_t i = 0; i < t.nbytes(); ++i) static_cast<uint8_t*>(t.raw())[i] = uint8_t(rng());
    return t;
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float traps[] = {0.5f * scale,
                         1.5f * scale,
                         -2.5f * scale,
                         127.5f * scale,
                         -128.5f * scale,
                         0.f,
                         -0.f,
                         1e-30f,
                         -1e30f,
                         inf,
                         -inf,
                         std::numeric_limits<float>::quiet_NaN(),
                         1e9f};
  const float span = 200.f * std::min(std::fabs(scale), 1e30f);  // a valid range for any scale
  std::uniform_real_distribution<float> u(-span, span);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = i % 4 == 0 ? traps[(i / 4) % 13] : u(rng);
  return t;
}

// The promise: same bits with and without fusion, on scalar and AVX2 kernels (and threads).
void ExpectFusionExact(const PairSpec& s, uint32_t seed, int threads = 1) {
  std::mt19937 rng(seed);
  std::vector<Tensor> inputs{Inputs(s.x_type, s.x_dims, std::strtof(s.q_scale.c_str() + 1, nullptr), rng)};
  if (s.scale_input) inputs.push_back(Tensor::FromVector<float>({0.05f}, {}));
  EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, inputs, {"default", "fuse-q-dq"}, threads), "")
      << "seed " << seed << "\n"
      << Json(s);
}

TEST(FuseQDq, FusesThePairAndStaysExact) {
  const char* zero_points[][2] = {{"uint8", "[0]"},   {"uint8", "[128]"}, {"uint8", "[255]"},
                                  {"int8", "[-128]"}, {"int8", "[0]"},    {"int8", "[127]"}};
  for (auto& [type, zp] : zero_points) {
    PairSpec s;
    s.zp_type = type;
    s.q_zp = s.dq_zp = zp;
    const auto [n, ops] = Fuse(s);
    EXPECT_EQ(n, 1) << type << zp;
    EXPECT_EQ(ops.count("QuantizeLinear"), 0u);
    EXPECT_EQ(ops.count("DequantizeLinear"), 0u);
    EXPECT_EQ(ops.at("QuantizeDequantize"), 1);
    ExpectFusionExact(s, 1);
  }
}

TEST(FuseQDq, WithoutZeroPointsTheOutputStaysAGraphOutputAndFloat16Data) {
  PairSpec none;
  none.zero_points = false;
  EXPECT_EQ(Fuse(none).first, 1);
  ExpectFusionExact(none, 2);
  PairSpec out;
  out.dq_is_output = true;
  EXPECT_EQ(Fuse(out).first, 1);
  ExpectFusionExact(out, 3);
  for (const char* type : {"float16", "bfloat16", "int32"}) {  // with a float32 scale: the generic loop
    PairSpec other;
    other.x_type = type;
    other.opset = 21;
    EXPECT_EQ(Fuse(other).first, 1) << type;
    ExpectFusionExact(other, 4);
  }
}

// Scales that take the division everywhere (negative, denormal) or that QuantizeLinear handles
// as given (huge); a tensor large enough to be split across threads.
TEST(FuseQDq, OddScalesAndThreads) {
  for (const char* scale : {"[-0.05]", "[1e-40]", "[3e+38]", "[0.0039215689]"}) {
    PairSpec s;
    s.q_scale = s.dq_scale = scale;
    EXPECT_EQ(Fuse(s).first, 1) << scale;
    ExpectFusionExact(s, 5);
  }
  PairSpec big;
  big.x_dims = {2, 64, 40, 40};
  EXPECT_EQ(Fuse(big).first, 1);
  ExpectFusionExact(big, 6, 2);
}

// One negative test per legality rule; each graph still runs, and to the same bits.
TEST(FuseQDq, LeavesThePairWhenTheRulesDoNotHold) {
  std::vector<std::pair<const char*, PairSpec>> cases;
  PairSpec s;
  s.dq_scale = "[0.050000004]";
  cases.push_back({"scales differ in the last bit", s});
  s = PairSpec();
  s.dq_zp = "[127]";
  cases.push_back({"zero points differ", s});
  s = PairSpec();
  s.q_is_output = true;
  cases.push_back({"q is a graph output", s});
  s = PairSpec();
  s.second_dq = true;
  cases.push_back({"q has two readers", s});
  s = PairSpec();
  s.other_reader = true;
  cases.push_back({"q has a non-DQ reader", s});
  s = PairSpec();
  s.scale_input = true;
  cases.push_back({"the scale is not a constant", s});
  s = PairSpec();
  s.q_scale = s.dq_scale = "[0.05,0.05,0.05]";
  s.q_scale_shape = "[3]";
  s.q_zp = s.dq_zp = "[1,2,3]";
  cases.push_back({"per-axis scale", s});
  s = PairSpec();
  s.zero_points = false;
  s.output_dtype = true;
  s.opset = 21;
  cases.push_back({"no zero point, output_dtype int8", s});
  for (auto& [why, spec] : cases) {
    EXPECT_EQ(Fuse(spec).first, 0) << why;
    ExpectFusionExact(spec, 7);
  }
  // DQ's scale and zero point of shape [1,1]: DequantizeLinear rejects that, so the unfused
  // graph does not compile; the pass must not make it compile.
  s = PairSpec();
  s.dq_shape = "[1,1]";
  EXPECT_EQ(Fuse(s).first, 0);
  std::mt19937 rng(8);
  EXPECT_FALSE(testing::RunGraph(Load(s), {Inputs("float32", s.x_dims, 0.05f, rng)}, "default").ok());
}

}  // namespace
}  // namespace qrt
