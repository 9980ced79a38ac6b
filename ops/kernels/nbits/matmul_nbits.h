// com.microsoft MatMulNBits' products (bits 4): Y[m x n] = A[m x k] * W^T (+ bias), W given as
// 4-bit codes in blocks along k, each block with a float scale and a 4-bit zero point (8 when
// absent). A weight is w = float(q - zp) * scale, rounded once, as ONNX Runtime 1.30 computes
// it. The orders are ONNX Runtime 1.30's on x86-64 with AVX-512 (MLAS's QNBit kernels; found
// black-box, docs/float-order.md):
//   fp32 (accuracy_level != 4), m == 1: per column, 16 lane sums, lane l taking k = l, l + 16,
//     ... in order, acc = fma(w, a, acc) from +0 (k padded with zeros to a multiple of 16);
//     columns in whole groups of 4 reduce as s_L = ((x[4L] + x[4L+1]) + x[4L+2]) + x[4L+3],
//     r = (s0 + s2) + (s1 + s3); the last n % 4 as x_i + x_{i+8}, then + x_{i+4}, then
//     (z0 + z2) + (z1 + z3); then r + bias.
//   fp32, m == 1, ORT on a CPU without AVX-512 (ReferenceOrtCpu() == kAvx2, MLAS's AVX2
//     kernel): per column 8 lane sums, lane l taking k = l, l + 8, ... in order; each block
//     runs whole sub-blocks of 16 k (blocks of 16) or 32 (larger blocks) up to its last valid
//     k, and the k past K in them multiply their weight by a zero input (fma(w, 0, acc));
//     columns in whole groups of 4 reduce as FoldGroups8 then + bias, the last n % 4 as Hadd8
//     then + (bias or +0).
//   fp32, m > 1: per element one chain acc = fma(a, w, acc) over all k from +0, then + bias.
//   int8 (accuracy_level 4): A quantized per row and block to int8 (ORT's CompInt8), exact
//     integer partial sums scaled and accumulated in MLAS's lane layout (matmul_nbits_ref.cc);
//     where ReferenceOrtCpu() == kAvx2, in MLAS's AVX2 layouts on 8 lanes, one row with the
//     zero points inside the integer sums (matmul_nbits_lanes8_ref.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/cpu_features.h"

namespace qrt {

struct NbitsWeights {
  int64_t n = 0, k = 0, block = 0, blocks = 0;  // blocks = ceil(k / block)
  const uint8_t* codes = nullptr;               // [n, blocks, block / 2], k = 2j low nibble, 2j + 1 high
  const float* scales = nullptr;                // [n, blocks]
  const uint8_t* zero_points = nullptr;         // [n, ceil(blocks / 2)], block 2b low nibble; null: 8
  // The int8 path's zero-point terms (-scale) * zero point, [blocks, n] (NbitsZeroPointTerms),
  // made once for constant weights; null: the kernels make them per call.
  const float* zero_point_terms = nullptr;

  int zero_point(int64_t col, int64_t b) const {
    if (zero_points == nullptr) return 8;
    const uint8_t byte = zero_points[col * ((blocks + 1) / 2) + b / 2];
    return b % 2 ? byte >> 4 : byte & 15;
  }
  int code(int64_t col, int64_t kk) const {
    const uint8_t byte = codes[col * blocks * (block / 2) + kk / 2];
    return kk % 2 ? byte >> 4 : byte & 15;
  }
};

// Columns [n_begin, n_end) of one row: y[j] for j in that range (y is the whole row).
using NbitsRowFn = void (*)(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                            float* y);
// Rows [0, m) of A (lda k) and columns [n_begin, n_end), in the m > 1 order; y has ldy n.
using NbitsRowsFn = void (*)(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                             int64_t n_end, float* y);
// accuracy_level 4, all of Y: m rows of A (lda k), every column (ldy n). A is quantized once per
// call. Rows whose int8 codes would leave -127..127 (A not finite, or 127 / amax overflowing for
// a block of tiny values) are computed by the reference in every kernel.
using NbitsInt8Fn = void (*)(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);

namespace ref {
void MatMulNbitsRow(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end, float* y);
// The one-row order of ORT on a CPU without AVX-512 (8 lanes).
void MatMulNbitsRow8(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                     float* y);
void MatMulNbitsRows(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                     int64_t n_end, float* y);
// accuracy_level 4, all of Y: m rows, every column.
void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
// The same in the order of ORT on an AVX-512 CPU without AVX512_VNNI (blocks of 128 and more lay
// their lanes out otherwise; ReferenceOrtAvx512Vnni()).
void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
// accuracy_level 4 in the order of ORT on a CPU without AVX-512 (matmul_nbits_lanes8_ref.cc).
void MatMulNbitsInt8Lanes8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
}  // namespace ref

namespace avx2 {
void MatMulNbitsRow(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end, float* y);
void MatMulNbitsRow8(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                     float* y);
void MatMulNbitsRows(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                     int64_t n_end, float* y);
void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
void MatMulNbitsInt8Lanes8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
}  // namespace avx2

namespace avx512 {
void MatMulNbitsRow(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end, float* y);
void MatMulNbitsRows(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                     int64_t n_end, float* y);
// The int8 path with AVX512BW (VPMADDUBSW).
void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
}  // namespace avx512

namespace avx512vnni {  // the int8 path with VPDPBUSD
void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y);
}  // namespace avx512vnni

// w's zero-point terms for the int8 path, [blocks, n]: (-scale) * float(zero point), as the
// kernels form them (a block per row, so that a column's chain over blocks reads 16 columns at a
// time): what MLAS's prepacking keeps beside the codes.
std::vector<float> NbitsZeroPointTerms(const NbitsWeights& w);

// The one-row order of the ORT the results follow (ReferenceOrtCpu, read when called).
NbitsRowFn SelectNbitsRow(Isa isa);
NbitsRowsFn SelectNbitsRows(Isa isa);
NbitsInt8Fn SelectNbitsInt8(Isa isa);

}  // namespace qrt
