// QuantizeV2 (TensorFlow) as a pure kernel. Semantics: docs op-semantics.md, section 2.
//
// Per slice (the whole tensor, or one index of `axis`), in f32 unless noted:
//   range adjust (2.2): min = min(0, in_min); eps = max(1, max(|in_min|, |in_max|)) * ensure;
//                       max = max(0, max(in_max, min + eps))
//   MIN_COMBINED (2.3): scale = float((f64(Tmax) - f64(Tmin)) / f64(max - min))
//       v = (clamp(x, min, max) - min) * scale
//       signed T:   q = round_half_away(v - half_range)        half_range = 2^(bits-1)
//       unsigned T: q = trunc(v + 0.5f)                         (0.49999997 -> 1)
//   MIN_FIRST (2.4, per-tensor only): s = (max == min) ? 0 : float((2^bits - 1.0) / f64(max - min))
//       q = clamp(round_half_away(x * s) - (round_half_away(min * s) - float(Tmin)),
//                 float(Tmin), min(float(Tmax), 2147483520f))
//   SCALED (2.5): s = min(s_min, s_max) with s_side = (float(T_side) * side > 0) ? T_side / side
//       : FLT_MAX; min' = float(min_T) / s, max' = float(max_T) / s
//       q = ROUND(clamp(x, min', max') * s), ROUND = half away from zero or (HALF_TO_EVEN) rint
//   clamp(x, lo, hi) is std::max(std::min(x, hi), lo), so a NaN x stays NaN.
// Conversion to T (qrt's definition where TF is undefined): NaN -> 0, values at or beyond
// the limits of T saturate (qint32 MIN_COMBINED at the top of the range -> 2147483647;
// MIN_FIRST clamps to 2147483520 first).
// Outputs: output (T, input's shape); output_min/output_max (f32): the adjusted min/max
// (MIN_COMBINED, MIN_FIRST) or min'/max' (SCALED); shape [] on the per-tensor path
// (axis == -1, or dim(axis) == 1), else min_range's shape [dim(axis)].
#pragma once

#include <cstdint>
#include <string_view>

#include "ops/kernels/common/broadcast.h"
#include "runtime/cpu_features.h"
#include "runtime/dtype.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

enum class QuantizeV2Mode : uint8_t { kMinCombined, kMinFirst, kScaled };
enum class QuantizeV2RoundMode : uint8_t { kHalfAwayFromZero, kHalfToEven };

// "MIN_COMBINED", "MIN_FIRST", "SCALED" (TensorFlow spelling, exact).
StatusOr<QuantizeV2Mode> ParseQuantizeV2Mode(std::string_view name);
// "HALF_AWAY_FROM_ZERO", "HALF_TO_EVEN" (TensorFlow spelling, exact).
StatusOr<QuantizeV2RoundMode> ParseQuantizeV2RoundMode(std::string_view name);

struct QuantizeV2Attrs {
  DataType T = DataType::kUndefined;  // required: int8/uint8/int16/uint16/int32 (qint* aliases via ParseDataType)
  QuantizeV2Mode mode = QuantizeV2Mode::kMinCombined;
  QuantizeV2RoundMode round_mode = QuantizeV2RoundMode::kHalfAwayFromZero;
  bool narrow_range = false;
  int64_t axis = -1;
  float ensure_minimum_range = 0.01f;
};

// Per-slice constants in structure-of-arrays form. Each pointer advances by `inc`
// (0 or 1) per element of the run. Meaning by mode:
//   MIN_COMBINED: lo = min, hi = max, scale, bias = half_range (signed T only)
//   MIN_FIRST:    lo/hi = clamp bounds of q, scale = s, bias = round(min*s) - float(Tmin)
//   SCALED:       lo = min', hi = max', scale = s
struct QuantizeV2Consts {
  const float* lo;
  const float* hi;
  const float* scale;
  const float* bias;
  int64_t inc;
};

// Quantizes n floats x into y (of type T) with the given constants.
using QuantizeV2Fn = void (*)(int64_t n, const float* x, void* y, const QuantizeV2Consts& c);

namespace ref {
// Reference run kernel for (T, mode, round_mode); nullptr if T is not a QuantizeV2 type.
QuantizeV2Fn QuantizeV2Kernel(DataType T, QuantizeV2Mode mode, QuantizeV2RoundMode round_mode);
}  // namespace ref
namespace avx2 {
// AVX2 run kernel (int8/uint8 T only, else nullptr); bit-identical to the reference.
QuantizeV2Fn QuantizeV2Kernel(DataType T, QuantizeV2Mode mode, QuantizeV2RoundMode round_mode);
}  // namespace avx2

// Run kernel for (T, mode, round_mode) on `isa`; nullptr if T is not a QuantizeV2 type.
// AVX2 kernels exist for int8/uint8; other T use the reference on every ISA.
QuantizeV2Fn SelectQuantizeV2Kernel(DataType T, QuantizeV2Mode mode, QuantizeV2RoundMode round_mode, Isa isa);

struct QuantizeV2Plan {
  QuantizeV2Attrs attrs;
  Dims output_dims;
  Dims output_min_dims;  // [] on the per-tensor path, else [dim(axis)]
  bool per_axis = false;
  int64_t outer = 1, slices = 1, inner = 1;  // input viewed as [outer, slices, inner]
  QuantizeV2Fn kernel = nullptr;
};

// Validates attrs, dtypes and shapes as TensorFlow does (2.1), including qrt's "any
// one-element min/max with axis -1"; computes output shapes and picks the kernel.
StatusOr<QuantizeV2Plan> PrepareQuantizeV2(const QuantizeV2Attrs& attrs, const TensorDesc& input,
                                           const TensorDesc& min_range, const TensorDesc& max_range, Isa isa);

// Quantizes `input` into `output` (plan.attrs.T) and writes output_min/output_max.
// Fails with InvalidArgument, before writing anything, if some max_range < min_range.
Status RunQuantizeV2(const QuantizeV2Plan& plan, const float* input, const float* min_range, const float* max_range,
                     void* output, float* output_min, float* output_max);

}  // namespace qrt
