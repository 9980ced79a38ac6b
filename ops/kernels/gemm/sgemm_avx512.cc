// AVX-512 row tiles for the ordered GEMM's m > 1 order (sgemm.h, sgemm_blocked.h): the AVX2
// tiles at twice the width, bit-identical (the same fused multiply-adds per element, in the
// same order), and the one-row kernel for depthwise convolutions likewise. Picked at run time
// when the CPU and OS support AVX-512F; the other one-row orders stay AVX2.
#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/common/tile_width.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/kernels/gemm/sgemm_blocked.h"

namespace qrt {
namespace avx512 {
namespace {

inline __m512 Load(const float* p, __mmask16 mask, bool masked) {
  return masked ? _mm512_maskz_loadu_ps(mask, p) : _mm512_loadu_ps(p);
}

inline void Store(float* p, __mmask16 mask, bool masked, __m512 v) {
  if (masked)
    _mm512_mask_storeu_ps(p, mask, v);
  else
    _mm512_storeu_ps(p, v);
}

// kMaskLoad: B's last vector is partial (read masked); kMaskStore: C's last vector is.
template <int R, int V, bool kMaskLoad, bool kMaskStore>
inline void Tile(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                 bool store, const float* alpha, const float* bias, __mmask16 mask) {
  __m512 acc[R][V];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < kb; ++p) {
    const float* bp = b + p * ldb;
    __m512 bv[V];
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) bv[v] = Load(bp + 16 * v, mask, kMaskLoad && v == V - 1);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512 av = _mm512_set1_ps(a[r * lda + p]);
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) {
      float* cp = c + r * ldc + 16 * v;
      const bool masked = kMaskStore && v == V - 1;
      __m512 out = acc[r][v];
      if (alpha == nullptr)
        out = store ? out : _mm512_add_ps(out, Load(cp, mask, masked));
      else if (store)
        out = _mm512_mul_ps(out, _mm512_set1_ps(*alpha));
      else
        out = _mm512_fmadd_ps(out, _mm512_set1_ps(*alpha), Load(cp, mask, masked));
      if (bias != nullptr) out = _mm512_add_ps(out, _mm512_set1_ps(bias[r]));
      Store(cp, mask, masked, out);
    }
  }
}

template <int R>
void RowsOfTiles(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                 int64_t cols, int64_t readable, bool store, const float* alpha, const float* bias) {
  int64_t j = 0;
  for (; j + 64 <= cols; j += 64) Tile<R, 4, false, false>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, 0);
  // The rest in one tile as wide as it needs: one pass over A's rows instead of a tile per
  // power of two. Its last vector is stored masked, and read masked unless B's row has
  // padding to read there (packed strips: zeros, whose products are dropped).
  const int64_t rest = cols - j;
  if (rest == 0) return;
  const int vectors = int((rest + 15) / 16);
  const __mmask16 mask = FirstLanes(rest % 16 ? rest % 16 : 16);
  const bool read_masked = readable < j + 16 * vectors;
  WithVectors<4>(vectors, [&](auto v) {
    constexpr int V = decltype(v)::value;
    if (read_masked)
      Tile<R, V, true, true>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, mask);
    else
      Tile<R, V, false, true>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, mask);
  });
}

void RowTiles(int rows, const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
              int64_t cols, int64_t readable, bool store, const float* alpha, const float* bias) {
  switch (rows) {
    case 6:
      RowsOfTiles<6>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    case 5:
      RowsOfTiles<5>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    case 4:
      RowsOfTiles<4>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    case 3:
      RowsOfTiles<3>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    case 2:
      RowsOfTiles<2>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    default:
      RowsOfTiles<1>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
  }
}

// Outputs [j, j + 16V) of the one-row order (groups of 4, 2, 1 products; each group's sum
// added to the running sum; bias last), the AVX2 kernel's ops at twice the width.
template <int V, bool kMasked>
inline void OneRowTile(int64_t k, const float* a, const float* const* rows, int64_t j, const float* bias, float* c,
                       __mmask16 mask) {
  __m512 sum[V];
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) sum[v] = _mm512_setzero_ps();
  for (int64_t p = 0; p < k;) {
    const int64_t left = k - p;
    const int64_t size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    __m512 t[V];
    for (int64_t q = 0; q < size; ++q) {
      const __m512 av = _mm512_set1_ps(a[p + q]);
      const float* b = rows[p + q] + j;
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) {
        const __m512 prod = _mm512_mul_ps(av, Load(b + 16 * v, mask, kMasked && v == V - 1));
        t[v] = q == 0 ? prod : _mm512_add_ps(t[v], prod);
      }
    }
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) sum[v] = p == 0 ? t[v] : _mm512_add_ps(t[v], sum[v]);
    p += size;
  }
  if (bias != nullptr) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) sum[v] = _mm512_add_ps(sum[v], _mm512_set1_ps(*bias));
  }
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) Store(c + j + 16 * v, mask, kMasked && v == V - 1, sum[v]);
}

}  // namespace

void Sgemm(const SgemmArgs& g) { sgemm_detail::SgemmWith(g, RowTiles, 6); }

void SgemmOneRow(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias, float* c) {
  int64_t j = 0;
  for (; j + 64 <= n; j += 64) OneRowTile<4, false>(k, a, rows, j, bias, c, 0);
  // The rest in one tile as wide as it needs, its last vector masked: its vectors' sums are
  // independent chains that overlap, where one vector at a time waits on each add.
  const int64_t rest = n - j;
  const __mmask16 mask = FirstLanes(rest % 16 ? rest % 16 : 16);
  WithVectors<4>((rest + 15) / 16, [&](auto v) { OneRowTile<decltype(v)::value, true>(k, a, rows, j, bias, c, mask); });
}

}  // namespace avx512
}  // namespace qrt
