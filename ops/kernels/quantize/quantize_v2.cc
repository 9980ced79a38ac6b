// QuantizeV2: validation (op-semantics.md 2.1), per-slice constants (2.2-2.5) and the loop.
#include "ops/kernels/quantize/quantize_v2.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "runtime/kernel_isa.h"

namespace qrt {
namespace {

struct TypeRange {
  int64_t min, max;
  int bits;
};

bool QuantizeV2TypeRange(DataType t, TypeRange* r) {
  switch (t) {
    case DataType::kInt8:
      *r = {-128, 127, 8};
      return true;
    case DataType::kUInt8:
      *r = {0, 255, 8};
      return true;
    case DataType::kInt16:
      *r = {-32768, 32767, 16};
      return true;
    case DataType::kUInt16:
      *r = {0, 65535, 16};
      return true;
    case DataType::kInt32:
      *r = {INT64_C(-2147483648), 2147483647, 32};
      return true;
    default:
      return false;
  }
}

const char* ModeName(QuantizeV2Mode m) {
  switch (m) {
    case QuantizeV2Mode::kMinCombined:
      return "MIN_COMBINED";
    case QuantizeV2Mode::kMinFirst:
      return "MIN_FIRST";
    case QuantizeV2Mode::kScaled:
      return "SCALED";
  }
  return "?";
}

struct SliceConsts {
  float lo, hi, scale, bias;  // QuantizeV2Consts meaning
  float out_min, out_max;
};

// Section 2.2 and the mode's constants, one f32 (or stated f64) op at a time.
SliceConsts ComputeSlice(const QuantizeV2Attrs& a, const TypeRange& t, float in_min, float in_max) {
  const float min_range = std::min(0.0f, in_min);
  const float eps = std::max(1.0f, std::max(std::fabs(in_min), std::fabs(in_max))) * a.ensure_minimum_range;
  const float max_range = std::max(0.0f, std::max(in_max, min_range + eps));
  SliceConsts s{};
  switch (a.mode) {
    case QuantizeV2Mode::kMinCombined: {
      s.lo = min_range;
      s.hi = max_range;
      s.scale = static_cast<float>((static_cast<double>(t.max) - static_cast<double>(t.min)) /
                                   static_cast<double>(max_range - min_range));
      s.bias = static_cast<float>((static_cast<double>(t.max) - static_cast<double>(t.min) + 1.0) / 2.0);
      s.out_min = min_range;
      s.out_max = max_range;
      break;
    }
    case QuantizeV2Mode::kMinFirst: {
      const double levels = std::ldexp(1.0, t.bits);
      const float range_scale = (max_range == min_range)
                                    ? 0.0f
                                    : static_cast<float>((levels - 1.0) / static_cast<double>(max_range - min_range));
      const float rms = std::round(min_range * range_scale);
      s.scale = range_scale;
      s.bias = rms - static_cast<float>(t.min);
      s.lo = std::max(static_cast<float>(t.min), -2147483648.0f);
      s.hi = std::min(static_cast<float>(t.max), 2147483520.0f);
      s.out_min = min_range;
      s.out_max = max_range;
      break;
    }
    case QuantizeV2Mode::kScaled: {
      const int64_t min_t = t.min + (a.narrow_range ? 1 : 0);
      const float fmin_t = static_cast<float>(min_t), fmax_t = static_cast<float>(t.max);
      const float s_min = (fmin_t * min_range > 0) ? fmin_t / min_range : FLT_MAX;
      const float s_max = (fmax_t * max_range > 0) ? fmax_t / max_range : FLT_MAX;
      s.scale = std::min(s_min, s_max);
      s.lo = fmin_t / s.scale;
      s.hi = fmax_t / s.scale;
      s.bias = 0.0f;
      s.out_min = s.lo;
      s.out_max = s.hi;
      break;
    }
  }
  return s;
}

}  // namespace

StatusOr<QuantizeV2Mode> ParseQuantizeV2Mode(std::string_view name) {
  if (name == "MIN_COMBINED") return QuantizeV2Mode::kMinCombined;
  if (name == "MIN_FIRST") return QuantizeV2Mode::kMinFirst;
  if (name == "SCALED") return QuantizeV2Mode::kScaled;
  return InvalidArgument("QuantizeV2: unknown mode '", name, "' (expected MIN_COMBINED, MIN_FIRST or SCALED)");
}

StatusOr<QuantizeV2RoundMode> ParseQuantizeV2RoundMode(std::string_view name) {
  if (name == "HALF_AWAY_FROM_ZERO") return QuantizeV2RoundMode::kHalfAwayFromZero;
  if (name == "HALF_TO_EVEN") return QuantizeV2RoundMode::kHalfToEven;
  return InvalidArgument("QuantizeV2: unknown round_mode '", name, "' (expected HALF_AWAY_FROM_ZERO or HALF_TO_EVEN)");
}

QuantizeV2Fn SelectQuantizeV2Kernel(DataType T, QuantizeV2Mode mode, QuantizeV2RoundMode round_mode, Isa isa) {
  if (CanUseAvx2(isa)) {
    if (QuantizeV2Fn f = PickedAt(Isa::kAvx2, avx2::QuantizeV2Kernel(T, mode, round_mode))) return f;
  }
  return ref::QuantizeV2Kernel(T, mode, round_mode);
}

StatusOr<QuantizeV2Plan> PrepareQuantizeV2(const QuantizeV2Attrs& attrs, const TensorDesc& input,
                                           const TensorDesc& min_range, const TensorDesc& max_range, Isa isa) {
  TypeRange t{0, 0, 0};
  if (!QuantizeV2TypeRange(attrs.T, &t)) {
    return InvalidArgument("QuantizeV2: T must be one of qint8, quint8, qint16, quint16, qint32, got ",
                           DataTypeName(attrs.T));
  }
  if (input.dtype != DataType::kFloat32 || min_range.dtype != DataType::kFloat32 ||
      max_range.dtype != DataType::kFloat32) {
    return InvalidArgument("QuantizeV2: input, min_range and max_range must be float32, got ",
                           DataTypeName(input.dtype), ", ", DataTypeName(min_range.dtype), ", ",
                           DataTypeName(max_range.dtype));
  }
  if (attrs.round_mode == QuantizeV2RoundMode::kHalfToEven && attrs.mode != QuantizeV2Mode::kScaled) {
    return InvalidArgument("QuantizeV2: round_mode HALF_TO_EVEN is only supported with mode SCALED, but mode is ",
                           ModeName(attrs.mode));
  }
  if (attrs.axis < -1) return InvalidArgument("QuantizeV2: axis should be at least -1, got ", attrs.axis);
  QRT_ASSIGN_OR_RETURN(const int64_t total, CheckedElementCount(input.dims, sizeof(float)));
  (void)total;
  QRT_RETURN_IF_ERROR(CheckedElementCount(min_range.dims, sizeof(float)).status());
  QRT_RETURN_IF_ERROR(CheckedElementCount(max_range.dims, sizeof(float)).status());

  QuantizeV2Plan plan;
  plan.attrs = attrs;
  plan.output_dims = input.dims;
  plan.kernel = SelectQuantizeV2Kernel(attrs.T, attrs.mode, attrs.round_mode, isa);
  const int64_t rank = static_cast<int64_t>(input.dims.size());
  if (attrs.axis > -1) {
    if (rank <= attrs.axis) {
      return InvalidArgument(
          "QuantizeV2: axis is on a zero-based index, so its value should always be less "
          "than the number of input dims (",
          rank, "), but given axis value: ", attrs.axis);
    }
    const int64_t depth = input.dims[attrs.axis];
    const TensorDesc* r[2] = {&min_range, &max_range};
    const char* names[2] = {"min_range", "max_range"};
    for (int k = 0; k < 2; ++k) {
      if (r[k]->dims.size() != 1 || r[k]->dims[0] != depth) {
        return InvalidArgument("QuantizeV2: if axis is specified, ", names[k],
                               " must be a 1-D tensor whose size matches the axis dimension of the input "
                               "and output tensors (",
                               depth, "), got shape ", DimsToString(r[k]->dims));
      }
    }
    plan.outer = ElementCount(Dims(input.dims.begin(), input.dims.begin() + attrs.axis));
    plan.slices = depth;
    plan.inner = ElementCount(Dims(input.dims.begin() + attrs.axis + 1, input.dims.end()));
    plan.per_axis = depth != 1;  // dim(axis) == 1 takes TF's per-tensor path
  } else {
    if (ElementCount(min_range.dims) != 1) {
      return InvalidArgument(
          "QuantizeV2: if axis is not specified, min_range must contain a single float "
          "element, got shape ",
          DimsToString(min_range.dims));
    }
    if (ElementCount(max_range.dims) != 1) {
      return InvalidArgument(
          "QuantizeV2: if axis is not specified, max_range must contain a single float "
          "element, got shape ",
          DimsToString(max_range.dims));
    }
  }
  if (plan.per_axis) {
    if (attrs.mode == QuantizeV2Mode::kMinFirst) {
      return Unsupported(
          "QuantizeV2: MIN_FIRST mode is not implemented for Quantize with axis != -1 "
          "and more than one slice (dim(axis) = ",
          plan.slices, ")");
    }
    plan.output_min_dims = min_range.dims;
  } else {
    plan.outer = 1;
    plan.slices = 1;
    plan.inner = ElementCount(input.dims);
    plan.output_min_dims = {};
  }
  return plan;
}

Status RunQuantizeV2(const QuantizeV2Plan& plan, const float* input, const float* min_range, const float* max_range,
                     void* output, float* output_min, float* output_max) {
  for (int64_t c = 0; c < plan.slices; ++c) {
    if (max_range[c] < min_range[c]) {
      return InvalidArgument("QuantizeV2: input_max_range must be larger than input_min_range (slice ", c, ": min ",
                             min_range[c], ", max ", max_range[c], ")");
    }
  }
  TypeRange t{0, 0, 0};
  if (!QuantizeV2TypeRange(plan.attrs.T, &t)) return Internal("QuantizeV2: plan has an invalid T");
  const size_t es = DataTypeSize(plan.attrs.T);
  char* out = static_cast<char*>(output);

  // Constants for up to kChunk slices at a time, so Run allocates nothing.
  constexpr int64_t kChunk = 256;
  float lo[kChunk], hi[kChunk], scale[kChunk], bias[kChunk];
  for (int64_t c0 = 0; c0 < plan.slices; c0 += kChunk) {
    const int64_t len = std::min(kChunk, plan.slices - c0);
    for (int64_t j = 0; j < len; ++j) {
      const SliceConsts s = ComputeSlice(plan.attrs, t, min_range[c0 + j], max_range[c0 + j]);
      lo[j] = s.lo;
      hi[j] = s.hi;
      scale[j] = s.scale;
      bias[j] = s.bias;
      output_min[c0 + j] = s.out_min;
      output_max[c0 + j] = s.out_max;
    }
    if (plan.inner == 1) {  // constants vary element by element along the run
      const QuantizeV2Consts k{lo, hi, scale, bias, 1};
      for (int64_t o = 0; o < plan.outer; ++o) {
        const int64_t e = o * plan.slices + c0;
        plan.kernel(len, input + e, out + e * es, k);
      }
    } else {
      for (int64_t o = 0; o < plan.outer; ++o) {
        for (int64_t j = 0; j < len; ++j) {
          const QuantizeV2Consts k{lo + j, hi + j, scale + j, bias + j, 0};
          const int64_t e = (o * plan.slices + c0 + j) * plan.inner;
          plan.kernel(plan.inner, input + e, out + e * es, k);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace qrt
