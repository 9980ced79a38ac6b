#include "ops/kernels/quantize/uniform_dequantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::FirstDiff;
using ::qrt::testing::TestSeed;

template <class T>
StatusOr<std::vector<float>> Dq(const Dims& dims, const std::vector<T>& x, const Dims& sdims,
                                const std::vector<float>& scales, const std::vector<int32_t>& zps, int64_t axis = -1,
                                Isa isa = Isa::kScalar, const Dims* zdims = nullptr) {
  UniformDequantizeAttrs attrs;
  attrs.quantization_axis = axis;
  attrs.quantization_min_val = -128;
  attrs.quantization_max_val = 127;
  QRT_ASSIGN_OR_RETURN(UniformDequantizePlan plan,
                       PrepareUniformDequantize(attrs, {DataTypeOf<T>::value, dims}, {DataType::kFloat32, sdims},
                                                {DataType::kInt32, zdims ? *zdims : sdims}, isa));
  std::vector<float> y(x.size() + 1, -777.0f);
  QRT_RETURN_IF_ERROR(RunUniformDequantize(plan, x.data(), scales.data(), zps.data(), y.data()));
  EXPECT_EQ(y.back(), -777.0f);
  y.pop_back();
  return y;
}

TEST(UniformDequantize, Int32SubtractsBeforeConverting) {
  // 20000001 - 3 = 19999998 exactly, * 0.5 = 9999999 (converting first would give 9999998).
  EXPECT_EQ(Dq<int32_t>({1}, {20000001}, {}, {0.5f}, {3}).value()[0], 9999999.0f);
  // Above 2^24 the conversion rounds to even: 16777219 -> 16777220, * 0.5 = 8388610.
  EXPECT_EQ(Dq<int32_t>({1}, {16777219}, {}, {0.5f}, {0}).value()[0], 8388610.0f);
}

TEST(UniformDequantize, Int32OverflowWrapsWithoutUndefinedBehaviour) {
  // INT32_MIN - 1 wraps to INT32_MAX (x86 TF's result); INT32_MAX - (-1) wraps to INT32_MIN.
  const auto y =
      Dq<int32_t>({2}, {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()}, {}, {1.0f}, {1})
          .value();
  EXPECT_EQ(y[0], 2147483648.0f);
  EXPECT_EQ(y[1], 2147483646.0f);
  const auto z = Dq<int32_t>({1}, {std::numeric_limits<int32_t>::max()}, {}, {1.0f}, {-1}).value();
  EXPECT_EQ(z[0], -2147483648.0f);
}

TEST(UniformDequantize, Int8AndUint8PerTensor) {
  EXPECT_EQ(Dq<int8_t>({4}, {-128, -1, 0, 127}, {}, {0.5f}, {-1}).value(),
            (std::vector<float>{-63.5f, 0.0f, 0.5f, 64.0f}));
  EXPECT_EQ(Dq<uint8_t>({3}, {0, 128, 255}, {}, {2.0f}, {128}).value(), (std::vector<float>{-256, 0, 254}));
}

TEST(UniformDequantize, PerAxisAtEveryAxis) {
  const Dims dims = {2, 3, 4};
  std::vector<int8_t> x(24);
  for (int i = 0; i < 24; ++i) x[i] = static_cast<int8_t>(i * 5 - 60);
  for (int64_t axis = 0; axis < 3; ++axis) {
    const int64_t c = dims[axis];
    std::vector<float> s(c);
    std::vector<int32_t> z(c);
    for (int64_t i = 0; i < c; ++i) {
      s[i] = 0.25f * (i + 1);
      z[i] = static_cast<int32_t>(i * 3 - 2);
    }
    for (Isa isa : TiersThisCpuHas()) {
      const auto y = Dq<int8_t>(dims, x, {c}, s, z, axis, isa).value();
      for (int e = 0; e < 24; ++e) {
        const int64_t idx[3] = {e / 12, (e / 4) % 3, e % 4};
        const int64_t k = idx[axis];
        ASSERT_EQ(y[e], static_cast<float>(x[e] - z[k]) * s[k]) << "axis " << axis << " e " << e;
      }
    }
  }
}

TEST(UniformDequantize, ValidationInTensorFlowOrder) {
  const std::vector<int8_t> x(6, 1);
  const Dims zd = {3};
  // 1. shapes differ (checked before the axis).
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {1}, {0}, 7, Isa::kScalar, &zd), "must have the same shape");
  // 2. axis range.
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {1}, {0}, 2), "quantization_axis must be in");
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {1}, {0}, -2), "quantization_axis must be in");
  // 3. axis -1 needs rank-0 scales: [1] is rejected.
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {1}, {1}, {0}), "must be scalar tensors");
  // 4. per-axis size.
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {2}, {1, 1}, {0, 0}, 1), "1-D of size dim(axis)");
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {1}, {0}, 1), "1-D of size dim(axis)");
  // 5. scales must be positive (run time).
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {0.0f}, {0}), "scales elements must be all positive");
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {-1.0f}, {0}), "scales elements must be all positive");
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {}, {std::nanf("")}, {0}), "scales elements must be all positive");
  QRT_EXPECT_ERROR(Dq<int8_t>({2, 3}, x, {3}, {1, 0, 1}, {0, 0, 0}, 1), "scales[1]");
  // dtypes.
  UniformDequantizeAttrs attrs;
  QRT_EXPECT_ERROR(PrepareUniformDequantize(attrs, {DataType::kInt16, {2}}, {DataType::kFloat32, {}},
                                            {DataType::kInt32, {}}, Isa::kScalar),
                   "input dtype must be");
  attrs.Tout = DataType::kFloat16;
  QRT_EXPECT_ERROR(PrepareUniformDequantize(attrs, {DataType::kInt8, {2}}, {DataType::kFloat32, {}},
                                            {DataType::kInt32, {}}, Isa::kScalar),
                   "Tout must be float32");
}

TEST(UniformDequantize, EmptyInput) {
  EXPECT_TRUE(Dq<int8_t>({0, 3}, {}, {}, {1.0f}, {0}).value().empty());
  EXPECT_TRUE(Dq<int8_t>({0, 3}, {}, {3}, {1.0f, 1.0f, 1.0f}, {0, 0, 0}, 1).value().empty());
}

template <class T>
void CompareAvx2(std::mt19937& rng, uint32_t seed) {
  std::uniform_int_distribution<int64_t> vals(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::uniform_int_distribution<int32_t> zps(-300, 300);
  std::uniform_real_distribution<float> sc(0.001f, 3.0f);
  std::vector<std::pair<Dims, int64_t>> shapes;
  for (int64_t n = 0; n <= 257; ++n) shapes.push_back({{n}, -1});
  shapes.push_back({{100003}, -1});
  for (int64_t n : {1, 7, 8, 9, 33, 100}) {
    shapes.push_back({{3, n}, 1});
    shapes.push_back({{n, 3}, 0});
    shapes.push_back({{2, n, 5}, 1});
  }
  for (const auto& [dims, axis] : shapes) {
    const int64_t n = ElementCount(dims);
    const int64_t c = axis < 0 ? 1 : dims[axis];
    std::vector<T> x(n);
    for (auto& v : x) v = static_cast<T>(vals(rng));
    if (n > 2 && std::is_same<T, int32_t>::value) {
      x[0] = static_cast<T>(std::numeric_limits<T>::min());
      x[1] = static_cast<T>(std::numeric_limits<T>::max());
    }
    std::vector<float> s(c);
    std::vector<int32_t> z(c);
    for (int64_t i = 0; i < c; ++i) {
      s[i] = sc(rng);
      z[i] = zps(rng);
    }
    if (c > 0) z[0] = std::is_same<T, int32_t>::value ? std::numeric_limits<int32_t>::min() + 5 : z[0];
    const Dims sd = axis < 0 ? Dims{} : Dims{c};
    const auto r = Dq<T>(dims, x, sd, s, z, axis, Isa::kScalar).value();
    const auto v = Dq<T>(dims, x, sd, s, z, axis, kIsaAuto).value();
    const int64_t d = FirstDiff(r.data(), v.data(), r.size() * 4, true);
    ASSERT_EQ(d, -1) << "seed " << seed << " " << DataTypeName(DataTypeOf<T>::value) << " dims " << DimsToString(dims)
                     << " axis " << axis << " at " << d;
  }
}

TEST(UniformDequantizeAvx2, MatchesReferenceBitExact) {
  QRT_REQUIRE_AVX2();
  const uint32_t seed = TestSeed();
  std::mt19937 rng(seed);
  CompareAvx2<int8_t>(rng, seed);
  CompareAvx2<uint8_t>(rng, seed);
  CompareAvx2<int32_t>(rng, seed);
}

}  // namespace
}  // namespace qrt
