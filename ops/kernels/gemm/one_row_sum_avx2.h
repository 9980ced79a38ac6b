// one_row_sum_avx512.h's order with eight lanes, for the *_avx2.cc depthwise kernels: products
// 0-3 summed left to right, 4-7 the same and that sum added, product 8 added (the bias, if any,
// after). Static, in a header only *_avx2.cc files include: built with their flags.
#pragma once

#include <immintrin.h>

namespace qrt::avx2 {

static inline __m256 SumInOneRowOrder(const __m256 (&product)[9]) {
  __m256 first = _mm256_add_ps(product[0], product[1]);
  first = _mm256_add_ps(first, product[2]);
  first = _mm256_add_ps(first, product[3]);
  __m256 second = _mm256_add_ps(product[4], product[5]);
  second = _mm256_add_ps(second, product[6]);
  second = _mm256_add_ps(second, product[7]);
  return _mm256_add_ps(product[8], _mm256_add_ps(second, first));
}

}  // namespace qrt::avx2
