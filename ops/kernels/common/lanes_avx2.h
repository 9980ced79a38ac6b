// Lane masks for the *_avx2.cc kernels (included only there, so built with their flags; static,
// so no copy is shared with a file built for another ISA).
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace qrt::avx2 {

// Lanes [0, n) of an 8-lane vector set, n clamped to [0, 8]: a tail's mask for
// VMASKMOVPS / VPMASKMOVD.
static inline __m256i FirstLanes(int64_t n) {
  const int32_t k = n <= 0 ? 0 : (n >= 8 ? 8 : int32_t(n));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace qrt::avx2
