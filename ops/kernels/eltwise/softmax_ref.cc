// Reference softmax row (softmax.h): the specification, one element at a time.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/kernels/eltwise/softmax.h"

namespace qrt {
namespace ref {
namespace {

using namespace softmax_exp;

float Exp(float v) {
  float x = v > kLower ? v : kLower;  // maxps(v, lower): NaN gives the lower bound
  const float biased = std::fma(x, kLog2Reciprocal, kRoundingBias);
  const float k = biased - kRoundingBias;
  x = std::fma(k, kLog2High, x);
  x = std::fma(k, kLog2Low, x);
  float p = std::fma(kPoly[0], x, kPoly[1]);
  for (int i = 2; i < 7; ++i) p = std::fma(p, x, kPoly[i]);
  int32_t bits;
  std::memcpy(&bits, &biased, 4);
  // 2^k: k sits in the low mantissa bits of the biased value; shifted into the exponent
  // field and added to 1.0's bits (two's complement wrap, as the integer vector add does).
  const int32_t scale_bits = int32_t(uint32_t(bits) << 23) + kExponentOne;
  float scale;
  std::memcpy(&scale, &scale_bits, 4);
  return p * scale;
}

// The sixteen-lane kernel's exponential: the same steps, another clamp, and 2^k applied by a
// scale rounded once (softmax.h).
float Exp16(float v) {
  if (std::isnan(v)) return v;  // MAXPS(lower, v) keeps a NaN v, and the steps below keep it
  float x = kLower16 > v ? kLower16 : v;
  const float biased = std::fma(x, kLog2Reciprocal, kRoundingBias);
  const float k = biased - kRoundingBias;
  x = std::fma(k, kLog2High, x);
  x = std::fma(k, kLog2Low, x);
  float p = std::fma(kPoly[0], x, kPoly[1]);
  for (int i = 2; i < 7; ++i) p = std::fma(p, x, kPoly[i]);
  return float(p * std::ldexp(1.f, int(k) + 64)) * kTwoToMinus64;
}

}  // namespace

// sum_i exp16(neg_max + x_i) in sixteen lanes, folded to eight, reduced as the header says.
float SoftmaxSumExp16(int64_t n, const float* x, float neg_max, float* y) {
  float lane[16] = {};
  for (int64_t i = 0; i < n; ++i) {
    const float e = Exp16(x[i] + neg_max);
    if (y != nullptr) y[i] = e;
    lane[i % 16] = lane[i % 16] + e;
  }
  float t[8];
  for (int j = 0; j < 8; ++j) t[j] = lane[j] + lane[j + 8];
  return ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
}

// sum_i exp~(neg_max + x_i) in eight lanes, reduced as the header says; y_i = exp~(...) if y.
float SoftmaxSumExp(int64_t n, const float* x, float neg_max, float* y) {
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int64_t i = 0; i < n; ++i) {
    const float e = Exp(neg_max + x[i]);
    if (y != nullptr) y[i] = e;
    lane[i % 8] = lane[i % 8] + e;
  }
  const float lo = (lane[0] + lane[1]) + (lane[2] + lane[3]);
  const float hi = (lane[4] + lane[5]) + (lane[6] + lane[7]);
  return hi + lo;
}

namespace {

using SumExpFn = float (*)(int64_t n, const float* x, float neg_max, float* y);

template <SumExpFn kSumExp>
void Softmax(int64_t n, const float* x, float* y) {
  float m;
  if (!softmax_exp::RowMaximum(n, x, y, &m)) return;
  const float scale = 1.f / kSumExp(n, x, -m, y);
  for (int64_t i = 0; i < n; ++i) y[i] = y[i] * scale;
}

template <SumExpFn kSumExp>
void LogSoftmax(int64_t n, const float* x, float* y) {
  float m;
  if (!softmax_exp::RowMaximum(n, x, y, &m)) return;
  const float neg_max = -m;
  const float log_sum = std::log(kSumExp(n, x, neg_max, nullptr));
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] + neg_max) - log_sum;
}

}  // namespace

void SoftmaxRow(int64_t n, const float* x, float* y) { Softmax<SoftmaxSumExp>(n, x, y); }
void LogSoftmaxRow(int64_t n, const float* x, float* y) { LogSoftmax<SoftmaxSumExp>(n, x, y); }
void SoftmaxRow16(int64_t n, const float* x, float* y) { Softmax<SoftmaxSumExp16>(n, x, y); }
void LogSoftmaxRow16(int64_t n, const float* x, float* y) { LogSoftmax<SoftmaxSumExp16>(n, x, y); }

}  // namespace ref

bool softmax_exp::RowMaximum(int64_t n, const float* x, float* y, float* maximum) {
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) {
      for (int64_t j = 0; j < n; ++j) y[j] = std::numeric_limits<float>::quiet_NaN();
      return false;
    }
    m = std::max(m, x[i]);
  }
  *maximum = m;
  return true;
}

}  // namespace qrt
