// AVX-512 (BW, VBMI) LookupTable: VPERMT2B looks up 64 bytes in a 128-entry table held in two
// registers, using each index's low 7 bits; one lookup in entries 0-127, one in 128-255, and
// the index's top bit picks between them. Exact: a byte permute is a table read.
#include <immintrin.h>

#include "ops/kernels/eltwise/lookup_table.h"

namespace qrt {
namespace avx512 {

void LookupTable(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  auto lookup = [&](__m512i idx) {
    const __m512i low = _mm512_permutex2var_epi8(t0, idx, t1);
    const __m512i high = _mm512_permutex2var_epi8(t2, idx, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(idx), low, high);
  };
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_storeu_si512(y + i, lookup(_mm512_loadu_si512(x + i)));
  if (i < n) {
    const __mmask64 tail = ~__mmask64(0) >> (64 - (n - i));
    _mm512_mask_storeu_epi8(y + i, tail, lookup(_mm512_maskz_loadu_epi8(tail, x + i)));
  }
}

}  // namespace avx512
}  // namespace qrt
