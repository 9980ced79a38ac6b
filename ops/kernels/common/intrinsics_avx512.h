// <immintrin.h> for the *_avx512.cc kernels, and their lane masks. GCC 12's avx512fintrin.h builds its "undefined"
// pass-through vectors from themselves, which -Wmaybe-uninitialized then reports at every
// inlined conversion; those values are never read, so the warning is silenced here only.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>

namespace qrt::avx512 {

// Lanes [0, n) of a 16-lane vector set, n clamped to [0, 16]: a tail's mask. Static, so no copy
// is shared between files built with different AVX-512 subsets.
static inline __mmask16 FirstLanes(int64_t n) {
  return n <= 0 ? __mmask16(0) : n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1);
}

}  // namespace qrt::avx512
