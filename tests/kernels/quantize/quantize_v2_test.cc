#include "ops/kernels/quantize/quantize_v2.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <limits>
#include <random>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;
using ::qrt::testing::FirstDiff;
using ::qrt::testing::TestSeed;
using Mode = QuantizeV2Mode;
using Round = QuantizeV2RoundMode;

struct QOut {
  std::vector<int64_t> q;
  std::vector<float> out_min, out_max;
  Dims out_min_dims;
};

QuantizeV2Attrs Attrs(DataType t, Mode mode = Mode::kMinCombined, Round round = Round::kHalfAwayFromZero,
                      bool narrow = false, int64_t axis = -1, float ensure = 0.01f) {
  QuantizeV2Attrs a;
  a.T = t;
  a.mode = mode;
  a.round_mode = round;
  a.narrow_range = narrow;
  a.axis = axis;
  a.ensure_minimum_range = ensure;
  return a;
}

int64_t LoadInt(DataType t, const std::vector<uint8_t>& buf, size_t i) {
  switch (t) {
    case DataType::kInt8:
      return reinterpret_cast<const int8_t*>(buf.data())[i];
    case DataType::kUInt8:
      return buf[i];
    case DataType::kInt16:
      return reinterpret_cast<const int16_t*>(buf.data())[i];
    case DataType::kUInt16:
      return reinterpret_cast<const uint16_t*>(buf.data())[i];
    case DataType::kInt32:
      return reinterpret_cast<const int32_t*>(buf.data())[i];
    default:
      return 0;
  }
}

StatusOr<QOut> Q(const QuantizeV2Attrs& attrs, const Dims& dims, const std::vector<float>& x,
                 const std::vector<float>& mn, const std::vector<float>& mx, const Dims& range_dims = {},
                 Isa isa = Isa::kScalar) {
  QRT_ASSIGN_OR_RETURN(QuantizeV2Plan plan,
                       PrepareQuantizeV2(attrs, {DataType::kFloat32, dims}, {DataType::kFloat32, range_dims},
                                         {DataType::kFloat32, range_dims}, isa));
  const size_t es = DataTypeSize(attrs.T);
  std::vector<uint8_t> out(x.size() * es + 1, 0xA5);
  const size_t nr = static_cast<size_t>(ElementCount(plan.output_min_dims));
  QOut r;
  r.out_min.assign(nr, 0);
  r.out_max.assign(nr, 0);
  r.out_min_dims = plan.output_min_dims;
  QRT_RETURN_IF_ERROR(
      RunQuantizeV2(plan, x.data(), mn.data(), mx.data(), out.data(), r.out_min.data(), r.out_max.data()));
  EXPECT_EQ(out.back(), 0xA5) << "wrote past the end";
  for (size_t i = 0; i < x.size(); ++i) r.q.push_back(LoadInt(attrs.T, out, i));
  return r;
}

int64_t Q1(const QuantizeV2Attrs& a, float x, float mn, float mx) { return Q(a, {1}, {x}, {mn}, {mx}).value().q[0]; }

// ---- 2.2 range adjustment ----------------------------------------------------------------

TEST(QuantizeV2, RangeAdjustment) {
  auto r = Q(Attrs(DataType::kUInt8), {1}, {1}, {0.5f}, {2.0f}).value();
  EXPECT_EQ(r.out_min[0], 0.0f);
  EXPECT_EQ(r.out_max[0], 2.0f);
  r = Q(Attrs(DataType::kUInt8), {1}, {0}, {-0.002f}, {0.003f}).value();
  EXPECT_EQ(r.out_min[0], -0.002f);
  EXPECT_EQ(Bits(r.out_max[0]), Bits(0.00799999945f));
  r = Q(Attrs(DataType::kUInt8, Mode::kMinCombined, Round::kHalfAwayFromZero, false, -1, 0.5f), {1}, {0}, {-6.0f},
        {-4.0f})
          .value();
  EXPECT_EQ(r.out_min[0], -6.0f);
  EXPECT_EQ(r.out_max[0], 0.0f);
  r = Q(Attrs(DataType::kUInt8), {1}, {0}, {0.0f}, {0.0f}).value();
  EXPECT_EQ(r.out_min[0], 0.0f);
  EXPECT_EQ(r.out_max[0], 0.01f);
  EXPECT_TRUE(r.out_min_dims.empty());
}

// ---- 2.3 MIN_COMBINED ---------------------------------------------------------------------

TEST(QuantizeV2, MinCombinedSignedShiftsBeforeRounding) {
  // qint8 over [0,255] (scale 1): 10.5 - 128 = -117.5 -> -118 (naive round(x) - 128 gives -117).
  const auto a = Attrs(DataType::kInt8);
  EXPECT_EQ(Q1(a, 10.5f, 0, 255), -118);
  EXPECT_EQ(Q1(a, 0.0f, 0, 255), -128);
  EXPECT_EQ(Q1(a, 255.0f, 0, 255), 127);
  EXPECT_EQ(Q1(a, 300.0f, 0, 255), 127);  // clamped to the range
  EXPECT_EQ(Q1(a, -10.0f, 0, 255), -128);
  EXPECT_EQ(Q1(a, 127.5f, 0, 255), -1);  // -0.5 rounds away from zero
}

TEST(QuantizeV2, MinCombinedUnsignedTruncPlusHalfTrap) {
  const auto a = Attrs(DataType::kUInt8);
  EXPECT_EQ(Q1(a, 0.49999997f, 0, 255), 1);  // 0.49999997f + 0.5f rounds to 1.0f
  EXPECT_EQ(Q1(a, 0.4999999f, 0, 255), 0);
  EXPECT_EQ(Q1(a, 2.5f, 0, 255), 3);  // half up
  EXPECT_EQ(Q1(a, 254.6f, 0, 255), 255);
  EXPECT_EQ(Q1(a, -1.0f, 0, 255), 0);
  const auto b = Attrs(DataType::kUInt16);
  EXPECT_EQ(Q1(b, 100.0f, 0, 65535), 100);
  EXPECT_EQ(Q1(b, 65535.0f, 0, 65535), 65535);
}

TEST(QuantizeV2, MinCombinedQint32NoUndefinedConversion) {
  const auto a = Attrs(DataType::kInt32);
  EXPECT_EQ(Q1(a, 1.0f, 0, 1), 2147483647);  // v - 2^31 reaches 2^31: saturates
  EXPECT_EQ(Q1(a, 0.0f, 0, 1), -2147483647 - 1);
  EXPECT_EQ(Q1(a, 0.5f, 0, 1), 0);
  const auto b = Attrs(DataType::kInt16);
  EXPECT_EQ(Q1(b, 0.0f, 0, 65535), -32768);
  EXPECT_EQ(Q1(b, 65535.0f, 0, 65535), 32767);
}

TEST(QuantizeV2, NanInputConvertsToZero) {
  const float nan = std::nanf("");
  EXPECT_EQ(Q1(Attrs(DataType::kUInt8), nan, 0, 255), 0);
  EXPECT_EQ(Q1(Attrs(DataType::kInt8), nan, 0, 255), 0);
  EXPECT_EQ(Q1(Attrs(DataType::kInt32), nan, 0, 255), 0);
  EXPECT_EQ(Q1(Attrs(DataType::kInt8, Mode::kScaled), nan, -1, 1), 0);
  EXPECT_EQ(Q1(Attrs(DataType::kUInt8, Mode::kMinFirst), nan, -1, 3), 0);
}

// ---- 2.4 MIN_FIRST ------------------------------------------------------------------------

TEST(QuantizeV2, MinFirstRoundsTwice) {
  // quint8 over [-1,3]: s = 63.75, round(-63.75) = -64; x=0.01: round(0.6375) + 64 = 65.
  const auto a = Attrs(DataType::kUInt8, Mode::kMinFirst);
  EXPECT_EQ(Q1(a, 0.01f, -1, 3), 65);
  EXPECT_EQ(Q1(a, -1.0f, -1, 3), 0);
  EXPECT_EQ(Q1(a, 3.0f, -1, 3), 255);
  EXPECT_EQ(Q1(a, 10.0f, -1, 3), 255);  // not clamped first; the result is
  EXPECT_EQ(Q1(a, -10.0f, -1, 3), 0);
  const auto r = Q(a, {1}, {0}, {-1}, {3}).value();
  EXPECT_EQ(r.out_min[0], -1.0f);
  EXPECT_EQ(r.out_max[0], 3.0f);
}

TEST(QuantizeV2, MinFirstQint32SaturatesAt2147483520) {
  const auto a = Attrs(DataType::kInt32, Mode::kMinFirst);
  EXPECT_EQ(Q1(a, 1.0f, -1, 1), 2147483520);
  EXPECT_EQ(Q1(a, 1e30f, -1, 1), 2147483520);
  EXPECT_EQ(Q1(a, -1e30f, -1, 1), -2147483647 - 1);
}

TEST(QuantizeV2, MinFirstEmptyRangeGivesTmin) {
  const auto a = Attrs(DataType::kUInt8, Mode::kMinFirst, Round::kHalfAwayFromZero, false, -1, 0.0f);
  EXPECT_EQ(Q(a, {3}, {-5, 0, 7}, {0}, {0}).value().q, (std::vector<int64_t>{0, 0, 0}));
  const auto b = Attrs(DataType::kInt8, Mode::kMinFirst, Round::kHalfAwayFromZero, false, -1, 0.0f);
  EXPECT_EQ(Q(b, {3}, {-5, 0, 7}, {0}, {0}).value().q, (std::vector<int64_t>{-128, -128, -128}));
}

// ---- 2.5 SCALED ---------------------------------------------------------------------------

TEST(QuantizeV2, ScaledTighterSideWins) {
  // qint8 over [-2,5]: s = min(64, 25.4) = 25.4; output_min = -128/25.4 = -5.03937, output_max = 5.
  const auto a = Attrs(DataType::kInt8, Mode::kScaled);
  const auto r = Q(a, {4}, {-2.0f, -5.5f, 5.0f, 0.0f}, {-2}, {5}).value();
  EXPECT_EQ(r.q, (std::vector<int64_t>{-51, -128, 127, 0}));
  EXPECT_EQ(Bits(r.out_min[0]), Bits(-128.0f / 25.4f));
  EXPECT_NEAR(r.out_min[0], -5.03937f, 1e-5f);
  EXPECT_EQ(r.out_max[0], 127.0f / 25.4f);
  EXPECT_NEAR(r.out_max[0], 5.0f, 1e-6f);
}

TEST(QuantizeV2, ScaledTfQint8Example) {
  const auto r = Q(Attrs(DataType::kInt8, Mode::kScaled), {3}, {-128, 100, 0}, {-128}, {100}).value();
  EXPECT_EQ(r.out_max[0], 127.0f);
  EXPECT_EQ(r.out_min[0], -128.0f);
  EXPECT_EQ(r.q, (std::vector<int64_t>{-128, 100, 0}));
}

TEST(QuantizeV2, ScaledRoundModesOnTies) {
  // qint8 over [-127,127]: s = min(128/127, 1) = 1.
  const auto away = Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero);
  const auto even = Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfToEven);
  const std::vector<float> x = {2.5f, 3.5f, -2.5f, -3.5f, 0.5f, -0.5f, 0.49999997f};
  EXPECT_EQ(Q(away, {7}, x, {-127}, {127}).value().q, (std::vector<int64_t>{3, 4, -3, -4, 1, -1, 0}));
  EXPECT_EQ(Q(even, {7}, x, {-127}, {127}).value().q, (std::vector<int64_t>{2, 4, -2, -4, 0, 0, 0}));
}

TEST(QuantizeV2, ScaledQuint8NarrowRange) {
  // quint8 narrow over [0,255]: s = 1, outputs in [1,255]; 0 and negatives map to 1.
  const auto a = Attrs(DataType::kUInt8, Mode::kScaled, Round::kHalfAwayFromZero, true);
  const auto r = Q(a, {4}, {0.0f, -3.0f, 255.0f, 7.4f}, {0}, {255}).value();
  EXPECT_EQ(r.q, (std::vector<int64_t>{1, 1, 255, 7}));
  EXPECT_EQ(r.out_min[0], 1.0f);
  EXPECT_EQ(r.out_max[0], 255.0f);
}

TEST(QuantizeV2, ScaledQint8NarrowRange) {
  const auto a = Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero, true);
  const auto r = Q(a, {3}, {-200.0f, 200.0f, -127.0f}, {-127}, {127}).value();
  EXPECT_EQ(r.q, (std::vector<int64_t>{-127, 127, -127}));
  EXPECT_EQ(r.out_min[0], -127.0f);
}

TEST(QuantizeV2, ScaledQuint8NegativesClampToZero) {
  const auto r = Q(Attrs(DataType::kUInt8, Mode::kScaled), {3}, {-3.0f, 2.0f, 4.0f}, {-1}, {4}).value();
  EXPECT_EQ(r.q[0], 0);
  EXPECT_EQ(r.out_min[0], 0.0f);
}

TEST(QuantizeV2, ScaledDegenerateFltMaxScale) {
  // quint8 over [-3,-1]: max_range becomes 0, both sides give FLT_MAX.
  const auto r = Q(Attrs(DataType::kUInt8, Mode::kScaled), {2}, {1.0f, -2.0f}, {-3}, {-1}).value();
  EXPECT_EQ(r.q, (std::vector<int64_t>{255, 0}));
  EXPECT_EQ(r.out_max[0], 255.0f / FLT_MAX);
  EXPECT_NEAR(r.out_max[0], 7.49e-37f, 1e-39f);
}

TEST(QuantizeV2, ScaledQint32TopSaturates) {
  const auto a = Attrs(DataType::kInt32, Mode::kScaled);
  EXPECT_EQ(Q1(a, 1.0f, -1, 1), 2147483647);
  EXPECT_EQ(Q1(a, -1.0f, -1, 1), -2147483647 - 1);  // s = 2^31: -1 * s = -2^31 is representable
}

// ---- 2.1 validation ------------------------------------------------------------------------

TEST(QuantizeV2, Validation) {
  const Dims d = {2, 3};
  auto prep = [&](const QuantizeV2Attrs& a, const Dims& rd) {
    return PrepareQuantizeV2(a, {DataType::kFloat32, d}, {DataType::kFloat32, rd}, {DataType::kFloat32, rd},
                             Isa::kScalar);
  };
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8, Mode::kMinCombined, Round::kHalfToEven), {}),
                   "HALF_TO_EVEN is only supported with mode SCALED");
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8, Mode::kMinFirst, Round::kHalfToEven), {}),
                   "HALF_TO_EVEN is only supported with mode SCALED");
  EXPECT_TRUE(prep(Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfToEven), {}).ok());
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero, false, -2), {}),
                   "axis should be at least -1");
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero, false, 2), {3}),
                   "less than the number of input dims");
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero, false, 1), {2}),
                   "must be a 1-D tensor whose size matches");
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero, false, 1), {}),
                   "must be a 1-D tensor whose size matches");
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kInt8), {2}), "must contain a single float element");
  EXPECT_TRUE(prep(Attrs(DataType::kInt8), {1}).ok());  // qrt: any one-element tensor
  EXPECT_TRUE(prep(Attrs(DataType::kInt8), {1, 1}).ok());
  auto mf = prep(Attrs(DataType::kInt8, Mode::kMinFirst, Round::kHalfAwayFromZero, false, 1), {3});
  QRT_EXPECT_ERROR(mf, "MIN_FIRST mode is not implemented");
  EXPECT_EQ(mf.status().code(), StatusCode::kUnsupported);
  QRT_EXPECT_ERROR(prep(Attrs(DataType::kFloat32), {}), "T must be one of");
  QRT_EXPECT_ERROR(PrepareQuantizeV2(Attrs(DataType::kInt8), {DataType::kFloat16, d}, {DataType::kFloat32, {}},
                                     {DataType::kFloat32, {}}, Isa::kScalar),
                   "must be float32");
}

TEST(QuantizeV2, MaxBelowMinIsARunTimeError) {
  QRT_EXPECT_ERROR(Q(Attrs(DataType::kUInt8), {1}, {0}, {2}, {1}), "input_max_range must be larger");
  QRT_EXPECT_ERROR(
      Q(Attrs(DataType::kInt8, Mode::kScaled, Round::kHalfAwayFromZero, false, 0), {2}, {0, 0}, {0, 2}, {1, 1}, {2}),
      "input_max_range must be larger");
  EXPECT_TRUE(Q(Attrs(DataType::kUInt8), {1}, {0}, {1}, {1}).ok());              // equal is fine
  EXPECT_TRUE(Q(Attrs(DataType::kUInt8), {1}, {0}, {std::nanf("")}, {1}).ok());  // NaN passes !(max < min)
}

TEST(QuantizeV2, ParseNames) {
  EXPECT_EQ(ParseQuantizeV2Mode("MIN_FIRST").value(), Mode::kMinFirst);
  EXPECT_EQ(ParseQuantizeV2RoundMode("HALF_TO_EVEN").value(), Round::kHalfToEven);
  QRT_EXPECT_ERROR(ParseQuantizeV2Mode("min_first"), "unknown mode");
  QRT_EXPECT_ERROR(ParseQuantizeV2RoundMode("UP"), "unknown round_mode");
}

// ---- 2.6 per-axis ---------------------------------------------------------------------------

TEST(QuantizeV2, PerAxisShapesAndDimOneTakesPerTensorPath) {
  auto r = Q(Attrs(DataType::kUInt8, Mode::kMinCombined, Round::kHalfAwayFromZero, false, 1), {2, 3},
             {0, 1, 2, 3, 4, 5}, {0, 0, 0}, {255, 1, 2}, {3})
               .value();
  EXPECT_EQ(r.out_min_dims, (Dims{3}));
  EXPECT_EQ(r.out_max, (std::vector<float>{255, 1, 2}));
  EXPECT_EQ(r.q, (std::vector<int64_t>{0, 255, 255, 3, 255, 255}));
  // dim(axis) == 1: per-tensor path, scalar output_min, MIN_FIRST allowed.
  r = Q(Attrs(DataType::kUInt8, Mode::kMinFirst, Round::kHalfAwayFromZero, false, 1), {2, 1}, {-1, 3}, {-1}, {3}, {1})
          .value();
  EXPECT_TRUE(r.out_min_dims.empty());
  EXPECT_EQ(r.q, (std::vector<int64_t>{0, 255}));
}

// Per-axis equals per-tensor quantization of each slice, at every axis.
TEST(QuantizeV2, PerAxisEqualsPerSliceAtEveryAxis) {
  std::mt19937 rng(TestSeed());
  std::uniform_real_distribution<float> u(-4, 4);
  const Dims dims = {3, 4, 5};
  std::vector<float> x(60);
  for (auto& v : x) v = u(rng);
  for (Mode mode : {Mode::kMinCombined, Mode::kScaled}) {
    for (int64_t axis = 0; axis < 3; ++axis) {
      const int64_t c = dims[axis];
      std::vector<float> mn(c), mx(c);
      for (int64_t i = 0; i < c; ++i) {
        mn[i] = -1.0f - i;
        mx[i] = 0.5f + 0.7f * i;
      }
      const auto r =
          Q(Attrs(DataType::kInt8, mode, Round::kHalfAwayFromZero, false, axis), dims, x, mn, mx, {c}).value();
      for (int64_t e = 0; e < 60; ++e) {
        const int64_t idx[3] = {e / 20, (e / 5) % 4, e % 5};
        const int64_t s = idx[axis];
        const auto one = Q(Attrs(DataType::kInt8, mode), {1}, {x[e]}, {mn[s]}, {mx[s]}).value();
        ASSERT_EQ(r.q[e], one.q[0]) << "axis " << axis << " element " << e;
        ASSERT_EQ(r.out_min[s], one.out_min[0]);
        ASSERT_EQ(r.out_max[s], one.out_max[0]);
      }
    }
  }
}

TEST(QuantizeV2, EmptyInputStillWritesRange) {
  const auto r = Q(Attrs(DataType::kUInt8), {0, 4}, {}, {0.5f}, {2}).value();
  EXPECT_TRUE(r.q.empty());
  EXPECT_EQ(r.out_max[0], 2.0f);
}

// ---- AVX2 vs reference ---------------------------------------------------------------------

TEST(QuantizeV2Avx2, MatchesReferenceBitExact) {
  QRT_REQUIRE_AVX2();
  const uint32_t seed = TestSeed();
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.5f, 1.5f);
  std::uniform_int_distribution<int> pick(0, 19);
  struct Cfg {
    Mode mode;
    Round round;
    bool narrow;
  };
  const Cfg cfgs[] = {
      {Mode::kMinCombined, Round::kHalfAwayFromZero, false}, {Mode::kMinFirst, Round::kHalfAwayFromZero, false},
      {Mode::kScaled, Round::kHalfAwayFromZero, false},      {Mode::kScaled, Round::kHalfToEven, false},
      {Mode::kScaled, Round::kHalfAwayFromZero, true},       {Mode::kScaled, Round::kHalfToEven, true}};
  std::vector<std::pair<Dims, int64_t>> shapes;  // dims, axis
  for (int64_t n = 0; n <= 257; ++n) shapes.push_back({{n}, -1});
  shapes.push_back({{100003}, -1});
  for (int64_t n : {1, 5, 8, 31, 33, 64}) {
    shapes.push_back({{3, n}, 1});  // inner == 1: constants advance per element
    shapes.push_back({{n, 3}, 0});
    shapes.push_back({{2, 3, n}, 1});
  }
  shapes.push_back({{2, 300, 2}, 1});  // more slices than one constants chunk
  shapes.push_back({{2, 300}, 1});
  for (DataType t : {DataType::kInt8, DataType::kUInt8}) {
    for (const Cfg& cfg : cfgs) {
      for (const auto& [dims, axis] : shapes) {
        if (cfg.mode == Mode::kMinFirst && axis != -1) continue;
        const int64_t n = ElementCount(dims);
        const int64_t slices = axis < 0 ? 1 : dims[axis];
        std::vector<float> mn(slices), mx(slices), x(n);
        for (int64_t s = 0; s < slices; ++s) {
          mn[s] = u(rng) * 4;
          mx[s] = mn[s] + std::fabs(u(rng)) * 6;
          if (pick(rng) == 0) mx[s] = mn[s];
        }
        for (auto& v : x) {
          v = u(rng) * 8;
          const int k = pick(rng);
          if (k == 0) v = std::nanf("");
          if (k == 1) v = std::copysign(std::numeric_limits<float>::infinity(), v);
          if (k == 2) v = std::round(v * 2) / 2;  // halves: ties for scale-1 style ranges
          if (k == 3) v = 0.49999997f;
        }
        const auto attrs = Attrs(t, cfg.mode, cfg.round, cfg.narrow, axis, pick(rng) == 0 ? 0.0f : 0.01f);
        const Dims rd = axis < 0 ? Dims{} : Dims{slices};
        auto r = Q(attrs, dims, x, mn, mx, rd, Isa::kScalar);
        auto v = Q(attrs, dims, x, mn, mx, rd, kIsaAuto);
        QRT_ASSERT_OK(r.status());
        QRT_ASSERT_OK(v.status());
        for (int64_t i = 0; i < n; ++i) {
          ASSERT_EQ(r->q[i], v->q[i]) << "seed " << seed << " T " << DataTypeName(t) << " mode "
                                      << static_cast<int>(cfg.mode) << " round " << static_cast<int>(cfg.round)
                                      << " narrow " << cfg.narrow << " dims " << DimsToString(dims) << " axis " << axis
                                      << " i " << i << " x " << x[i];
        }
        ASSERT_EQ(FirstDiff(r->out_min.data(), v->out_min.data(), r->out_min.size() * 4, true), -1);
      }
    }
  }
}

// Exhaustive-ish check of the rounding helpers around ties and the 0.49999997 trap.
TEST(QuantizeV2Avx2, RoundingAroundTies) {
  QRT_REQUIRE_AVX2();
  std::vector<float> x;
  for (int k = -300; k <= 300; ++k) {
    const float h = k * 0.5f;
    x.push_back(h);
    x.push_back(std::nextafter(h, 1e9f));
    x.push_back(std::nextafter(h, -1e9f));
  }
  x.push_back(0.49999997f);
  x.push_back(-0.49999997f);
  x.push_back(8388607.5f);
  x.push_back(-8388607.5f);
  const Dims d = {static_cast<int64_t>(x.size())};
  for (DataType t : {DataType::kInt8, DataType::kUInt8}) {
    for (Mode m : {Mode::kMinCombined, Mode::kMinFirst, Mode::kScaled}) {
      for (Round rm : {Round::kHalfAwayFromZero, Round::kHalfToEven}) {
        if (rm == Round::kHalfToEven && m != Mode::kScaled) continue;
        const auto a = Attrs(t, m, rm);
        for (auto [lo, hi] : {std::pair<float, float>{-128, 127}, {0, 255}, {-127, 127}, {-1, 1}}) {
          auto r = Q(a, d, x, {lo}, {hi}, {}, Isa::kScalar).value();
          auto v = Q(a, d, x, {lo}, {hi}, {}, kIsaAuto).value();
          for (size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(r.q[i], v.q[i]) << DataTypeName(t) << " mode " << static_cast<int>(m) << " x " << x[i];
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace qrt
