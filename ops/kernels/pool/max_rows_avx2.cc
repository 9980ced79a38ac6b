// AVX2 MaxRows: ref::MaxRows' rule per lane. The replace mask is (v > best, ordered) or (v is
// NaN and best is not); BLENDVPS takes v where it is set, so each lane keeps exactly the value
// the reference keeps. A row's tail is one tile as wide as it needs, its last vector read and
// stored masked, so its lanes' chains overlap.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/common/tile_width.h"
#include "ops/kernels/pool/max_rows.h"

namespace qrt {
namespace avx2 {
namespace {

template <int V, bool kMaskLast>
inline void Columns(int64_t k, const float* const* rows, int64_t j, float* y, __m256i last) {
  auto load = [&](const float* p, int v) {
    return kMaskLast && v == V - 1 ? _mm256_maskload_ps(p, last) : _mm256_loadu_ps(p);
  };
  __m256 best[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) best[v] = load(rows[0] + j + 8 * v, v);
  for (int64_t t = 1; t < k; ++t) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __m256 x = load(rows[t] + j + 8 * v, v);
      const __m256 take =
          _mm256_or_ps(_mm256_cmp_ps(x, best[v], _CMP_GT_OQ),
                       _mm256_and_ps(_mm256_cmp_ps(x, x, _CMP_UNORD_Q), _mm256_cmp_ps(best[v], best[v], _CMP_ORD_Q)));
      best[v] = _mm256_blendv_ps(best[v], x, take);
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    if (kMaskLast && v == V - 1)
      _mm256_maskstore_ps(y + j + 8 * v, last, best[v]);
    else
      _mm256_storeu_ps(y + j + 8 * v, best[v]);
  }
}

}  // namespace

void MaxRows(int64_t k, const float* const* rows, int64_t n, float* y) {
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) Columns<4, false>(k, rows, j, y, _mm256_setzero_si256());
  const int64_t rest = n - j;
  const __m256i last = FirstLanes(rest % 8 ? rest % 8 : 8);
  WithVectors<4>((rest + 7) / 8, [&](auto v) { Columns<decltype(v)::value, true>(k, rows, j, y, last); });
}

void MaxRowsBytes(int64_t k, const uint8_t* const* rows, int64_t n, bool is_signed, uint8_t* y) {
  auto max_at = [&](int64_t j) {  // columns j .. j + 31
    __m256i best = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[0] + j));
    for (int64_t t = 1; t < k; ++t) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[t] + j));
      best = is_signed ? _mm256_max_epi8(best, v) : _mm256_max_epu8(best, v);
    }
    return best;
  };
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + j), max_at(j));
  if (j == n) return;
  // The tail: the last 32 columns again where the row has them (the same maxima, stored again),
  // else 32 columns into a buffer, of which the first n - j are kept (the caller's rows can be
  // read 32 bytes from j on).
  if (n >= 32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + n - 32), max_at(n - 32));
    return;
  }
  alignas(32) uint8_t buffer[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(buffer), max_at(j));
  std::memcpy(y + j, buffer, size_t(n - j));
}

}  // namespace avx2
}  // namespace qrt
