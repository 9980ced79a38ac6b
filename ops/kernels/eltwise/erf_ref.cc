// Reference Erf and GELU (erf.h), one element at a time; every fused step is std::fma.
#include <cmath>

#include "ops/kernels/eltwise/erf.h"
#include "runtime/half.h"

namespace qrt::ref {
namespace {

using namespace mlas_erf;

inline float F(uint32_t bits) { return BitsToFloat(bits); }
inline uint32_t B(float f) { return FloatBits(f); }

}  // namespace

float ErfOne(float x) {
  const uint32_t sign = B(x) & 0x80000000u;
  float a = F(B(x) & 0x7fffffffu);
  a = F(kUpperAbs) < a ? F(kUpperAbs) : a;  // as MINPS(3.925, a): a NaN a stays
  const bool big = a > F(kSplit);
  const float s = a * a;
  float p = F(kSmall[0]);
  for (int i = 1; i < 6; ++i) p = std::fma(p, s, F(kSmall[i]));
  const float small = std::fma(p, a, a);

  const float b = big ? a : 0.f;
  float q = F(kBig[0]);
  for (int i = 1; i < 7; ++i) q = std::fma(q, b, F(kBig[i]));
  q = std::fma(q, b, b);
  float t = F(B(q) ^ 0x80000000u);
  t = t > F(kExpLow) ? t : F(kExpLow);
  const float n = std::fma(F(kLog2e), t, F(kShifter)) - F(kShifter);
  float f = std::fma(n, F(kLn2Hi), t);
  f = std::fma(n, F(kLn2Lo), f);
  float e = F(kExp[0]);
  for (int i = 1; i < 5; ++i) e = std::fma(e, f, F(kExp[i]));
  e = std::fma(e, f, 1.f);
  e = std::fma(e, f, 1.f);
  const float pow2 = F(uint32_t(int32_t(n) + 127) << 23);  // n is an integer in [-127, 0]
  const float big_result = 1.f - e * pow2;
  return F(B(big_result) | (big ? 0u : B(small)) | sign);
}

void Erf(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = ErfOne(x[i]);
}

void GeluErf(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = (0.5f * v) * (ErfOne(v * F(kInvSqrt2)) + 1.f);
  }
}

}  // namespace qrt::ref
