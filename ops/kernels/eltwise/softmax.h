// One float32 softmax row as ONNX Runtime computes it on x86-64 (MLAS), so that a quantizer
// after a Softmax rounds as in the reference system (docs/float-order.md):
//   m = max x;  e_i = exp~(x_i + (-m));  sum = eight lane sums (lane i % 8, in order) reduced as
//   ((s4 + s5) + (s6 + s7)) + ((s0 + s1) + (s2 + s3));  y_i = e_i * (1 / sum)
// where exp~ is MLAS's exponential: v = max(x, -88.3762626647949); k = rint(v / ln 2) found
// with a rounding bias (b = fma(v, 1/ln2, 1.5 * 2^23), k = b - 1.5 * 2^23); r = v - k ln 2 in
// two fused steps (high and low parts of ln 2); a degree-6 polynomial in r by fused Horner
// steps; times 2^k built from b's bits. A row holding NaN gives NaN everywhere.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using SoftmaxRowFn = void (*)(int64_t n, const float* x, float* y);

namespace ref {
void SoftmaxRow(int64_t n, const float* x, float* y);
// LogSoftmax as MLAS computes it: the same m and lane sum, then y_i = (x_i + (-m)) - log(sum).
void LogSoftmaxRow(int64_t n, const float* x, float* y);
}  // namespace ref
namespace avx2 {
void SoftmaxRow(int64_t n, const float* x, float* y);  // bit-identical to ref::
}  // namespace avx2

SoftmaxRowFn SelectSoftmaxRow(Isa isa);

namespace softmax_exp {
// MLAS's constants (facts): the lower clamp, 1/ln 2, the rounding bias 1.5 * 2^23, ln 2 in
// two parts, and the polynomial's coefficients, highest degree first.
inline constexpr float kLower = -88.3762626647949f;
inline constexpr float kLog2Reciprocal = 1.44269504088896341f;
inline constexpr float kRoundingBias = 12582912.f;
inline constexpr float kLog2High = -6.93145752e-1f;
inline constexpr float kLog2Low = -1.42860677e-6f;
inline constexpr float kPoly[7] = {
    0x1.694000p-10f, 0x1.125edcp-7f, 0x1.555b5ap-5f, 0x1.555450p-3f, 0x1.fffff6p-2f, 1.f, 1.f};
inline constexpr int32_t kExponentOne = 0x3F800000;

// The row's maximum; false (and y all NaN) when the row holds NaN. Shared by both kernels.
bool RowMaximum(int64_t n, const float* x, float* y, float* maximum);
}  // namespace softmax_exp

}  // namespace qrt
