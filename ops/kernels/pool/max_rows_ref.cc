#include <algorithm>
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

void MaxRowsBytes(int64_t k, const uint8_t* const* rows, int64_t n, bool is_signed, uint8_t* y) {
  for (int64_t j = 0; j < n; ++j) {
    if (is_signed) {
      int8_t best = int8_t(rows[0][j]);
      for (int64_t t = 1; t < k; ++t) best = std::max(best, int8_t(rows[t][j]));
      y[j] = uint8_t(best);
    } else {
      uint8_t best = rows[0][j];
      for (int64_t t = 1; t < k; ++t) best = std::max(best, rows[t][j]);
      y[j] = best;
    }
  }
}
}  // namespace ref

}  // namespace qrt
