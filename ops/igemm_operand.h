// The B operand of an op's exact integer GEMM (ops/kernels/igemm/igemm.h), for MatMulInteger,
// QLinearMatMul, QGemm and the com.microsoft dynamic-quantization ops:
//   B(k, j) = b[k * rs + j * cs] - zp(j)   for each of B's matrices (k * n values apart),
// packed once at compile time when B and its zero points are constant, else on each run.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/kernels/igemm/igemm.h"
#include "runtime/op_def.h"
#include "runtime/tensor.h"

namespace qrt {

struct IgemmOperandB {
  int64_t k = 0, n = 0, rs = 0, cs = 0;
  std::vector<int16_t> packed;  // constant B, packed at compile time

  // The row and column strides of an [k, n] matrix, or of its transpose [n, k].
  static IgemmOperandB ForMatrix(int64_t k, int64_t n, bool transposed);

  // B and b_zp (null, one value or one per column; 8-bit like B) known now: packs `packed`.
  void PackConstant(const Tensor& b, const Tensor* b_zp);
  // The packed B of this run: `packed`, or b packed into ThreadScratch's kOp2 slot.
  const int16_t* ForRun(const Tensor& b, const Tensor* b_zp) const;
  // Values between one packed matrix and the next.
  int64_t matrix_stride() const;
};

// What an op's prepare sets up for its integer GEMM: the tile kernel under the ceiling, B (packed
// now where it and its zero points are constants) and the thread count.
struct IgemmProduct {
  IgemmKernel kernel;
  IgemmOperandB b;
  int threads = 1;

  // At the AVX2 tier and above, for B (k x n, or its transpose) at input `b_input` and its zero
  // points at `b_zp_input` (-1 or an omitted input: none); nullopt below AVX2.
  static std::optional<IgemmProduct> Plan(const PrepareContext& ctx, int64_t k, int64_t n, bool transposed, int b_input,
                                          int b_zp_input);
  // B for this run (IgemmOperandB::ForRun).
  const int16_t* ForRun(const RunArgs& args, int b_input, int b_zp_input) const;
};

}  // namespace qrt
