// fuse-silu: Mul(x, Sigmoid(x)) in either operand order becomes qrt:Silu, bit-identical to the
// unfused graph at every tier and with threads (NaN, infinities, zeros of both signs, values
// where the sigmoid saturates, tails of every length); and one negative test per legality rule.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct SiluSpec {
  std::string shape = "[1,8,33,37]";
  std::string dtype = "float32";
  bool sigmoid_first = false;      // Mul(s, x) instead of Mul(x, s)
  bool sigmoid_is_output = false;  // s is a graph output too
  bool other_operand = false;      // Mul(z, Sigmoid(x)): not SiLU
};

std::string Json(const SiluSpec& s) {
  const std::string mul_inputs = s.other_operand ? R"(["z","s"])" : s.sigmoid_first ? R"(["s","x"])" : R"(["x","s"])";
  std::string inputs = R"({"name":"x","dtype":")" + s.dtype + R"(","shape":)" + s.shape + "}";
  if (s.other_operand) inputs += R"(,{"name":"z","dtype":")" + s.dtype + R"(","shape":)" + s.shape + "}";
  std::string outputs = R"({"name":"y"})";
  if (s.sigmoid_is_output) outputs += R"(,{"name":"s"})";
  return R"({"format":"qrt.graph","version":1,"opsets":{"":13},"inputs":[)" + inputs + R"(],"outputs":[)" + outputs +
         R"(],"nodes":[{"name":"sig","op":"Sigmoid","inputs":["x"],"outputs":["s"]},)"
         R"({"name":"mul","op":"Mul","inputs":)" +
         mul_inputs + R"(,"outputs":["y"]}]})";
}

Graph Load(const SiluSpec& s) {
  StatusOr<Graph> g = LoadJsonText(Json(s), "silu.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message() << "\n" << Json(s);
  return std::move(g).value();
}

// Values over the sigmoid's whole range, every 5th a trap.
Tensor Input(const Dims& dims, uint32_t seed) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, dims).value();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-30.f, 30.f);
  const float traps[] = {0.f,
                         -0.f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(),
                         88.7f,
                         -104.f,
                         1e-30f};
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = i % 5 == 2 ? traps[(i / 5) % 8] : u(rng);
  return t;
}

TEST(FuseSilu, EitherOperandOrderIsFusedAndExact) {
  for (bool first : {false, true}) {
    for (const char* shape : {"[1,8,33,37]", "[3]", "[1,2,1025]", "[1,16,80,80]"}) {
      SiluSpec s;
      s.sigmoid_first = first, s.shape = shape;
      const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-silu");
      EXPECT_EQ(n, 1) << shape;
      EXPECT_EQ(ops.count("Sigmoid") + ops.count("Mul"), 0u) << shape;
      EXPECT_EQ(ops.count("Silu"), 1u) << shape;
      const Dims dims = *StaticDims(*Load(s).value(Load(s).inputs[0]).shape);
      for (int threads : {1, 2}) {
        EXPECT_EQ(testing::CompareFusedToUnfused([&] { return Load(s); }, {Input(dims, 7)}, {"default", "fuse-silu"},
                                                 threads),
                  "")
            << shape << (first ? " sigmoid first" : "") << ", " << threads << " threads";
      }
    }
  }
}

TEST(FuseSilu, LeavesTheNodesWhenTheRulesDoNotHold) {
  SiluSpec output;
  output.sigmoid_is_output = true;
  SiluSpec other;
  other.other_operand = true;
  SiluSpec wide;
  wide.dtype = "float64";  // the fused op is float32 only
  for (const SiluSpec& s : {output, other, wide}) {
    const auto [n, ops] = testing::DefaultPassOutcome(Load(s), "fuse-silu");
    EXPECT_EQ(n, 0) << Json(s);
    EXPECT_EQ(ops.count("Sigmoid"), 1u) << Json(s);
  }
}

TEST(FuseSilu, TheFusedOpTakesFloat32Only) {
  const std::string json =
      R"({"format":"qrt.graph","version":1,"inputs":[{"name":"x","dtype":"float64","shape":[4]}],)"
      R"("outputs":[{"name":"y"}],"nodes":[{"name":"f","op":"Silu","domain":"qrt","inputs":["x"],"outputs":["y"]}]})";
  StatusOr<Graph> g = LoadJsonText(json, "silu.json", ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  auto r = testing::RunGraph(std::move(g).value(), {Tensor::Allocate(DataType::kFloat64, {4}).value()}, "none");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(testing::Contains(r.status().message(), "float64")) << r.status().message();
}

}  // namespace
}  // namespace qrt
