// AVX2 LookupTable: VPSHUFB looks up 16 entries by an index's low 4 bits, so the table is read
// as 16 rows of 16 bytes, each row looked up for all 32 bytes, and the right row's byte chosen by
// the index's high 4 bits in a tree of blends (bit 4 between rows 2j and 2j + 1, then bit 5,
// bit 6, bit 7): 16 shuffles and 15 blends per 32 bytes instead of a load per byte. Exact: a
// byte shuffle is a table read.
#include <immintrin.h>

#include <cstring>

#include "ops/kernels/eltwise/lookup_table.h"

namespace qrt {
namespace avx2 {
namespace {

// A byte's bit b in its top bit, as VPBLENDVB reads it (the 16-bit shift carries bits from the
// next byte into the low bits only).
inline __m256i BitOnTop(__m256i x, int b) { return _mm256_slli_epi16(x, 7 - b); }

inline __m256i Lookup(const __m256i (&rows)[16], __m256i x) {
  const __m256i low = _mm256_and_si256(x, _mm256_set1_epi8(0x0F));
  __m256i level[8];
  const __m256i bit4 = BitOnTop(x, 4);
  for (int j = 0; j < 8; ++j) {
    level[j] =
        _mm256_blendv_epi8(_mm256_shuffle_epi8(rows[2 * j], low), _mm256_shuffle_epi8(rows[2 * j + 1], low), bit4);
  }
  const __m256i bit5 = BitOnTop(x, 5);
  for (int j = 0; j < 4; ++j) level[j] = _mm256_blendv_epi8(level[2 * j], level[2 * j + 1], bit5);
  const __m256i bit6 = BitOnTop(x, 6);
  for (int j = 0; j < 2; ++j) level[j] = _mm256_blendv_epi8(level[2 * j], level[2 * j + 1], bit6);
  return _mm256_blendv_epi8(level[0], level[1], x);  // bit 7 is the top bit already
}

}  // namespace

void LookupTable(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y) {
  __m256i rows[16];
  for (int r = 0; r < 16; ++r) {
    rows[r] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * r)));
  }
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(y + i), Lookup(rows, v));
  }
  if (i < n) {  // the tail through a buffer: no read or write past the ends
    alignas(32) uint8_t buffer[32] = {};
    std::memcpy(buffer, x + i, size_t(n - i));
    _mm256_store_si256(reinterpret_cast<__m256i*>(buffer),
                       Lookup(rows, _mm256_load_si256(reinterpret_cast<const __m256i*>(buffer))));
    std::memcpy(y + i, buffer, size_t(n - i));
  }
}

}  // namespace avx2
}  // namespace qrt
