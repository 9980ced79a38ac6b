// Erf on float32 as ONNX Runtime 1.30 computes it on x86-64 (MLAS's FMA3 erf kernel, which
// AVX2 and AVX-512 machines both run), and the erf form of GELU built on it:
//
//   a = min(3.925, |x|)                       (NaN stays NaN)
//   small = fma(P(a*a), a, a)                 P: five fused steps in s = a*a
//   big (a > 0.921875, else b = +0):          q = fma(Q(b), b, b), Q: six fused steps in b
//            t = max(-q, -88.3762589)
//            e^t: n = fma(log2e, t, 1.5*2^23) - 1.5*2^23   (round to nearest even)
//                 f = fma(n, -ln2_lo', fma(n, -ln2_hi', t))
//                 p = R(f): six fused steps ending in 1, 1;  2^n from the exponent bits
//            big = 1 - p * 2^n                (a multiply and a subtraction)
//   erf(x) = big | (small where a <= 0.921875) | sign(x)    (bitwise)
//   gelu(x) = (0.5f * x) * (erf(x * 0.70710677f) + 1.0f)   (each step rounded)
//
// Checked against ORT 1.30's Erf and com.microsoft Gelu on all 2^32 float32 bit patterns
// (docs/float-order.md). The constants are MLAS's (facts; erf_ref.cc).
#pragma once

#include "ops/kernels/eltwise/sigmoid_tanh.h"  // FloatMapFn
#include "runtime/cpu_features.h"

namespace qrt {

namespace ref {
float ErfOne(float x);
void Erf(int64_t n, const float* x, float* y);
void GeluErf(int64_t n, const float* x, float* y);
}  // namespace ref
namespace avx2 {  // bit-identical to ref:: (NaN: a NaN)
void Erf(int64_t n, const float* x, float* y);
void GeluErf(int64_t n, const float* x, float* y);
}  // namespace avx2

FloatMapFn SelectErf(Isa isa);
FloatMapFn SelectGeluErf(Isa isa);

namespace mlas_erf {
// float32 bit patterns.
inline constexpr uint32_t kUpperAbs = 0x407b3333u, kSplit = 0x3f6c0000u;
inline constexpr uint32_t kSmall[6] = {0xba1d0d41u, 0x3ba39fa4u, 0xbcdb45e9u,
                                       0x3de70d23u, 0xbec09370u, 0x3e0375d3u};  // P, highest first
inline constexpr uint32_t kBig[7] = {0x37911480u, 0xb9c8e966u, 0x3b7e899bu, 0xbcc6b180u,
                                     0x3ddaae58u, 0x3f228550u, 0x3e03ce86u};  // Q, highest first
inline constexpr uint32_t kExpLow = 0xc2b0c0a5u, kLog2e = 0x3fb8aa3bu, kLn2Hi = 0xbf317200u, kLn2Lo = 0xb5bfbe8eu,
                          kShifter = 0x4b400000u;
inline constexpr uint32_t kExp[5] = {0x3ab54c6du, 0x3c093965u, 0x3d2aad10u, 0x3e2aaa17u, 0x3efffffbu};  // then 1, 1
inline constexpr uint32_t kInvSqrt2 = 0x3f3504f3u;
}  // namespace mlas_erf

}  // namespace qrt
