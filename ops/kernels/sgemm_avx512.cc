// AVX-512 row tiles for the ordered GEMM's m > 1 order (sgemm.h, sgemm_blocked.h): the AVX2
// tiles at twice the width, bit-identical (the same fused multiply-adds per element, in the
// same order). Picked at run time when the CPU and OS support AVX-512F; the one-row kernels
// stay AVX2.
#include <immintrin.h>


#include "ops/kernels/sgemm.h"
#include "ops/kernels/sgemm_blocked.h"

namespace qrt {
namespace avx512 {
namespace {

inline __m512 Load(const float* p, __mmask16 mask, bool masked) {
  return masked ? _mm512_maskz_loadu_ps(mask, p) : _mm512_loadu_ps(p);
}

inline void Store(float* p, __mmask16 mask, bool masked, __m512 v) {
  if (masked) _mm512_mask_storeu_ps(p, mask, v);
  else _mm512_storeu_ps(p, v);
}

template <int R, int V, bool kMasked>
inline void Tile(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                 bool store, const float* alpha, const float* bias, __mmask16 mask) {
  __m512 acc[R][V];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kb; ++p) {
    const float* bp = b + p * ldb;
    __m512 bv[V];
    for (int v = 0; v < V; ++v) bv[v] = Load(bp + 16 * v, mask, kMasked && v == V - 1);
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + p]);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) {
      float* cp = c + r * ldc + 16 * v;
      const bool masked = kMasked && v == V - 1;
      __m512 out = acc[r][v];
      if (alpha != nullptr) out = _mm512_mul_ps(out, _mm512_set1_ps(*alpha));
      if (!store) out = _mm512_add_ps(out, Load(cp, mask, masked));
      if (bias != nullptr) out = _mm512_add_ps(out, _mm512_set1_ps(bias[r]));
      Store(cp, mask, masked, out);
    }
  }
}

template <int R>
void RowsOfTiles(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                 int64_t cols, bool store, const float* alpha, const float* bias) {
  int64_t j = 0;
  for (; j + 64 <= cols; j += 64) Tile<R, 4, false>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, 0);
  if (cols - j >= 32) Tile<R, 2, false>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, 0), j += 32;
  if (cols - j >= 16) Tile<R, 1, false>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, 0), j += 16;
  if (cols > j) {
    const __mmask16 mask = __mmask16((1u << (cols - j)) - 1);
    Tile<R, 1, true>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, mask);
  }
}

void RowTiles(int rows, const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c,
              int64_t ldc, int64_t cols, bool store, const float* alpha, const float* bias) {
  switch (rows) {
    case 6: RowsOfTiles<6>(a, lda, b, ldb, kb, c, ldc, cols, store, alpha, bias); break;
    case 5: RowsOfTiles<5>(a, lda, b, ldb, kb, c, ldc, cols, store, alpha, bias); break;
    case 4: RowsOfTiles<4>(a, lda, b, ldb, kb, c, ldc, cols, store, alpha, bias); break;
    case 3: RowsOfTiles<3>(a, lda, b, ldb, kb, c, ldc, cols, store, alpha, bias); break;
    case 2: RowsOfTiles<2>(a, lda, b, ldb, kb, c, ldc, cols, store, alpha, bias); break;
    default: RowsOfTiles<1>(a, lda, b, ldb, kb, c, ldc, cols, store, alpha, bias); break;
  }
}

}  // namespace

void Sgemm(const SgemmArgs& g) { sgemm_detail::SgemmWith(g, RowTiles, 6); }

}  // namespace avx512
}  // namespace qrt
