// The nine products of a 3x3 depthwise output summed in the ordered GEMM's one-row order
// (SgemmOneRow, sgemm.h), which the padded-rows path uses and so specifies: products 0-3 summed
// left to right, 4-7 the same and that sum added, product 8 added (the bias, if any, after).
// The depthwise kernels (lanes, rows, and the int8 one's recomputed outputs) give the same bits
// only in this order. In an anonymous namespace: each *_avx512.cc that includes it gets its own
// copy, built with its own flags (quantizer_avx512.h: why).
#pragma once

#include "ops/kernels/common/intrinsics_avx512.h"

namespace qrt::avx512 {
namespace {

inline __m512 SumInOneRowOrder(const __m512 (&product)[9]) {
  __m512 first = _mm512_add_ps(product[0], product[1]);
  first = _mm512_add_ps(first, product[2]);
  first = _mm512_add_ps(first, product[3]);
  __m512 second = _mm512_add_ps(product[4], product[5]);
  second = _mm512_add_ps(second, product[6]);
  second = _mm512_add_ps(second, product[7]);
  return _mm512_add_ps(product[8], _mm512_add_ps(second, first));
}

}  // namespace
}  // namespace qrt::avx512
