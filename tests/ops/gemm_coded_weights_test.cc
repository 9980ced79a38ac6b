// Gemm whose constant B comes from a DequantizeLinear (a classifier's last layer): with the AVX2
// ISA it reads B as its 8-bit codes (avx2::SgemmRowLanesCoded), and must give the reference
// kernels' bits on the float weights: per-tensor and per-row scales, both code types, zero points
// at the ends of their range, K and N with tails, with and without C.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct Case {
  int64_t n, k;
  bool is_signed, per_row, with_c;
  int zero_point;
};

std::string Numbers(int64_t count, uint32_t seed, int low, int high) {
  std::mt19937 rng(seed);
  std::string s = "[";
  for (int64_t i = 0; i < count; ++i) s += (i ? "," : "") + std::to_string(low + int(rng() % uint32_t(high - low + 1)));
  return s + "]";
}

std::string Json(const Case& c) {
  const std::string n = std::to_string(c.n), k = std::to_string(c.k);
  const std::string type = c.is_signed ? "int8" : "uint8";
  const int lo = c.is_signed ? -128 : 0, hi = c.is_signed ? 127 : 255;
  std::string scales = "[";
  for (int64_t j = 0; j < (c.per_row ? c.n : 1); ++j) scales += (j ? "," : "") + std::to_string(0.0011 + 0.0007 * double(j % 13));
  scales += "]";
  const std::string scale_shape = c.per_row ? "[" + n + "]" : "[]";
  const std::string zp_data = c.per_row ? Numbers(c.n, 3, lo, hi) : "[" + std::to_string(c.zero_point) + "]";
  std::string inits = R"({"name":"wq","dtype":")" + type + R"(","shape":[)" + n + "," + k + R"(],"data":)" +
                      Numbers(c.n * c.k, 1, lo, hi) + R"(},{"name":"s","dtype":"float32","shape":)" + scale_shape +
                      R"(,"data":)" + scales + R"(},{"name":"z","dtype":")" + type + R"(","shape":)" + scale_shape +
                      R"(,"data":)" + zp_data + "}";
  std::string gemm_inputs = R"(["a","w"])";
  if (c.with_c) {
    inits += R"(,{"name":"c","dtype":"float32","shape":[)" + n + R"(],"data":)" + Numbers(c.n, 4, -9, 9) + "}";
    gemm_inputs = R"(["a","w","c"])";
  }
  const std::string axis = c.per_row ? R"(,"attrs":{"axis":0})" : "";
  return R"({"format":"qrt.graph","version":1,"inputs":[{"name":"a","dtype":"float32","shape":[1,)" + k +
         R"(]}],"outputs":[{"name":"y"}],"initializers":[)" + inits +
         R"(],"nodes":[{"name":"dq","op":"DequantizeLinear","inputs":["wq","s","z"],"outputs":["w"])" + axis +
         R"(},{"name":"fc","op":"Gemm","inputs":)" + gemm_inputs + R"(,"outputs":["y"],"attrs":{"transB":1}}]})";
}

TEST(GemmCodedWeights, GiveTheReferenceBits) {
  const Case cases[] = {{1000, 1280, true, true, true, 0},  {53, 1283, false, false, true, 255},
                        {67, 1029, true, false, false, -128}, {64, 1024, false, true, false, 0},
                        {130, 517, true, false, true, 127}};
  for (const Case& c : cases) {
    const std::string json = Json(c);
    Tensor a = Tensor::Allocate(DataType::kFloat32, {1, c.k}).value();
    std::mt19937 rng(uint32_t(c.n));
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    for (int64_t i = 0; i < c.k; ++i) a.data<float>()[i] = i % 7 == 0 ? 0.f : u(rng);
    std::vector<std::vector<Tensor>> results;
    for (Isa isa : {Isa::kScalar, Isa::kAvx2}) {
      StatusOr<Graph> g = LoadJsonText(json, "gemm.json", ".");
      ASSERT_TRUE(g.ok()) << g.status().message();
      auto r = testing::RunGraph(std::move(g).value(), {a}, "default", isa);
      ASSERT_TRUE(r.ok()) << r.status().message();
      results.push_back(std::move(r).value());
    }
    EXPECT_EQ(testing::CompareBits(results[1][0], results[0][0]), "") << "n " << c.n << " k " << c.k;
  }
}

}  // namespace
}  // namespace qrt
