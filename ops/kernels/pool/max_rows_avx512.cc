// AVX-512F MaxRows: the AVX2 kernel's rule at 16 lanes, with the replace mask in a mask
// register and a merge-masked move.

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/common/tile_width.h"
#include "ops/kernels/pool/max_rows.h"

namespace qrt {
namespace avx512 {
namespace {

template <int V>
inline void Columns(int64_t k, const float* const* rows, int64_t j, float* y, __mmask16 last) {
  __m512 best[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) best[v] = _mm512_maskz_loadu_ps(v == V - 1 ? last : 0xFFFF, rows[0] + j + 16 * v);
  for (int64_t t = 1; t < k; ++t) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __m512 x = _mm512_maskz_loadu_ps(v == V - 1 ? last : 0xFFFF, rows[t] + j + 16 * v);
      const __mmask16 take =
          _mm512_cmp_ps_mask(x, best[v], _CMP_GT_OQ) |
          (_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q) & _mm512_cmp_ps_mask(best[v], best[v], _CMP_ORD_Q));
      best[v] = _mm512_mask_mov_ps(best[v], take, x);
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) _mm512_mask_storeu_ps(y + j + 16 * v, v == V - 1 ? last : 0xFFFF, best[v]);
}

}  // namespace

void MaxRows(int64_t k, const float* const* rows, int64_t n, float* y) {
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) Columns<4>(k, rows, j, y, 0xFFFF);
  const int64_t rest = n - j;  // one tile as wide as it needs, its last vector masked
  const __mmask16 last = FirstLanes(rest % 16 ? rest % 16 : 16);
  WithVectors<4>((rest + 15) / 16, [&](auto v) { Columns<decltype(v)::value>(k, rows, j, y, last); });
}

}  // namespace avx512
}  // namespace qrt
