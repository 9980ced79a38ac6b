// Reference TopK candidate filter (better_than.h).
#include <cmath>

#include "ops/kernels/select/better_than.h"

namespace qrt::ref {

int64_t BetterThan(const float* x, int64_t begin, int64_t end, float t, bool largest, int64_t* out) {
  int64_t count = 0;
  for (int64_t i = begin; i < end; ++i) {
    const float v = x[i];
    if (std::isnan(v) || (largest ? v > t : v < t)) out[count++] = i;
  }
  return count;
}

}  // namespace qrt::ref
