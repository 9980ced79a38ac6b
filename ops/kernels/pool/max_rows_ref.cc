#include <cmath>

#include "ops/kernels/pool/max_rows.h"

namespace qrt {

namespace ref {
void MaxRows(int64_t k, const float* const* rows, int64_t n, float* y) {
  for (int64_t j = 0; j < n; ++j) {
    float best = rows[0][j];
    for (int64_t t = 1; t < k; ++t) {
      const float v = rows[t][j];
      if (v > best || (std::isnan(v) && !std::isnan(best))) best = v;
    }
    y[j] = best;
  }
}
}  // namespace ref

}  // namespace qrt
