#include "ops/kernels/quantize/fake_quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "runtime/half.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;
using ::qrt::testing::FirstDiff;
using ::qrt::testing::TestSeed;

struct T32 {
  Dims dims;
  std::vector<float> v;
};
T32 S(float v) { return {{}, {v}}; }

StatusOr<std::vector<float>> Fq(int64_t levels, const T32& x, const T32& il, const T32& ih, const T32& ol,
                                const T32& oh, AutoBroadcast mode = AutoBroadcast::kNumpy, int64_t axis = -1,
                                Isa isa = Isa::kScalar) {
  FakeQuantizeAttrs attrs{levels, mode, axis};
  auto d = [](const T32& t) { return TensorDesc{DataType::kFloat32, t.dims}; };
  QRT_ASSIGN_OR_RETURN(FakeQuantizePlan plan, PrepareFakeQuantize(attrs, d(x), d(il), d(ih), d(ol), d(oh), isa));
  std::vector<float> y(x.v.size() + 1, -12345.0f);
  QRT_RETURN_IF_ERROR(RunFakeQuantize(plan, x.v.data(), il.v.data(), ih.v.data(), ol.v.data(), oh.v.data(), y.data()));
  EXPECT_EQ(y.back(), -12345.0f) << "wrote past the end";
  y.pop_back();
  return y;
}

float Fq1(int64_t levels, float x, float il, float ih, float ol, float oh) {
  return Fq(levels, S(x), S(il), S(ih), S(ol), S(oh)).value()[0];
}

TEST(FakeQuantize, LevelIndexTiesRoundToEven) {
  // levels=5, input and output range [0, 8]: index 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4.
  EXPECT_EQ(Fq1(5, 1, 0, 8, 0, 8), 0.0f);
  EXPECT_EQ(Fq1(5, 3, 0, 8, 0, 8), 4.0f);
  EXPECT_EQ(Fq1(5, 5, 0, 8, 0, 8), 4.0f);
  EXPECT_EQ(Fq1(5, 7, 0, 8, 0, 8), 8.0f);
}

TEST(FakeQuantize, OpOrderDividesByLThenMultiplies) {
  // levels=4, in [0,3], out [0,0.9], x=1: 0.33333334f * 0.9f = 0.300000012 (not 0.299999982).
  const float y = Fq1(4, 1, 0, 3, 0, 0.9f);
  EXPECT_EQ(Bits(y), Bits(0.300000012f));
  EXPECT_NE(Bits(y), Bits(0.299999982f));
  // The FMA example of section 0: exact sequence gives 0, a contracted fma 2.98e-8.
  EXPECT_EQ(Bits(Fq1(4, 2, 0, 3, -1, 0.5f)), Bits(0.0f));
}

TEST(FakeQuantize, TopLevelIsComputedNotShortCut) {
  // Output range [-2, 0.1]: x == in_high goes through the formula -> 0.0999999046,
  // x > in_high returns out_high itself.
  EXPECT_EQ(Bits(Fq1(256, 1.0f, 0, 1, -2, 0.1f)), Bits(0.0999999046f));
  EXPECT_EQ(Bits(Fq1(256, 0.9999f, 0, 1, -2, 0.1f)), Bits(0.0999999046f));
  EXPECT_EQ(Bits(Fq1(256, 1.5f, 0, 1, -2, 0.1f)), Bits(0.1f));
  EXPECT_EQ(Fq1(256, 0.0f, 0, 1, -2, 0.1f), -2.0f);  // low boundary inclusive
}

TEST(FakeQuantize, EqualInputBounds) {
  EXPECT_EQ(Fq1(5, 1.0f, 1, 1, 3, 7), 3.0f);
  EXPECT_EQ(Fq1(5, 0.5f, 1, 1, 3, 7), 3.0f);
  EXPECT_EQ(Fq1(5, 1.0001f, 1, 1, 3, 7), 7.0f);
}

TEST(FakeQuantize, ReversedInputRangeTable) {
  const std::vector<float> xs = {-2, -1.6f, 0, 1.6f, 2, 2.5f};
  const std::vector<float> want = {0, 4, 2, 0, 0, 4};
  const auto y = Fq(5, {{6}, xs}, S(2), S(-2), S(0), S(4)).value();
  EXPECT_EQ(y, want);
}

TEST(FakeQuantize, ReversedOutputRangeRunsDownwards) { EXPECT_EQ(Fq1(5, 2, 0, 8, 8, 0), 6.0f); }

TEST(FakeQuantize, NanAndInfinities) {
  EXPECT_TRUE(std::isnan(Fq1(5, std::nanf(""), 0, 8, 0, 8)));
  EXPECT_EQ(Fq1(5, std::numeric_limits<float>::infinity(), 0, 8, 1, 9), 9.0f);
  EXPECT_EQ(Fq1(5, -std::numeric_limits<float>::infinity(), 0, 8, 1, 9), 1.0f);
}

TEST(FakeQuantize, LevelsTwo256And65536) {
  EXPECT_EQ(Fq1(2, 0.49f, 0, 1, 0, 1), 0.0f);
  EXPECT_EQ(Fq1(2, 0.5f, 0, 1, 0, 1), 0.0f);  // tie -> even (0)
  EXPECT_EQ(Fq1(2, 0.51f, 0, 1, 0, 1), 1.0f);
  EXPECT_EQ(Fq1(256, 127.5f, 0, 255, 0, 255), 128.0f / 255.0f * 255.0f);
  EXPECT_EQ(Fq1(256, 255.0f, 0, 255, 0, 255), 255.0f);
  // L = 256 over [0, 256] makes the index exact: ties go to even.
  EXPECT_EQ(Fq1(257, 100.5f, 0, 256, 0, 256), 100.0f);
  EXPECT_EQ(Fq1(257, 101.5f, 0, 256, 0, 256), 102.0f);
  EXPECT_EQ(Fq1(65536, 0.5f, 0, 1, 0, 1), 32768.0f / 65535.0f);
  EXPECT_EQ(Fq1(65536, 1.0f, 0, 1, -1, 1), 1.0f);
}

TEST(FakeQuantize, RejectsLevelsBelowTwo) {
  QRT_EXPECT_ERROR(Fq(1, S(1), S(0), S(1), S(0), S(1)), "levels must be at least 2");
  QRT_EXPECT_ERROR(Fq(0, S(1), S(0), S(1), S(0), S(1)), "levels must be at least 2");
  QRT_EXPECT_ERROR(Fq(-3, S(1), S(0), S(1), S(0), S(1)), "levels must be at least 2");
}

TEST(FakeQuantize, MixedShapeDefectExampleGivesCorrectBroadcast) {
  // X [3,4], in_low [1,1,4] zeros, in_high scalar 4, out_low scalar 0, out_high [1,1,1,4].
  T32 x{{3, 4}, {1, 2, 3, 4, 0, 0, 0, 0, 4, 4, 4, 4}};
  const auto y = Fq(5, x, {{1, 1, 4}, {0, 0, 0, 0}}, S(4), S(0), {{1, 1, 1, 4}, {1, 2, 3, 4}}).value();
  const std::vector<float> row0(y.begin(), y.begin() + 4);
  EXPECT_EQ(row0, (std::vector<float>{0.25f, 1.0f, 2.25f, 4.0f}));  // the reference gives 0.25,0.5,0.75,1
  EXPECT_EQ(y[4], 0.0f);
  EXPECT_EQ(y[8], 1.0f);
  EXPECT_EQ(y[11], 4.0f);
}

TEST(FakeQuantize, NumpyPerChannelRanges) {
  // X [1,2,1,3], ranges per channel [1,2,1,1].
  T32 x{{1, 2, 1, 3}, {0, 1, 2, 0, 5, 10}};
  const auto y = Fq(3, x, {{1, 2, 1, 1}, {0, 0}}, {{1, 2, 1, 1}, {2, 10}}, S(0), {{2, 1, 1}, {20, 200}}).value();
  EXPECT_EQ(y, (std::vector<float>{0, 10, 20, 0, 100, 200}));
}

TEST(FakeQuantize, NumpyRejectsRangeLargerThanX) {
  QRT_EXPECT_ERROR(Fq(5, {{3}, {1, 2, 3}}, {{2, 3}, {0, 0, 0, 0, 0, 0}}, S(4), S(0), S(4)), "larger than X");
  QRT_EXPECT_ERROR(Fq(5, {{3}, {1, 2, 3}}, {{2}, {0, 0}}, S(4), S(0), S(4)), "not broadcastable");
}

TEST(FakeQuantize, NoneRequiresIdenticalShapes) {
  T32 x{{2}, {1, 3}};
  T32 r0{{2}, {0, 0}}, r8{{2}, {8, 8}};
  EXPECT_EQ(Fq(5, x, r0, r8, r0, r8, AutoBroadcast::kNone).value(), (std::vector<float>{0, 4}));
  QRT_EXPECT_ERROR(Fq(5, x, S(0), r8, r0, r8, AutoBroadcast::kNone), "shapes are inconsistent");
  QRT_EXPECT_ERROR(Fq(5, x, {{1, 2}, {0, 0}}, r8, r0, r8, AutoBroadcast::kNone), "shapes are inconsistent");
  // Scalar X with scalar ranges is identical-shape.
  EXPECT_EQ(Fq(5, S(3), S(0), S(8), S(0), S(8), AutoBroadcast::kNone).value()[0], 4.0f);
}

TEST(FakeQuantize, PdpdPlacesRangeAtAxis) {
  // X [2,3,4], ranges [3] with axis=1: range element c applies to (n, c, w).
  T32 x{{2, 3, 4}, std::vector<float>(24, 1.0f)};
  T32 oh{{3}, {10, 20, 30}};
  const auto y = Fq(2, x, S(0), S(1), S(0), oh, AutoBroadcast::kPdpd, 1).value();
  for (int e = 0; e < 24; ++e) EXPECT_EQ(y[e], 10.0f * ((e / 4) % 3 + 1)) << e;
  // axis -1 means rank(X) - rank(range): [4] aligns with the last dim.
  T32 oh4{{4}, {1, 2, 3, 4}};
  const auto z = Fq(2, x, S(0), S(1), S(0), oh4, AutoBroadcast::kPdpd, -1).value();
  for (int e = 0; e < 24; ++e) EXPECT_EQ(z[e], float(e % 4 + 1)) << e;
  // [3,1] at axis 1 of [2,3,4].
  T32 oh31{{3, 1}, {5, 6, 7}};
  const auto w = Fq(2, x, S(0), S(1), S(0), oh31, AutoBroadcast::kPdpd, 1).value();
  for (int e = 0; e < 24; ++e) EXPECT_EQ(w[e], float(5 + (e / 4) % 3)) << e;
}

TEST(FakeQuantize, PdpdValidation) {
  T32 x{{2, 3}, std::vector<float>(6, 1.0f)};
  QRT_EXPECT_ERROR(Fq(2, x, {{1, 2, 3}, std::vector<float>(6)}, S(1), S(0), S(1), AutoBroadcast::kPdpd, -1),
                   "exceeds the rank");
  QRT_EXPECT_ERROR(Fq(2, x, S(0), S(1), S(0), S(1), AutoBroadcast::kPdpd, -2), "less than -1");
  QRT_EXPECT_ERROR(Fq(2, x, {{3}, {0, 0, 0}}, S(1), S(0), S(1), AutoBroadcast::kPdpd, 2), "does not fit");
  QRT_EXPECT_ERROR(Fq(2, x, {{3}, {0, 0, 0}}, S(1), S(0), S(1), AutoBroadcast::kPdpd, 0), "does not match");
  EXPECT_TRUE(Fq(2, x, {{2}, {0, 0}}, S(1), S(0), S(1), AutoBroadcast::kPdpd, 0).ok());
}

TEST(FakeQuantize, ParseAutoBroadcast) {
  EXPECT_EQ(ParseAutoBroadcast("numpy").value(), AutoBroadcast::kNumpy);
  EXPECT_EQ(ParseAutoBroadcast("NONE").value(), AutoBroadcast::kNone);
  EXPECT_EQ(ParseAutoBroadcast("pdpd").value(), AutoBroadcast::kPdpd);
  QRT_EXPECT_ERROR(ParseAutoBroadcast("explicit"), "unknown auto_broadcast");
}

TEST(FakeQuantize, DtypeValidation) {
  const TensorDesc f32{DataType::kFloat32, {2}}, f16{DataType::kFloat16, {2}}, i32{DataType::kInt32, {2}};
  FakeQuantizeAttrs attrs{5, AutoBroadcast::kNumpy, -1};
  QRT_EXPECT_ERROR(PrepareFakeQuantize(attrs, f32, f16, f32, f32, f32, Isa::kScalar), "differs from X dtype");
  QRT_EXPECT_ERROR(PrepareFakeQuantize(attrs, i32, i32, i32, i32, i32, Isa::kScalar), "not supported");
}

TEST(FakeQuantize, EmptyX) { EXPECT_TRUE(Fq(5, {{0, 3}, {}}, {{3}, {0, 0, 0}}, S(8), S(0), S(8)).value().empty()); }

// f16/bf16: each element is converted to f32, computed in f32 and rounded once.
template <class ToF, class FromF>
void CheckHalfType(DataType dt, ToF to_f, FromF from_f) {
  const std::vector<float> xs = {-1.0f, 0.0f, 0.3f, 1.0f, 3.0f, 5.0f, 7.77f, 8.0f, 9.0f};
  std::vector<uint16_t> x, il = {from_f(0.0f)}, ih = {from_f(8.0f)}, ol = {from_f(-0.1f)}, oh = {from_f(0.7f)};
  for (float v : xs) x.push_back(from_f(v));
  FakeQuantizeAttrs attrs{7, AutoBroadcast::kNumpy, -1};
  const Dims xd = {static_cast<int64_t>(xs.size())};
  auto plan = PrepareFakeQuantize(attrs, {dt, xd}, {dt, {}}, {dt, {}}, {dt, {}}, {dt, {}}, kIsaAuto);
  QRT_ASSERT_OK(plan.status());
  std::vector<uint16_t> y(x.size());
  QRT_ASSERT_OK(RunFakeQuantize(*plan, x.data(), il.data(), ih.data(), ol.data(), oh.data(), y.data()));
  for (size_t i = 0; i < x.size(); ++i) {
    float want;
    const float fx = to_f(x[i]), fil = to_f(il[0]), fih = to_f(ih[0]), fol = to_f(ol[0]), foh = to_f(oh[0]);
    if (fx <= fil) {
      want = fol;
    } else if (fx > fih) {
      want = foh;
    } else {
      want = std::nearbyint((fx - fil) / (fih - fil) * 6.0f) / 6.0f * (foh - fol) + fol;
    }
    EXPECT_EQ(y[i], from_f(want)) << "x=" << xs[i];
  }
  // 3 -> index 2.25 -> 2 -> 2/6*0.8 - 0.1 (f32) then one rounding.
  EXPECT_EQ(y[4], from_f(2.0f / 6.0f * (to_f(oh[0]) - to_f(ol[0])) + to_f(ol[0])));
}

TEST(FakeQuantize, Float16ComputesInF32AndRoundsOnce) { CheckHalfType(DataType::kFloat16, HalfToFloat, FloatToHalf); }
TEST(FakeQuantize, BFloat16ComputesInF32AndRoundsOnce) {
  CheckHalfType(DataType::kBFloat16, BFloat16ToFloat, FloatToBFloat16);
}

// ---- AVX2 vs reference, bit for bit -------------------------------------------------------

std::vector<float> RandomValues(std::mt19937& rng, size_t n, bool specials) {
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::uniform_int_distribution<int> pick(0, 15);
  std::vector<float> v(n);
  for (auto& f : v) {
    f = u(rng);
    const int k = pick(rng);
    if (k == 0) f = std::round(f * 4.0f) / 4.0f;  // lands on grid points and ties
    if (specials && k == 1) f = std::nanf("");
    if (specials && k == 2) f = (f < 0 ? -1 : 1) * std::numeric_limits<float>::infinity();
  }
  return v;
}

struct Pattern {
  const char* name;
  Dims x;
  Dims range;
};

TEST(FakeQuantizeAvx2, MatchesReferenceBitExact) {
  QRT_REQUIRE_AVX2();
  const uint32_t seed = TestSeed();
  std::mt19937 rng(seed);
  std::vector<Pattern> patterns;
  for (int64_t n = 0; n <= 257; ++n) patterns.push_back({"scalar ranges", {n}, {}});
  for (int64_t n : {1, 7, 8, 9, 31, 33, 100}) {
    patterns.push_back({"per-channel", {2, 3, n}, {1, 3, 1}});
    patterns.push_back({"per-element", {3, n}, {3, n}});
    patterns.push_back({"last axis", {3, n}, {n}});
  }
  patterns.push_back({"large", {100003}, {}});
  patterns.push_back({"large per-channel", {1, 5, 20011}, {1, 5, 1}});
  for (const Pattern& p : patterns) {
    for (int64_t levels : {2, 3, 5, 16, 256, 65536}) {
      const size_t nx = static_cast<size_t>(ElementCount(p.x)), nr = static_cast<size_t>(ElementCount(p.range));
      const auto x = RandomValues(rng, nx, true);
      auto il = RandomValues(rng, nr, false), ih = RandomValues(rng, nr, false);
      const auto ol = RandomValues(rng, nr, false), oh = RandomValues(rng, nr, false);
      if (nr && levels == 16) ih[0] = il[0];  // equal bounds
      // Varying which range operand is per-element: make some of them scalar.
      std::vector<std::vector<float>> r = {il, ih, ol, oh};
      std::vector<Dims> rd(4, p.range);
      if (levels == 3) {
        rd[1] = {};
        r[1].resize(1);
        rd[2] = {};
        r[2].resize(1);
      }
      FakeQuantizeAttrs attrs{levels, AutoBroadcast::kNumpy, -1};
      auto desc = [](const Dims& d) { return TensorDesc{DataType::kFloat32, d}; };
      auto ref =
          PrepareFakeQuantize(attrs, desc(p.x), desc(rd[0]), desc(rd[1]), desc(rd[2]), desc(rd[3]), Isa::kScalar);
      auto vec = PrepareFakeQuantize(attrs, desc(p.x), desc(rd[0]), desc(rd[1]), desc(rd[2]), desc(rd[3]), kIsaAuto);
      QRT_ASSERT_OK(ref.status());
      QRT_ASSERT_OK(vec.status());
      std::vector<float> y_ref(nx), y_vec(nx), y_inplace = x;
      QRT_ASSERT_OK(RunFakeQuantize(*ref, x.data(), r[0].data(), r[1].data(), r[2].data(), r[3].data(), y_ref.data()));
      QRT_ASSERT_OK(RunFakeQuantize(*vec, x.data(), r[0].data(), r[1].data(), r[2].data(), r[3].data(), y_vec.data()));
      QRT_ASSERT_OK(RunFakeQuantize(*vec, y_inplace.data(), r[0].data(), r[1].data(), r[2].data(), r[3].data(),
                                    y_inplace.data()));
      const int64_t d1 = FirstDiff(y_ref.data(), y_vec.data(), nx * 4, true);
      const int64_t d2 = FirstDiff(y_ref.data(), y_inplace.data(), nx * 4, true);
      ASSERT_EQ(d1, -1) << "seed " << seed << " pattern " << p.name << " x " << DimsToString(p.x) << " levels "
                        << levels << " at " << d1 << ": x=" << x[d1] << " ref=" << y_ref[d1] << " avx2=" << y_vec[d1];
      ASSERT_EQ(d2, -1) << "in-place, seed " << seed << " pattern " << p.name << " levels " << levels;
    }
  }
}

}  // namespace
}  // namespace qrt
