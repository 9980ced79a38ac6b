// Reference LayerNormalization row (layer_norm.h): the MLAS order, one element at a time.
#include <cmath>

#include "ops/kernels/norm/layer_norm.h"

namespace qrt::ref {

void LayerNormRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                  float* mean_out, float* inv_out) {
  double lanes[4] = {0, 0, 0, 0};
  const int64_t groups4 = n / 4 * 4;
  for (int64_t i = 0; i < groups4; ++i) lanes[i % 4] += double(x[i]);
  double sum = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]);
  for (int64_t i = groups4; i < n; ++i) sum += double(x[i]);
  const float mean = float(sum / double(n));

  float v8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t groups8 = n / 8 * 8;
  for (int64_t i = 0; i < groups8; ++i) {
    const float d = x[i] - mean;
    v8[i % 8] = std::fma(d, d, v8[i % 8]);
  }
  float v4[4];
  for (int k = 0; k < 4; ++k) v4[k] = v8[k] + v8[k + 4];
  float var = (v4[0] + v4[2]) + (v4[1] + v4[3]);
  for (int64_t i = groups8; i < n; ++i) {
    const float d = x[i] - mean;
    var = std::fma(d, d, var);
  }
  const float inv = 1.0f / std::sqrt(var / float(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) y[i] = std::fma((x[i] - mean) * inv, scale[i], bias ? bias[i] : 0.f);
  *mean_out = mean;
  *inv_out = inv;
}

}  // namespace qrt::ref
