#include "ops/kernels/quantize/min_max.h"

namespace qrt::ref {

void RangeWithZero(int64_t n, const float* x, float* lo, float* hi) {
  float l = 0.f, h = 0.f;
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] < l) l = x[i];
    if (x[i] > h) h = x[i];
  }
  *lo = l;
  *hi = h;
}

}  // namespace qrt::ref
