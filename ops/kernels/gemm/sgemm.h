// Single-precision GEMM with a fixed summation order: the order ONNX Runtime's MLAS uses on
// x86-64 (facts in docs/float-order.md). Float convolution, MatMul and Gemm in a QDQ graph
// feed QuantizeLinear, which turns a last-bit difference near a rounding boundary into a whole
// quantization step; computing every sum in the reference system's order makes qrt's float
// results bit-identical to ONNX Runtime's literal (unoptimized) ones, so the steps never differ.
//
//   C[m x n] = A[m x k] * B        (accumulate: C = A * B + C)
//   A row-major (lda); B is k x n row-major (ldb) or, trans_b, n x k row-major.
//
// The order, per output element c[i][j], with products rounded to float unless "fma":
//   m == 1, B not transposed: k is taken in groups of 4, then one of 2, then one of 1; each
//     group's products are summed left to right, t = ((p0 + p1) + p2) + p3, and the group sum
//     is added to C: c = t + c (the first group of a non-accumulating call stores t).
//   m == 1, B transposed: eight lane sums, lane l taking products k = l, l + 8, ... left to
//     right (s_l = s_l + p_k from 0); the columns go in groups of four, then one of two where
//     n % 4 >= 2, then a last single one, and each kind reduces its lanes by its own tree
//     (SgemmRowLanesDot); c = dot (+ c when accumulating).
//   m > 1 (or one_row_kernels off, or packed_b): k is cut into blocks of SgemmBlockK; within a
//     block an accumulator runs acc = fma(a[i][p], b[p][j], acc) from 0 in order of p; each
//     block's acc is added to C: c = acc + c (the first block of a non-accumulating call
//     stores it). With alpha != 1 the stored block is acc * alpha and the added ones
//     c = fma(acc, alpha, c), as MLAS's kernels scale their accumulators.
// The reference kernel is the specification; the AVX2 kernel is bit-identical to it.
#pragma once

#include <cstdint>

#include "ops/kernels/conv/output_epilogue.h"
#include "runtime/cpu_features.h"

namespace qrt {

struct SgemmArgs {
  int64_t m = 0, n = 0, k = 0;
  const float* a = nullptr;
  int64_t lda = 0;
  const float* b = nullptr;
  int64_t ldb = 0;
  bool trans_b = false;
  // Optional instead of b/ldb: B's k rows by pointer, for a convolution whose patch rows are
  // views of its padded input planes. Element j of row p is b_rows[p][j], or with segments
  // (b_segment > 0) b_rows[p][(j / b_segment) * b_segment_step + j % b_segment]: one output
  // row of b_segment columns per input row b_segment_step floats apart. Not with trans_b;
  // always the m > 1 order (one_row_kernels is ignored).
  const float* const* b_rows = nullptr;
  int64_t b_segment = 0, b_segment_step = 0;
  float* c = nullptr;
  int64_t ldc = 0;
  bool accumulate = false;
  // The n of the whole product when this call computes a slice of its columns (the k blocks
  // depend on it); 0: n.
  int64_t rule_n = 0;
  // MLAS takes its one-row kernels only for an untransposed A and alpha == 1; otherwise a
  // single row follows the m > 1 order. alpha scales each k block's sum before it is added.
  bool one_row_kernels = true;
  float alpha = 1.f;
  // B is a constant ONNX Runtime packs when it loads the model (MlasGemmPackB: a 2-D
  // initializer of MatMul, Gemm or FusedMatMul). Its packed GEMM cuts k into blocks of 256
  // whatever n, and takes no one-row kernel.
  bool packed_b = false;
  // Optional, one per row of C: added once the whole sum is in C, c = c + bias[i] (a
  // convolution's bias, which ONNX Runtime adds after its GEMM).
  const float* bias = nullptr;
  // Optional: applied to every element of C once it is final.
  const OutputEpilogue* epilogue = nullptr;
  // Threads for the m > 1 order, which splits C's columns (elements are independent, so the
  // result does not depend on it).
  int threads = 1;
};

using SgemmFn = void (*)(const SgemmArgs& args);

// The m == 1, untransposed order with B's k rows given by pointer (row p at rows[p], n
// floats), not accumulating: c[j] = sum over p of a[p] * rows[p][j] in groups of 4, 2, 1,
// then + *bias when bias is not null.
// Convolutions with one output channel per group (depthwise) feed it rows of their padded
// input directly instead of building the patch matrix.
using SgemmOneRowFn = void (*)(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias,
                               float* c);

// The m == 1, B-transposed order's reduction of column j's eight lane sums s, for a product of
// n columns (MLAS's AVX kernel takes them four, then two, then one at a time):
//   a group of four:  (((s0 + s1) + s2) + s3) + (((s4 + s5) + s6) + s7)
//   a group of two:   ((s0 + s2) + (s4 + s6)) + ((s1 + s3) + (s5 + s7))
//   the last single:  ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
// Scalar, defined once (sgemm_ref.cc) for every kernel.
float SgemmRowLanesDot(const float* s, int64_t j, int64_t n);

// The k block of the m > 1 order. From 128 (and an n stride of 128): when n >= k, halved
// while half of it is still >= k; when n < k, doubled while the n stride is above 16 and
// half of it is still >= n (the n stride halving each time).
int64_t SgemmStrideK(int64_t n, int64_t k);

// The k block of `g`'s m > 1 order: 256 for a packed B, else SgemmStrideK of the product's n.
int64_t SgemmBlockK(const SgemmArgs& g);
// Whether `g` takes an m == 1 order.
bool SgemmOneRowOrder(const SgemmArgs& g);

// B given as 8-bit codes. A Gemm's constant weights that lie on an 8-bit grid
// (runtime/quant_grid.h) are kept as their codes, a quarter of the bytes, and each float is
// rebuilt as it is read: B'(j, p) = (float(code) - zero_point[j]) * scale[j], the
// DequantizeLinear that made it, so every product is the float weights' own. For the m == 1,
// transposed-B order: a classifier's last layer, whose weights come from memory every run.
struct CodedB {
  // n rows of `stride` bytes, k codes (int8 if is_signed) then zero points, laid out by
  // InterleaveCodedRows: the kernel reads four rows at a time as one stream.
  const uint8_t* codes = nullptr;
  int64_t stride = 0;  // a multiple of 8, >= k
  bool is_signed = false;
  const float* scales = nullptr;       // one per row of B'
  const float* zero_points = nullptr;  // one per row of B', as floats
  bool zero_points_zero = false;       // every zero point 0 (symmetric weights): B' = code * scale
};

// CodedB's layout of n rows of `stride` bytes (`rows`, row after row) into `out`: rows 4g..4g+3
// (whole groups) interleaved by 8 bytes, row 4g + r's bytes p..p+7 (p a multiple of 8) at
// 4g * stride + 4p + 8r; the last n % 4 rows after them as they are. Read four at a time, the
// rows were four short streams the hardware prefetcher did not follow from memory.
void InterleaveCodedRows(const uint8_t* rows, int64_t n, int64_t stride, uint8_t* out);

namespace ref {
void Sgemm(const SgemmArgs& args);
void SgemmOneRow(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias, float* c);
}  // namespace ref
namespace avx2 {
void Sgemm(const SgemmArgs& args);  // bit-identical to ref::Sgemm
// ref::Sgemm's m == 1, trans_b order (args.one_row_kernels, no b_rows) with B' from `b`
// instead of args.b; bit-identical to ref::Sgemm on the floats the codes stand for.
void SgemmRowLanesCoded(const SgemmArgs& args, const CodedB& b);
void SgemmOneRow(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias, float* c);
}  // namespace avx2
namespace avx512 {
void Sgemm(const SgemmArgs& args);  // AVX-512F tiles for m > 1; bit-identical to ref::Sgemm
void SgemmOneRow(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias, float* c);
}  // namespace avx512

// Isa::kAvx2 picks the AVX-512 kernel where the CPU has AVX-512F (same results, faster).
SgemmFn SelectSgemmKernel(Isa isa);
SgemmOneRowFn SelectSgemmOneRowKernel(Isa isa);

}  // namespace qrt
