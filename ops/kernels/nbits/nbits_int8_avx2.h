// The AVX2 int8 paths' shared parts (matmul_nbits_int8_avx2.cc, matmul_nbits_lanes8_avx2.cc):
// A's quantization and the zero points' share. Included by *_avx2.cc files only.
#pragma once

#include <cstdint>

#include "ops/kernels/nbits/matmul_nbits.h"

namespace qrt::avx2::nbits_int8 {

// One row of A quantized as nbits::QuantizeRowReference does, qa as int8 in k order (blocks *
// block bytes); false where a code would leave -127..127 (the row is then computed by the
// reference).
bool QuantizeRow(const NbitsWeights& w, const float* row, int8_t* qa, float* sa, float* asum);

// An int8 product's scratch (the calling thread's): m rows of `row_bytes` arranged codes, one
// row of A's codes in k order, and sa, asum (m x blocks each), the zero points' chunk
// (AddZeroPointShare's nz) and a flag per row (1: computed by the reference).
struct Int8Scratch {
  uint8_t* arranged;
  int8_t* natural;
  float *sa, *asum, *nz, *irregular;
};
Int8Scratch TakeInt8Scratch(const NbitsWeights& w, int64_t m, int64_t row_bytes);

// y += the zero points' share, c = fma(sa * sum qa, -sb * zp, c) over blocks from +0, for m rows;
// nz: 32 * blocks floats of scratch (unused where w.zero_point_terms is set).
void AddZeroPointShare(const NbitsWeights& w, int64_t m, const float* asum, float* nz, float* y);

}  // namespace qrt::avx2::nbits_int8
