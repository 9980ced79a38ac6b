// UniformDequantize (TensorFlow) as a pure kernel. Semantics: docs op-semantics.md, section 3.
//   y = float(int32(x) - zero_point) * scale          (int32 difference, one f32 multiply)
// Input int8, uint8 or int32; output float32 with the input's shape. Per-tensor (axis -1:
// scales/zero_points of rank 0) or per-axis (rank 1, size dim(axis): slice i uses
// scales[i], zero_points[i]). quantization_min_val/max_val are not used.
// int32 overflow of x - zero_point (undefined in TensorFlow's C++): qrt defines the
// difference as two's-complement wrap-around, which is what TensorFlow's x86 build
// computes (SUB/VPSUBD wrap); every non-overflowing difference is the exact one.
#pragma once

#include <cstdint>

#include "ops/kernels/common/broadcast.h"
#include "runtime/cpu_features.h"
#include "runtime/dtype.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

struct UniformDequantizeAttrs {
  DataType Tout = DataType::kFloat32;  // float32 only
  int64_t quantization_axis = -1;
  int64_t quantization_min_val = 0;  // required by TF, unused
  int64_t quantization_max_val = 0;  // required by TF, unused
};

// Dequantizes n elements of x (the kernel's input type) into y. scale/zero_point advance
// by param_inc (0 or 1) per element.
using UniformDequantizeFn = void (*)(int64_t n, const void* x, float* y, const float* scale, const int32_t* zero_point,
                                     int64_t param_inc);

namespace ref {
void UniformDequantizeI8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc);
void UniformDequantizeU8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc);
void UniformDequantizeI32(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc);
}  // namespace ref
namespace avx2 {  // bit-identical to the ref:: kernels of the same name
void UniformDequantizeI8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc);
void UniformDequantizeU8(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc);
void UniformDequantizeI32(int64_t n, const void* x, float* y, const float* scale, const int32_t* zp, int64_t inc);
}  // namespace avx2

// Run kernel for the input dtype (int8, uint8, int32) and ISA; nullptr for other dtypes.
UniformDequantizeFn SelectUniformDequantizeKernel(DataType input, Isa isa);

struct UniformDequantizePlan {
  DataType input_dtype = DataType::kUndefined;
  Dims output_dims;
  bool per_axis = false;
  int64_t outer = 1, channels = 1, inner = 1;  // input viewed as [outer, channels, inner]
  UniformDequantizeFn kernel = nullptr;
};

// Validates dtypes and shapes in TensorFlow's order (scales.shape == zero_points.shape,
// -1 <= axis < rank, rank-0 scales for axis -1 ([1] is rejected), rank-1 size-dim(axis)
// scales otherwise) and picks the kernel.
StatusOr<UniformDequantizePlan> PrepareUniformDequantize(const UniformDequantizeAttrs& attrs, const TensorDesc& input,
                                                         const TensorDesc& scales, const TensorDesc& zero_points,
                                                         Isa isa);

// Writes y (float32, plan.output_dims). Fails with InvalidArgument, before writing, unless
// every scale is > 0 (0, negatives and NaN are rejected).
Status RunUniformDequantize(const UniformDequantizePlan& plan, const void* input, const float* scales,
                            const int32_t* zero_points, float* output);

}  // namespace qrt
