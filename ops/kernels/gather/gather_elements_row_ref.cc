// Reference GatherElements row (gather_elements_row.h).
#include "ops/kernels/gather/gather_elements_row.h"

namespace qrt::ref {

int64_t GatherRow32(const uint32_t* x, int64_t base, int64_t stride, int64_t step, int64_t axis_len, const int64_t* idx,
                    int64_t width, uint32_t* out) {
  for (int64_t j = 0; j < width; ++j) {
    int64_t k = idx[j];
    if (k < -axis_len || k >= axis_len) return j;
    if (k < 0) k += axis_len;
    out[j] = x[base + k * stride + j * step];
  }
  return -1;
}

}  // namespace qrt::ref
