// Reference LayerNormalization row (layer_norm.h): the MLAS order, one element at a time.
#include <cmath>

#include "ops/kernels/norm/layer_norm.h"

namespace qrt::ref {

double LayerNormMeanTail(int64_t n, const float* x, double sum) {
  for (int64_t i = n / 4 * 4; i < n; ++i) sum += double(x[i]);
  return sum;
}

float LayerNormVarianceTail(int64_t n, const float* x, float mean, float var) {
  int64_t t = n / 8 * 8;
  if (n - t >= 4) {  // four unfused steps first (a 4-wide vectorized loop summing in order)
    for (const int64_t end = t + 4; t < end; ++t) {
      const float d = x[t] - mean;
      var = var + d * d;
    }
  }
  for (; t < n; ++t) {
    const float d = x[t] - mean;
    var = std::fma(d, d, var);
  }
  return var;
}

void LayerNormRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                  float* mean_out, float* inv_out) {
  double lanes[4] = {0, 0, 0, 0};
  const int64_t groups4 = n / 4 * 4;
  for (int64_t i = 0; i < groups4; ++i) lanes[i % 4] += double(x[i]);
  const double sum = LayerNormMeanTail(n, x, (lanes[0] + lanes[2]) + (lanes[1] + lanes[3]));
  const float mean = float(sum / double(n));

  float v8[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t groups8 = n / 8 * 8;
  for (int64_t i = 0; i < groups8; ++i) {
    const float d = x[i] - mean;
    v8[i % 8] = std::fma(d, d, v8[i % 8]);
  }
  float v4[4];
  for (int k = 0; k < 4; ++k) v4[k] = v8[k] + v8[k + 4];
  const float var = LayerNormVarianceTail(n, x, mean, (v4[0] + v4[2]) + (v4[1] + v4[3]));
  const float inv = 1.0f / std::sqrt(var / float(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) y[i] = std::fma((x[i] - mean) * inv, scale[i], bias ? bias[i] : 0.f);
  *mean_out = mean;
  *inv_out = inv;
}

void LayerNormShortRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                       float* mean_out, float* inv_out) {
  float mean = 0, m2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float d = x[i] - mean;
    mean = mean + d / float(i + 1);
    m2 = m2 + d * (x[i] - mean);
  }
  const float den = std::sqrt(m2 / float(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    const float v = ((x[i] - mean) / den) * scale[i];
    y[i] = bias ? v + bias[i] : v;
  }
  *mean_out = mean;
  *inv_out = 1.0f / den;
}

void LayerNormShortRows(int64_t rows, int64_t n, const float* x, const float* scale, const float* bias, float epsilon,
                        float* y, float* mean, float* inv_std_dev) {
  for (int64_t r = 0; r < rows; ++r) {
    float m, inv;
    LayerNormShortRow(n, x + r * n, scale, bias, epsilon, y + r * n, &m, &inv);
    if (mean != nullptr) mean[r] = m;
    if (inv_std_dev != nullptr) inv_std_dev[r] = inv;
  }
}

void EmbedLayerNormRow(int64_t n, float* x, const float* scale, const float* bias, float epsilon, float* y) {
  float sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += x[i];
  const float mean = sum / float(n);
  float squares = 0;
  for (int64_t i = 0; i < n; ++i) {
    x[i] = x[i] - mean;
    squares += x[i] * x[i];
  }
  const float den = std::sqrt(squares / float(n) + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i] / den * scale[i];
    y[i] = bias ? v + bias[i] : v;
  }
}

}  // namespace qrt::ref
