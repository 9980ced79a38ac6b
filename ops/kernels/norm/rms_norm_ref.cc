// Reference RMS normalization rows (rms_norm.h), one element at a time.
#include <cmath>

#include "ops/kernels/norm/layer_norm.h"
#include "ops/kernels/norm/rms_norm.h"
#include "runtime/kernel_isa.h"

namespace qrt {
namespace ref {

void RmsNormRow(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv_out) {
  float v8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t groups8 = n / 8 * 8;
  for (int64_t i = 0; i < groups8; ++i) v8[i % 8] = std::fma(x[i], x[i], v8[i % 8]);
  float v4[4];
  for (int k = 0; k < 4; ++k) v4[k] = v8[k] + v8[k + 4];
  // x - 0.f is x, so LayerNorm's variance tail with mean 0 is the sum of squares' tail.
  const float s = LayerNormVarianceTail(n, x, 0.f, (v4[0] + v4[2]) + (v4[1] + v4[3]));
  const float inv = 1.0f / std::sqrt(s / float(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] * inv) * scale[i];
  *inv_out = inv;
}

void RmsNormPlainRow(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv_out) {
  float s = 0.f;
  for (int64_t i = 0; i < n; ++i) s = s + x[i] * x[i];
  const float rms = std::sqrt(s / float(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) y[i] = (x[i] / rms) * scale[i];
  *inv_out = 1.0f / rms;
}

}  // namespace ref

RmsNormRowFn SelectRmsNormRow(Isa isa, int64_t n) {
  if (n < ref::kRmsNormMinRow) return ref::RmsNormPlainRow;
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::RmsNormRow) : ref::RmsNormRow;
}

}  // namespace qrt
