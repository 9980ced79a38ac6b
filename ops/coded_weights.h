// A Gemm's constant weights kept as their 8-bit codes (ops/matmul.cc): the plan-time half of
// avx2::SgemmRowLanesCoded (ops/kernels/gemm/sgemm.h).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ops/kernels/gemm/sgemm.h"
#include "runtime/op_def.h"

namespace qrt {

struct CodedWeights {
  std::vector<uint8_t> codes;              // n rows of view.stride bytes
  std::vector<float> scales, zero_points;  // per row
  CodedB view;
};

// The constant float weights `b` (n x k, row j = output j: a Gemm's B with transB) as codes,
// when b's grid (runtime/quant_grid.h) is per tensor or per row and every element is exactly
// (float(code) - zero point) * scale for an 8-bit code; null otherwise (no value, no grid, a
// grid that does not hold, fewer than 64K elements: below 256 KB of floats the weights stay
// in cache and reading floats costs nothing more).
std::shared_ptr<const CodedWeights> CodeWeights(const TensorInfo& b, int64_t n, int64_t k);

}  // namespace qrt
