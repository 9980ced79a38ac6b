// Gemm whose constant B comes from a DequantizeLinear (a classifier's last layer): with the AVX2
// ISA it reads B as its 8-bit codes (avx2::SgemmRowLanesCoded, forced here with qrt_path
// "coded" so that a path not taken fails), and must give the reference kernels' bits on the
// float weights: per-tensor and per-row scales, both code types, zero points at the ends of
// their range, K and N with tails, with and without C. CodeWeights refuses weights off their
// grid.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "loaders/json_loader.h"
#include "ops/coded_weights.h"
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

std::string Json(const Case& c, const std::string& path = "coded") {
  const std::string n = std::to_string(c.n), k = std::to_string(c.k);
  const std::string type = c.is_signed ? "int8" : "uint8";
  const int lo = c.is_signed ? -128 : 0, hi = c.is_signed ? 127 : 255;
  std::string scales = "[";
  for (int64_t j = 0; j < (c.per_row ? c.n : 1); ++j) {
    scales += (j ? "," : "") + std::to_string(0.0011 + 0.0007 * double(j % 13));
  }
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
         R"(},{"name":"fc","op":"Gemm","inputs":)" + gemm_inputs +
         R"(,"outputs":["y"],"attrs":{"transB":1,"qrt_path":")" + path + R"("}}]})";
}

TEST(GemmCodedWeights, GiveTheReferenceBits) {
  const Case cases[] = {{1000, 1280, true, true, true, 0},
                        {53, 1283, false, false, true, 255},
                        {67, 1029, true, false, false, -128},
                        {64, 1024, false, true, false, 0},
                        {130, 517, true, false, true, 127}};
  for (const Case& c : cases) {
    Tensor a = Tensor::Allocate(DataType::kFloat32, {1, c.k}).value();
    std::mt19937 rng(uint32_t(c.n));
    std::uniform_real_distribution<float> u(-2.f, 2.f);
    for (int64_t i = 0; i < c.k; ++i) a.data<float>()[i] = i % 7 == 0 ? 0.f : u(rng);
    std::vector<std::vector<Tensor>> results;
    for (Isa isa : TiersThisCpuHas()) {
      StatusOr<Graph> g = LoadJsonText(Json(c, isa != Isa::kScalar ? "coded" : "f32"), "gemm.json", ".");
      ASSERT_TRUE(g.ok()) << g.status().message();
      auto r = testing::RunGraph(std::move(g).value(), {a}, "default", isa);
      ASSERT_TRUE(r.ok()) << r.status().message();
      results.push_back(std::move(r).value());
    }
    for (size_t t = 1; t < results.size(); ++t) {
      EXPECT_EQ(testing::CompareBits(results[t][0], results[0][0]), "") << "n " << c.n << " k " << c.k << " tier " << t;
    }
  }
}

TEST(GemmCodedWeights, TheHookRefusesWhereThePathDoesNotApply) {
  const Case c{64, 1024, false, false, false, 3};
  Tensor a = Tensor::Allocate(DataType::kFloat32, {1, c.k}).value();
  for (int64_t i = 0; i < c.k; ++i) a.data<float>()[i] = 0.5f;
  // The scalar ISA has no coded kernel; a small B stays float.
  StatusOr<Graph> g = LoadJsonText(Json(c), "gemm.json", ".");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(testing::RunGraph(std::move(g).value(), {a}, "default", Isa::kScalar).ok());
  const Case small{16, 64, false, false, false, 3};
  Tensor a_small = Tensor::Allocate(DataType::kFloat32, {1, small.k}).value();
  for (int64_t i = 0; i < small.k; ++i) a_small.data<float>()[i] = 0.5f;
  g = LoadJsonText(Json(small), "gemm.json", ".");
  ASSERT_TRUE(g.ok());
  EXPECT_FALSE(testing::RunGraph(std::move(g).value(), {a_small}, "default", kIsaAuto).ok());
}

// CodeWeights on hand-made grids: exact codes where every element is on its grid; null for an
// element one ulp off, a NaN, an infinity, -0 under a positive scale, a code out of range, a
// zero point outside the type, a zero scale, and below 64K elements.
TEST(GemmCodedWeights, CodeWeightsTakesOnlyExactGrids) {
  const int64_t n = 64, k = 1025;  // 65600 elements: just over 64K
  QuantGrid grid;
  grid.type = DataType::kInt8;
  grid.axis = 0;
  for (int64_t j = 0; j < n; ++j) {
    grid.scales.push_back(0.013f * float(j + 1));
    grid.zero_points.push_back(int32_t(j % 5) - 2);
  }
  Tensor w = Tensor::Allocate(DataType::kFloat32, {n, k}).value();
  std::mt19937 rng(3);
  std::vector<int> codes(size_t(n * k));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = 0; p < k; ++p) {
      const int code = -128 + int(rng() % 256);
      codes[size_t(j * k + p)] = code;
      w.data<float>()[j * k + p] = (float(code) - float(grid.zero_points[size_t(j)])) * grid.scales[size_t(j)];
    }
  }
  auto info = [&](const QuantGrid& g) {
    TensorInfo t;
    t.dtype = DataType::kFloat32;
    t.dims = {n, k};
    t.value = &w;
    t.grid = std::make_shared<QuantGrid>(g);
    return t;
  };
  auto coded = CodeWeights(info(grid), n, k);
  ASSERT_NE(coded, nullptr);
  EXPECT_TRUE(coded->view.is_signed);
  const int64_t stride = coded->view.stride;
  ASSERT_EQ(stride % 8, 0);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t p = 0; p < stride; ++p) {
      const int want = p < k ? codes[size_t(j * k + p)] : grid.zero_points[size_t(j)];
      // InterleaveCodedRows' layout: whole groups of four rows by 8 bytes, then the last rows.
      const int64_t at = j < n / 4 * 4 ? j / 4 * 4 * stride + 4 * (p / 8 * 8) + 8 * (j % 4) + p % 8 : j * stride + p;
      ASSERT_EQ(int(int8_t(coded->codes[size_t(at)])), want) << j << " " << p;
    }
  }
  auto refused = [&](float value, const char* what) {
    float& slot = w.data<float>()[5 * k + 17];
    const float saved = slot;
    slot = value;
    EXPECT_EQ(CodeWeights(info(grid), n, k), nullptr) << what;
    slot = saved;
  };
  const float on_grid = w.data<float>()[5 * k + 17];
  refused(std::nextafter(on_grid, 1e30f), "one ulp off");
  refused(std::numeric_limits<float>::quiet_NaN(), "NaN");
  refused(std::numeric_limits<float>::infinity(), "infinity");
  refused(200.f * grid.scales[5], "a code out of range");
  // -0 where the code equals the zero point (+0 under a positive scale).
  w.data<float>()[5 * k + 17] = 0.f;
  ASSERT_NE(CodeWeights(info(grid), n, k), nullptr);
  refused(-0.f, "-0 under a positive scale");
  QuantGrid bad = grid;
  bad.zero_points[3] = 128;
  EXPECT_EQ(CodeWeights(info(bad), n, k), nullptr) << "zero point outside int8";
  bad = grid;
  bad.scales[3] = 0.f;
  EXPECT_EQ(CodeWeights(info(bad), n, k), nullptr) << "zero scale";
  // 63 rows of the same weights: on the grid, but under 64K elements.
  Tensor fewer = Tensor::Allocate(DataType::kFloat32, {n - 1, k}).value();
  std::copy(w.data<float>(), w.data<float>() + (n - 1) * k, fewer.data<float>());
  QuantGrid fewer_grid = grid;
  fewer_grid.scales.pop_back(), fewer_grid.zero_points.pop_back();
  TensorInfo small = info(fewer_grid);
  small.dims = {n - 1, k}, small.value = &fewer;
  EXPECT_EQ(CodeWeights(small, n - 1, k), nullptr) << "fewer than 64K elements";
}

}  // namespace
}  // namespace qrt
