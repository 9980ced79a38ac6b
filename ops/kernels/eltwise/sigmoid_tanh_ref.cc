// Reference Sigmoid / Tanh (sigmoid_tanh.h): one element at a time, std::fma for each fused
// step. The specification; never optimized.
#include <algorithm>
#include <cmath>

#include "ops/kernels/eltwise/sigmoid_tanh.h"

namespace qrt {
namespace ref {
namespace {

using namespace sigmoid_tanh;

// c[0] s^(n-1) + ... by Horner's rule, one fused multiply-add per step.
template <int N>
float Horner(float s, const float (&c)[N]) {
  float p = std::fma(s, c[0], c[1]);
  for (int i = 2; i < N; ++i) p = std::fma(s, p, c[i]);
  return p;
}

float SigmoidOne(float x) {
  if (std::isnan(x)) return x;
  const float v = std::min(std::max(x, -18.f), 18.f);
  const float s = v * v;
  const float p = v * Horner(s, kSigmoidA);
  const float q = Horner(s, kSigmoidB);
  const float r = p / q + 0.5f;
  return r > 0.f ? r : 0.f;  // maxps(r, 0)
}

float TanhOne(float x) {
  if (std::isnan(x)) return x;
  const float v = std::min(std::max(x, -9.f), 9.f);
  const float s = v * v;
  return (v * Horner(s, kTanhA)) / Horner(s, kTanhB);
}

}  // namespace

void Sigmoid(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = SigmoidOne(x[i]);
}

void Tanh(int64_t n, const float* x, float* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = TanhOne(x[i]);
}

}  // namespace ref

}  // namespace qrt
