// One float32 softmax row as ONNX Runtime computes it on x86-64 (MLAS), so that a quantizer
// after a Softmax rounds as in the reference system (docs/float-order.md):
//   m = max x;  e_i = exp~(x_i + (-m));  sum = eight lane sums (lane i % 8, in order) reduced as
//   ((s4 + s5) + (s6 + s7)) + ((s0 + s1) + (s2 + s3));  y_i = e_i * (1 / sum)
// where exp~ is MLAS's exponential: v = max(x, -88.3762626647949); k = rint(v / ln 2) found
// with a rounding bias (b = fma(v, 1/ln2, 1.5 * 2^23), k = b - 1.5 * 2^23); r = v - k ln 2 in
// two fused steps (high and low parts of ln 2); a degree-6 polynomial in r by fused Horner
// steps; times 2^k built from b's bits. A row holding NaN gives NaN everywhere.
//
// That is MLAS's AVX2 kernel. On a CPU with AVX-512F, MLAS runs another exp-and-sum kernel, and
// ONNX Runtime's results there follow it (SoftmaxRow16, checked bit for bit against ORT 1.30 on
// an AVX-512F machine): the same reduction and polynomial, but v clamped at -103.97208 (a NaN
// stays NaN), 2^k applied by a scale-by-power-of-two rounded once (subnormal results kept), and
// sixteen lane sums, lane l taking elements l, l + 16, ... (the tail masked), reduced as
// t_j = s_j + s_{j+8}, then ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)). The output step,
// y_i = e_i * (1 / sum), is the same. Rows of up to 16 elements differ only in outputs below
// 2^-126; longer rows regroup the sum.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using SoftmaxRowFn = void (*)(int64_t n, const float* x, float* y);
// MLAS's exp-and-sum step alone: y_i = exp~(x_i + neg_max), returns their lane sum (the order
// above). ORT's flash attention calls it per block of scores.
using SoftmaxSumExpFn = float (*)(int64_t n, const float* x, float neg_max, float* y);

namespace ref {
void SoftmaxRow(int64_t n, const float* x, float* y);
// LogSoftmax as MLAS computes it: the same m and lane sum, then y_i = (x_i + (-m)) - log(sum).
void LogSoftmaxRow(int64_t n, const float* x, float* y);
// MLAS's AVX-512F exp-and-sum kernel (above), for Softmax and LogSoftmax.
void SoftmaxRow16(int64_t n, const float* x, float* y);
void LogSoftmaxRow16(int64_t n, const float* x, float* y);
float SoftmaxSumExp(int64_t n, const float* x, float neg_max, float* y);
float SoftmaxSumExp16(int64_t n, const float* x, float neg_max, float* y);
}  // namespace ref
namespace avx2 {
void SoftmaxRow(int64_t n, const float* x, float* y);    // bit-identical to ref::
void SoftmaxRow16(int64_t n, const float* x, float* y);  // bit-identical to ref::, in AVX2 instructions
float SoftmaxSumExp(int64_t n, const float* x, float neg_max, float* y);
float SoftmaxSumExp16(int64_t n, const float* x, float neg_max, float* y);
}  // namespace avx2
namespace avx512 {  // the sixteen-lane order with AVX-512F, bit-identical to ref::
void SoftmaxRow16(int64_t n, const float* x, float* y);
float SoftmaxSumExp16(int64_t n, const float* x, float neg_max, float* y);
}  // namespace avx512

// Which exp-and-sum kernel ONNX Runtime's MLAS runs on the reference CPU (runtime/ort_cpu.h):
// the sixteen-lane one where it has AVX-512F. The choice does not depend on a graph's ceiling:
// every tier computes the same kernel's order, so outputs do not change with --isa.
bool MlasSoftmaxHas16Lanes();

// The row kernels for this CPU's MLAS order (MlasSoftmaxHas16Lanes), under the ceiling `isa`.
SoftmaxRowFn SelectSoftmaxRow(Isa isa);
SoftmaxRowFn SelectLogSoftmaxRow(Isa isa);
SoftmaxSumExpFn SelectSoftmaxSumExp(Isa isa);

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
// The sixteen-lane kernel's lower clamp (0xC2CFF1B5), and its scale by 2^k done exactly in float:
// p * 2^(k + 64) (exact: a normal power of two) then * 2^-64, the one rounding.
inline constexpr float kLower16 = -103.97208404541016f;
inline constexpr float kTwoToMinus64 = 0x1p-64f;
inline constexpr int32_t kExponentPlus64 = 64 << 23;

// The row's maximum; false (and y all NaN) when the row holds NaN. Shared by both kernels.
bool RowMaximum(int64_t n, const float* x, float* y, float* maximum);
}  // namespace softmax_exp

}  // namespace qrt
