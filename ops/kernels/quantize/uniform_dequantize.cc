// UniformDequantize: TensorFlow's validation order (op-semantics.md 3) and the loop.
#include "ops/kernels/quantize/uniform_dequantize.h"

#include <algorithm>

#include "runtime/kernel_isa.h"

namespace qrt {

UniformDequantizeFn SelectUniformDequantizeKernel(DataType input, Isa isa) {
  const bool v = CanUseAvx2(isa);
  switch (input) {
    case DataType::kInt8:
      return v ? PickedAt(Isa::kAvx2, avx2::UniformDequantizeI8) : ref::UniformDequantizeI8;
    case DataType::kUInt8:
      return v ? PickedAt(Isa::kAvx2, avx2::UniformDequantizeU8) : ref::UniformDequantizeU8;
    case DataType::kInt32:
      return v ? PickedAt(Isa::kAvx2, avx2::UniformDequantizeI32) : ref::UniformDequantizeI32;
    default:
      return nullptr;
  }
}

StatusOr<UniformDequantizePlan> PrepareUniformDequantize(const UniformDequantizeAttrs& attrs, const TensorDesc& input,
                                                         const TensorDesc& scales, const TensorDesc& zero_points,
                                                         Isa isa) {
  if (attrs.Tout != DataType::kFloat32) {
    return InvalidArgument("UniformDequantize: Tout must be float32, got ", DataTypeName(attrs.Tout));
  }
  UniformDequantizePlan plan;
  plan.kernel = SelectUniformDequantizeKernel(input.dtype, isa);
  if (plan.kernel == nullptr) {
    return InvalidArgument("UniformDequantize: input dtype must be qint8, quint8 or qint32, got ",
                           DataTypeName(input.dtype));
  }
  if (scales.dtype != DataType::kFloat32) {
    return InvalidArgument("UniformDequantize: scales must be float32, got ", DataTypeName(scales.dtype));
  }
  if (zero_points.dtype != DataType::kInt32) {
    return InvalidArgument("UniformDequantize: zero_points must be int32, got ", DataTypeName(zero_points.dtype));
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(input.dims, DataTypeSize(input.dtype)).status());
  QRT_RETURN_IF_ERROR(CheckedElementCount(scales.dims, sizeof(float)).status());
  // 1. Same shapes.
  if (scales.dims != zero_points.dims) {
    return InvalidArgument("UniformDequantize: scales and zero_points must have the same shape, got ",
                           DimsToString(scales.dims), " and ", DimsToString(zero_points.dims));
  }
  // 2. Axis range.
  const int64_t rank = static_cast<int64_t>(input.dims.size());
  const int64_t axis = attrs.quantization_axis;
  if (axis < -1 || axis >= rank) {
    return InvalidArgument("UniformDequantize: quantization_axis must be in [-1, rank of input (", rank, ")), got ",
                           axis);
  }
  plan.input_dtype = input.dtype;
  plan.output_dims = input.dims;
  if (axis == -1) {
    // 3. Per-tensor: rank-0 scales only.
    if (!scales.dims.empty()) {
      return InvalidArgument(
          "UniformDequantize: if quantization_axis is -1, scales and zero_points must be "
          "scalar tensors (rank 0), got shape ",
          DimsToString(scales.dims));
    }
    plan.inner = ElementCount(input.dims);
  } else {
    // 4. Per-axis: rank 1 of size dim(axis).
    if (scales.dims.size() != 1 || scales.dims[0] != input.dims[axis]) {
      return InvalidArgument("UniformDequantize: if quantization_axis is ", axis,
                             ", scales and zero_points must be 1-D of size dim(axis) = ", input.dims[axis],
                             ", got shape ", DimsToString(scales.dims));
    }
    plan.per_axis = true;
    plan.outer = ElementCount(Dims(input.dims.begin(), input.dims.begin() + axis));
    plan.channels = input.dims[axis];
    plan.inner = ElementCount(Dims(input.dims.begin() + axis + 1, input.dims.end()));
  }
  return plan;
}

Status RunUniformDequantize(const UniformDequantizePlan& plan, const void* input, const float* scales,
                            const int32_t* zero_points, float* output) {
  // 5. Every scale > 0 (rejects 0, negatives and NaN).
  for (int64_t c = 0; c < plan.channels; ++c) {
    if (!(scales[c] > 0)) {
      return InvalidArgument("UniformDequantize: rhs scales elements must be all positive (scales[", c,
                             "] = ", scales[c], ")");
    }
  }
  const size_t es = DataTypeSize(plan.input_dtype);
  const char* x = static_cast<const char*>(input);
  if (!plan.per_axis) {
    plan.kernel(plan.inner, x, output, scales, zero_points, 0);
    return Status::Ok();
  }
  for (int64_t o = 0; o < plan.outer; ++o) {
    const int64_t base = o * plan.channels * plan.inner;
    if (plan.inner == 1) {  // one channel per element: parameters advance with the run
      plan.kernel(plan.channels, x + base * es, output + base, scales, zero_points, 1);
      continue;
    }
    for (int64_t c = 0; c < plan.channels; ++c) {
      const int64_t e = base + c * plan.inner;
      plan.kernel(plan.inner, x + e * es, output + e, scales + c, zero_points + c, 0);
    }
  }
  return Status::Ok();
}

}  // namespace qrt
