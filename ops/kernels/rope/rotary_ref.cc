// Reference rotary row (rotary.h).
#include <cmath>
#include <cstring>

#include "ops/kernels/rope/rotary.h"

namespace qrt::ref {

void RotaryRow(int64_t head_size, int64_t rotary_dim, bool interleaved, const float* x, const float* cos,
               const float* sin, float* y) {
  const int64_t half = rotary_dim / 2;
  // Interleaved: MLAS's 16-wide loop, then one fused pair of its tail, then plain pairs.
  const int64_t fused_end = interleaved ? rotary_dim / 16 * 16 + 2 : rotary_dim;
  for (int64_t k = 0; k < half; ++k) {
    const int64_t r = interleaved ? 2 * k : k, i = interleaved ? 2 * k + 1 : k + half;
    const float xr = x[r], xi = x[i], c = cos[k], s = sin[k];
    if (r < fused_end) {
      y[r] = std::fma(xr, c, -(xi * s));
      y[i] = std::fma(xr, s, xi * c);
    } else {
      y[r] = xr * c - xi * s;
      y[i] = xr * s + xi * c;
    }
  }
  if (head_size > rotary_dim)
    std::memcpy(y + rotary_dim, x + rotary_dim, size_t(head_size - rotary_dim) * sizeof(float));
}

}  // namespace qrt::ref
