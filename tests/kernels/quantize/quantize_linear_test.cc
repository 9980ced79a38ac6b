// QuantizeLinear / DequantizeLinear kernels: the reference against the ONNX formula
// evaluated independently, and AVX2 against the reference, bit for bit.
#include "ops/kernels/quantize/quantize_linear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace qrt {
namespace {

// Inputs full of traps: exact ties at .5 for scale 1 and 0.5, saturation, NaN, infinities,
// signed zeros, denormals, huge values, and ordinary random values.
std::vector<float> TrapInputs(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-300.f, 300.f);
  const float traps[] = {0.5f,
                         1.5f,
                         2.5f,
                         -0.5f,
                         -1.5f,
                         -2.5f,
                         127.5f,
                         128.5f,
                         -128.5f,
                         254.5f,
                         255.5f,
                         0.f,
                         -0.f,
                         1e-45f,
                         -1e-45f,
                         1e30f,
                         -1e30f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(),
                         16777217.f,
                         -16777216.f,
                         0.49999997f};
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = (i % 3 == 0) ? traps[(i / 3) % (sizeof(traps) / sizeof(float))] : u(rng);
  return x;
}

// The SIMD quantizer families this CPU runs.
struct QuantFamily {
  const char* name;
  QuantizeF32Fn q_u8, q_s8;
  QuantizeDequantizeF32Fn qdq_u8, qdq_s8;
};

std::vector<QuantFamily> SimdFamilies() {
  std::vector<QuantFamily> f;
  if (DetectCpuFeatures().avx2) {
    f.push_back(
        {"avx2", avx2::QuantizeF32ToU8, avx2::QuantizeF32ToS8, avx2::QuantizeDequantizeU8, avx2::QuantizeDequantizeS8});
  }
  if (DetectCpuFeatures().avx512) {
    f.push_back({"avx512", avx512::QuantizeF32ToU8, avx512::QuantizeF32ToS8, avx512::QuantizeDequantizeU8,
                 avx512::QuantizeDequantizeS8});
  }
  return f;
}

// memcmp for possibly empty buffers (an empty vector's data() may be null).
bool SameBytes(const void* a, const void* b, size_t n) { return n == 0 || std::memcmp(a, b, n) == 0; }

template <class T>
T OnnxQuantize(float x, float scale, int32_t zp) {
  double r = std::nearbyint(x / scale);  // the f32 quotient, rounded to even
  const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  if (std::isnan(r)) return T(lo);  // ONNX Runtime's clamp gives NaN the lowest code
  r += zp;
  return T(r < lo ? lo : (r > hi ? hi : r));
}

template <class T>
void CheckQuantizeRef(QuantizeF32Fn fn, int32_t zp) {
  for (float scale : {1.f, 0.5f, 0.037f, 3.f}) {
    std::vector<float> x = TrapInputs(1000, 7);
    std::vector<T> y(x.size());
    fn(int64_t(x.size()), x.data(), scale, zp, y.data());
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(int(y[i]), int(OnnxQuantize<T>(x[i], scale, zp))) << "x=" << x[i] << " scale=" << scale << " zp=" << zp;
    }
  }
}

TEST(QuantizeLinearKernel, ReferenceIsTheOnnxFormula) {
  CheckQuantizeRef<uint8_t>(ref::QuantizeF32ToU8, 0);
  CheckQuantizeRef<uint8_t>(ref::QuantizeF32ToU8, 255);
  CheckQuantizeRef<int8_t>(ref::QuantizeF32ToS8, -128);
  CheckQuantizeRef<int8_t>(ref::QuantizeF32ToS8, 127);
  CheckQuantizeRef<uint16_t>(ref::QuantizeF32ToU16, 65535);
  CheckQuantizeRef<int16_t>(ref::QuantizeF32ToS16, -32768);
  // Rounding happens before the zero point: 2.5 -> 2, + 1 = 3 (not rint(3.5) = 4).
  float x = 2.5f;
  int8_t y;
  ref::QuantizeF32ToS8(1, &x, 1.f, 1, &y);
  EXPECT_EQ(y, 3);
}

TEST(QuantizeLinearKernel, DequantizeReference) {
  const uint8_t u[] = {0, 1, 128, 255};
  float y[4];
  ref::DequantizeU8ToF32(4, u, 0.5f, 128, y);
  EXPECT_EQ(y[0], -64.f);
  EXPECT_EQ(y[2], 0.f);
  EXPECT_EQ(y[3], 63.5f);
  const int8_t s[] = {-128, 127};
  ref::DequantizeS8ToF32(2, s, 0.1f, -3, y);
  EXPECT_EQ(y[0], (-128.f + 3.f) * 0.1f);
  EXPECT_EQ(y[1], (127.f + 3.f) * 0.1f);
}

TEST(QuantizeLinearKernel, SimdMatchesReferenceBitForBit) {
  if (!DetectCpuFeatures().avx2) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(11);
  for (int64_t n = 0; n <= 257; ++n) {
    const size_t m = static_cast<size_t>(n);
    for (float scale : {1.f, 0.5f, 0.0173f, 7.f}) {
      std::vector<float> x = TrapInputs(m + 1000, uint32_t(n));
      x.resize(m);
      for (int32_t zp : {0, 3, 128, 255}) {
        std::vector<uint8_t> a(m + 1), b(m + 1);
        for (const QuantFamily& f : SimdFamilies()) {
          ref::QuantizeF32ToU8(n, x.data(), scale, zp, a.data());
          f.q_u8(n, x.data(), scale, zp, b.data());
          ASSERT_TRUE(SameBytes(a.data(), b.data(), m))
              << f.name << " u8 n=" << n << " scale=" << scale << " zp=" << zp;
          ref::QuantizeF32ToS8(n, x.data(), scale, zp - 128, a.data());
          f.q_s8(n, x.data(), scale, zp - 128, b.data());
          ASSERT_TRUE(SameBytes(a.data(), b.data(), m)) << f.name << " s8 n=" << n << " scale=" << scale;
        }

        std::vector<uint8_t> q(m);
        for (auto& v : q) v = uint8_t(rng());
        std::vector<float> fa(m), fb(m);
        ref::DequantizeU8ToF32(n, q.data(), scale, zp, fa.data());
        avx2::DequantizeU8ToF32(n, q.data(), scale, zp, fb.data());
        ASSERT_TRUE(SameBytes(fa.data(), fb.data(), m * 4)) << "dq u8 n=" << n;
        ref::DequantizeS8ToF32(n, q.data(), scale, zp - 128, fa.data());
        avx2::DequantizeS8ToF32(n, q.data(), scale, zp - 128, fb.data());
        ASSERT_TRUE(SameBytes(fa.data(), fb.data(), m * 4)) << "dq s8 n=" << n;
      }
    }
  }
}

// The SIMD quantizers divide only where they must: x / s near a half-integer, where the
// product x * fl(1/s) can round to the other side. Inputs a few ulps around (k + 0.5) * s
// for many scales: a plain multiply gets some of them wrong (counted, so the test is known to
// reach the hazard); the kernels get none wrong. Scales where 1/s is not normal (and zero,
// infinite, NaN, negative ones) take the division throughout.
TEST(QuantizeLinearKernel, SimdDivisionFreeQuotientNearHalfIntegers) {
  if (!DetectCpuFeatures().avx2) GTEST_SKIP() << "no AVX2";
  std::mt19937 rng(2026);
  std::uniform_real_distribution<float> exponent(-20.f, 10.f);
  std::vector<float> scales = {
      1e-45f, 1e-40f, 0.f, -0.f, 3e38f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
      -0.37f, -1e-3f};
  for (int i = 0; i < 400; ++i) scales.push_back(std::exp2(exponent(rng)));
  int64_t multiply_wrong = 0;
  for (float scale : scales) {
    std::vector<float> x;
    // Up to |x/s| ~ 3000, far into saturation; and every k near the clamp bounds lo - zp and
    // hi - zp of the zero points below, where the kernels clamp the quotient before rounding.
    std::vector<int> ks;
    for (int k = -3000; k <= 3000; k += (k > -20 && k < 20) || (k > 2000 && k < 2100) ? 1 : 37) ks.push_back(k);
    for (int edge : {-255, -77, 0, 178, 255}) {
      for (int k = edge - 3; k <= edge + 3; ++k) ks.push_back(k);
    }
    for (int k : ks) {
      const float half = float(k + 0.5) * scale;  // fl: within an ulp of the true half
      float lo = half, hi = half;
      for (int u = 0; u < 4; ++u) {
        x.push_back(lo), x.push_back(hi);
        lo = std::nextafter(lo, -INFINITY), hi = std::nextafter(hi, INFINITY);
      }
    }
    const float inverse = 1.0f / scale;
    for (float v : x) multiply_wrong += std::nearbyint(v / scale) != std::nearbyint(v * inverse);
    const int64_t n = int64_t(x.size());
    for (int32_t zp : {0, 77, 255}) {
      for (const QuantFamily& f : SimdFamilies()) {
        std::vector<uint8_t> a(x.size()), b(x.size());
        ref::QuantizeF32ToU8(n, x.data(), scale, zp, a.data());
        f.q_u8(n, x.data(), scale, zp, b.data());
        ASSERT_TRUE(SameBytes(a.data(), b.data(), a.size())) << f.name << " u8 scale " << scale << " zp " << zp;
        ref::QuantizeF32ToS8(n, x.data(), scale, zp - 128, a.data());
        f.q_s8(n, x.data(), scale, zp - 128, b.data());
        ASSERT_TRUE(SameBytes(a.data(), b.data(), a.size())) << f.name << " s8 scale " << scale << " zp " << zp;
        std::vector<float> fa(x.size()), fb(x.size());
        ref::QuantizeDequantizeU8(n, x.data(), scale, zp, fa.data());
        f.qdq_u8(n, x.data(), scale, zp, fb.data());
        ASSERT_TRUE(SameBytes(fa.data(), fb.data(), fa.size() * 4)) << f.name << " qdq u8 scale " << scale;
        ref::QuantizeDequantizeS8(n, x.data(), scale, zp - 128, fa.data());
        f.qdq_s8(n, x.data(), scale, zp - 128, fb.data());
        ASSERT_TRUE(SameBytes(fa.data(), fb.data(), fa.size() * 4)) << f.name << " qdq s8 scale " << scale;
      }
    }
  }
  EXPECT_GT(multiply_wrong, 100) << "the inputs no longer reach the multiply's rounding hazard";
}

// QuantizeDequantize is the pair: the reference equals QuantizeLinear then DequantizeLinear
// (written out here), and the SIMD kernels equal the reference on trap inputs, for every size
// class.
TEST(QuantizeLinearKernel, QuantizeDequantizeIsThePair) {
  for (int64_t n : {0, 1, 7, 8, 9, 31, 256, 300, 1001}) {
    const size_t m = static_cast<size_t>(n);
    const std::vector<float> x = TrapInputs(m, uint32_t(n) + 5);
    for (float scale : {1.f, 0.5f, 0.0173f, 7.f, -0.25f}) {
      for (int32_t zp : {0, 3, 128, 255}) {
        std::vector<uint8_t> q(m);
        std::vector<float> pair(m), fused(m), simd(m);
        ref::QuantizeF32ToU8(n, x.data(), scale, zp, q.data());
        ref::DequantizeU8ToF32(n, q.data(), scale, zp, pair.data());
        ref::QuantizeDequantizeU8(n, x.data(), scale, zp, fused.data());
        ASSERT_TRUE(SameBytes(pair.data(), fused.data(), m * 4)) << "u8 n=" << n << " scale=" << scale;
        ref::QuantizeF32ToS8(n, x.data(), scale, zp - 128, q.data());
        ref::DequantizeS8ToF32(n, q.data(), scale, zp - 128, pair.data());
        ref::QuantizeDequantizeS8(n, x.data(), scale, zp - 128, fused.data());
        ASSERT_TRUE(SameBytes(pair.data(), fused.data(), m * 4)) << "s8 n=" << n << " scale=" << scale;
        for (const QuantFamily& f : SimdFamilies()) {
          ref::QuantizeDequantizeS8(n, x.data(), scale, zp - 128, fused.data());
          f.qdq_s8(n, x.data(), scale, zp - 128, simd.data());
          ASSERT_TRUE(SameBytes(fused.data(), simd.data(), m * 4)) << f.name << " s8 n=" << n << " scale=" << scale;
          ref::QuantizeDequantizeU8(n, x.data(), scale, zp, fused.data());
          f.qdq_u8(n, x.data(), scale, zp, simd.data());
          ASSERT_TRUE(SameBytes(fused.data(), simd.data(), m * 4)) << f.name << " u8 n=" << n << " scale=" << scale;
        }
      }
    }
  }
}

TEST(QuantizeLinearKernel, SelectorsHonourTheIsa) {
  EXPECT_EQ(SelectQuantizeF32(DataType::kUInt8, Isa::kScalar), &ref::QuantizeF32ToU8);
  EXPECT_EQ(SelectDequantizeToF32(DataType::kInt8, Isa::kScalar), &ref::DequantizeS8ToF32);
  for (Isa isa : TiersThisCpuHas()) {
    const bool avx512 = CanUseAvx512(isa), avx2 = CanUseAvx2(isa);
    EXPECT_EQ(SelectQuantizeF32(DataType::kInt8, isa), avx512 ? &avx512::QuantizeF32ToS8
                                                       : avx2 ? &avx2::QuantizeF32ToS8
                                                              : &ref::QuantizeF32ToS8)
        << IsaName(isa);
    EXPECT_EQ(SelectQuantizeF32(DataType::kInt32, isa), nullptr);
    EXPECT_EQ(SelectQuantizeDequantizeF32(DataType::kUInt8, isa), avx512 ? &avx512::QuantizeDequantizeU8
                                                                  : avx2 ? &avx2::QuantizeDequantizeU8
                                                                         : &ref::QuantizeDequantizeU8)
        << IsaName(isa);
  }
  EXPECT_EQ(SelectQuantizeDequantizeF32(DataType::kInt8, Isa::kScalar), &ref::QuantizeDequantizeS8);
  EXPECT_EQ(SelectQuantizeDequantizeF32(DataType::kInt16, kIsaAuto), nullptr);
}

}  // namespace
}  // namespace qrt
