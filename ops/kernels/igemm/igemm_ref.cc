// The reference tile of igemm.h: each output's pairs in k order, summed mod 2^32.
#include "ops/kernels/igemm/igemm.h"

namespace qrt::ref {

void IgemmTile(int64_t rows, int64_t cols, int64_t k_pairs, const int16_t* a, int64_t lda, const int16_t* b,
               int64_t panel_stride, int32_t* c, int64_t ldc, bool accumulate) {
  for (int64_t r = 0; r < rows; ++r) {
    const int16_t* ar = a + r * lda;
    for (int64_t j = 0; j < cols; ++j) {
      const int16_t* bj = b + (j / kIgemmPanel) * panel_stride + (j % kIgemmPanel) * 2;
      uint32_t s = accumulate ? uint32_t(c[r * ldc + j]) : 0u;
      for (int64_t p = 0; p < k_pairs; ++p) {
        s += uint32_t(int32_t(ar[2 * p]) * bj[p * 2 * kIgemmPanel]);
        s += uint32_t(int32_t(ar[2 * p + 1]) * bj[p * 2 * kIgemmPanel + 1]);
      }
      c[r * ldc + j] = int32_t(s);
    }
  }
}

}  // namespace qrt::ref
