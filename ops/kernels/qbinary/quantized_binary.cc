// QuantizedMul / QuantizedAdd: validation, broadcast plan, parameter derivation and the loop.
#include "ops/kernels/qbinary/quantized_binary.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "runtime/kernel_isa.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

// 16-bit operands serve fused opset-21 DequantizeLinear -> Mul/Add -> QuantizeLinear chains.
bool IsOperandType(DataType t) {
  return t == DataType::kUInt8 || t == DataType::kInt8 || t == DataType::kUInt16 || t == DataType::kInt16 ||
         t == DataType::kFloat32;
}
bool Is8Bit(DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; }
bool Present(const TensorDesc& d) { return d.dtype != DataType::kUndefined; }

const char* OpName(QuantizedBinaryOp op) { return op == QuantizedBinaryOp::kMul ? "QuantizedMul" : "QuantizedAdd"; }

// Validates one operand's scale and zero point; returns the dims of its parameter operand
// for the loop ([] per-tensor; per-axis: ones except dim(axis), at the operand's rank).
StatusOr<Dims> CheckOperandParams(const char* op, const char* name, const TensorDesc& x, const TensorDesc& scale,
                                  const TensorDesc& zero, const std::optional<int64_t>& axis, Requantize rule) {
  if (!IsOperandType(x.dtype)) {
    return InvalidArgument(op, ": ", name, " dtype must be uint8, int8, uint16, int16 or float32, got ",
                           DataTypeName(x.dtype));
  }
  if (Present(scale) && scale.dtype != DataType::kFloat32) {
    return InvalidArgument(op, ": ", name, "_scale must be float32, got ", DataTypeName(scale.dtype));
  }
  if (Present(zero) && zero.dtype != x.dtype) {
    return InvalidArgument(op, ": ", name, "_zero_point dtype ", DataTypeName(zero.dtype), " differs from ", name,
                           " dtype ", DataTypeName(x.dtype));
  }
  if (Present(scale) && Present(zero) && scale.dims != zero.dims) {
    return InvalidArgument(op, ": ", name, "_scale ", DimsToString(scale.dims), " and ", name, "_zero_point ",
                           DimsToString(zero.dims), " must have the same shape");
  }
  if (!axis.has_value()) {
    for (const TensorDesc* d : {&scale, &zero}) {
      if (Present(*d) && ElementCount(d->dims) != 1) {
        return InvalidArgument(op, ": per-tensor ", name, (d == &scale ? "_scale" : "_zero_point"),
                               " must have one element, got shape ", DimsToString(d->dims), " (set ", name,
                               "_axis for per-axis parameters)");
      }
    }
    return Dims{};
  }
  if (rule == Requantize::kCombined) {
    return InvalidArgument(op, ": requantize 'combined' needs per-tensor parameters, but ", name, "_axis is set");
  }
  if (x.dtype == DataType::kFloat32) {
    return InvalidArgument(op, ": ", name, "_axis is set but ", name, " is float32 (its scale is ignored)");
  }
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  int64_t ax = *axis;
  if (ax < -rank || ax >= rank) {
    return InvalidArgument(op, ": ", name, "_axis ", ax, " is out of range for ", name, " of rank ", rank);
  }
  if (ax < 0) ax += rank;
  if (!Present(scale)) return InvalidArgument(op, ": ", name, "_axis is set but ", name, "_scale is absent");
  if (scale.dims.size() != 1 || scale.dims[0] != x.dims[ax]) {
    return InvalidArgument(op, ": per-axis ", name, "_scale must be 1-D of length dim(", name, "_axis) = ", x.dims[ax],
                           ", got shape ", DimsToString(scale.dims));
  }
  Dims d(x.dims.size(), 1);
  d[ax] = x.dims[ax];
  return d;
}

int32_t ZeroPointAt(DataType t, const void* zp, int64_t i) {
  if (zp == nullptr) return 0;
  switch (t) {
    case DataType::kUInt8:
      return static_cast<const uint8_t*>(zp)[i];
    case DataType::kInt8:
      return static_cast<const int8_t*>(zp)[i];
    case DataType::kUInt16:
      return static_cast<const uint16_t*>(zp)[i];
    case DataType::kInt16:
      return static_cast<const int16_t*>(zp)[i];
    default:
      return 0;  // float operands ignore their zero point
  }
}

// Largest |scale| over the operand's (per-tensor or per-axis) scales; NaN/inf -> inf.
double MaxAbsScale(const float* scale, int64_t n, bool per_axis, float per_tensor) {
  if (!per_axis) return std::isfinite(per_tensor) ? std::fabs(per_tensor) : HUGE_VAL;
  double m = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(scale[i])) return HUGE_VAL;
    m = std::max(m, std::fabs(static_cast<double>(scale[i])));
  }
  return m;
}

// True if, for every possible 8-bit input, the value rounded to an integer is finite and
// below 2^30 in magnitude. The bound over-estimates each f32 rounding by a factor 1.001.
bool ProvablyBounded(const QuantizedBinaryPlan& plan, const QuantizedBinaryData& d, const QuantizedBinaryParams& p) {
  if (!Is8Bit(plan.a_dtype) || !Is8Bit(plan.b_dtype) || !Is8Bit(plan.c_dtype)) return false;
  const double slack = 1.001;
  double bound;
  if (plan.rule == Requantize::kCombined) {
    if (plan.op == QuantizedBinaryOp::kMul) {
      bound = (65025.0 * std::fabs(static_cast<double>(p.ratio)) + 255.0) * slack;
    } else {
      bound = (255.0 * std::fabs(static_cast<double>(p.ratio_a)) + 255.0 * std::fabs(static_cast<double>(p.ratio_b)) +
               std::fabs(static_cast<double>(p.bias))) *
              slack;
    }
  } else {
    const int64_t na = plan.a_per_axis ? ElementCount(plan.a_scale_dims) : 1;
    const int64_t nb = plan.b_per_axis ? ElementCount(plan.b_scale_dims) : 1;
    const double ma = 255.0 * MaxAbsScale(d.a_scale, na, plan.a_per_axis, p.a_scale) * slack;
    const double mb = 255.0 * MaxAbsScale(d.b_scale, nb, plan.b_per_axis, p.b_scale) * slack;
    const double v = (plan.op == QuantizedBinaryOp::kMul ? ma * mb : ma + mb) * slack;
    const double r = plan.rule == Requantize::kDivide ? 1.0 / std::fabs(static_cast<double>(p.c_scale))
                                                      : std::fabs(static_cast<double>(p.c_norm));
    bound = v * r * slack;
  }
  return std::isfinite(bound) && bound < 1073741824.0;  // 2^30
}

StatusOr<QuantizedBinaryPlan> Prepare(QuantizedBinaryOp op, const QuantizedBinaryAttrs& attrs,
                                      const QuantizedBinaryDescs& in, Isa isa) {
  const char* name = OpName(op);
  QuantizedBinaryPlan plan;
  plan.op = op;
  plan.rule = attrs.requantize;

  // Output dtype: the attribute, else C_zero_point's dtype, else uint8.
  DataType c = attrs.output_dtype;
  if (c != DataType::kUndefined && !IsOperandType(c)) {
    return InvalidArgument(name, ": output_dtype must be uint8, int8, uint16, int16 or float32, got ", DataTypeName(c));
  }
  if (Present(in.c_zero_point)) {
    if (!IsOperandType(in.c_zero_point.dtype)) {
      return InvalidArgument(name, ": C_zero_point dtype must be uint8, int8, uint16, int16 or float32, got ",
                             DataTypeName(in.c_zero_point.dtype));
    }
    if (c != DataType::kUndefined && c != in.c_zero_point.dtype) {
      return InvalidArgument(name, ": output_dtype ", DataTypeName(c), " differs from C_zero_point dtype ",
                             DataTypeName(in.c_zero_point.dtype));
    }
    c = in.c_zero_point.dtype;
  }
  if (c == DataType::kUndefined) c = DataType::kUInt8;
  for (const TensorDesc* d : {&in.c_scale, &in.c_zero_point}) {
    if (Present(*d) && ElementCount(d->dims) != 1) {
      return InvalidArgument(name, ": ", (d == &in.c_scale ? "C_scale" : "C_zero_point"),
                             " must have one element, got shape ", DimsToString(d->dims));
    }
  }
  if (Present(in.c_scale) && in.c_scale.dtype != DataType::kFloat32) {
    return InvalidArgument(name, ": C_scale must be float32, got ", DataTypeName(in.c_scale.dtype));
  }

  QRT_ASSIGN_OR_RETURN(
      Dims a_params, CheckOperandParams(name, "A", in.a, in.a_scale, in.a_zero_point, attrs.a_axis, attrs.requantize));
  QRT_ASSIGN_OR_RETURN(
      Dims b_params, CheckOperandParams(name, "B", in.b, in.b_scale, in.b_zero_point, attrs.b_axis, attrs.requantize));
  if (attrs.requantize == Requantize::kCombined && !(Is8Bit(in.a.dtype) && Is8Bit(in.b.dtype) && Is8Bit(c))) {
    return InvalidArgument(name, ": requantize 'combined' needs 8-bit A, B and C, got ", DataTypeName(in.a.dtype), ", ",
                           DataTypeName(in.b.dtype), " -> ", DataTypeName(c));
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(in.a.dims, DataTypeSize(in.a.dtype)).status());
  QRT_RETURN_IF_ERROR(CheckedElementCount(in.b.dims, DataTypeSize(in.b.dtype)).status());
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(in.a.dims, in.b.dims));
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(c)).status());

  plan.a_dtype = in.a.dtype;
  plan.b_dtype = in.b.dtype;
  plan.c_dtype = c;
  plan.a_per_axis = attrs.a_axis.has_value();
  plan.b_per_axis = attrs.b_axis.has_value();
  plan.a_has_zero = Present(in.a_zero_point);
  plan.b_has_zero = Present(in.b_zero_point);
  plan.c_has_zero = Present(in.c_zero_point);
  plan.out_dims = out;
  plan.a_scale_dims = in.a_scale.dims;
  plan.b_scale_dims = in.b_scale.dims;
  // Parameter operands use A's / B's right alignment; they must stay constant within a run.
  plan.loop = MakeStridedLoop({in.a.dims, in.b.dims, a_params, b_params, out}, out,
                              {false, false, plan.a_per_axis, plan.b_per_axis, false});
  plan.kernel = SelectQuantizedBinaryKernel(op, attrs.requantize, in.a.dtype, in.b.dtype, c, isa);
  if (plan.kernel == nullptr) {
    return Unsupported(name, ": no kernel for ", DataTypeName(in.a.dtype), " x ", DataTypeName(in.b.dtype), " -> ",
                       DataTypeName(c));
  }
  return plan;
}

}  // namespace

StatusOr<Requantize> ParseRequantize(std::string_view name) {
  if (name == "reciprocal") return Requantize::kReciprocal;
  if (name == "divide") return Requantize::kDivide;
  if (name == "combined") return Requantize::kCombined;
  return InvalidArgument("unknown requantize rule '", name, "' (expected reciprocal, divide or combined)");
}

std::string_view RequantizeName(Requantize rule) {
  switch (rule) {
    case Requantize::kReciprocal:
      return "reciprocal";
    case Requantize::kDivide:
      return "divide";
    case Requantize::kCombined:
      return "combined";
  }
  return "reciprocal";
}

QuantizedBinaryFn SelectQuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c,
                                              Isa isa) {
  if (CanUseAvx2(isa)) {
    if (CanUseAvx512Vbmi(isa)) {
      if (QuantizedBinaryFn f = PickedAt(Isa::kAvx512, avx512::QuantizedBinaryKernel(op, rule, a, b, c))) return f;
    }
    if (QuantizedBinaryFn f = PickedAt(Isa::kAvx2, avx2::QuantizedBinaryKernel(op, rule, a, b, c))) return f;
  }
  return ref::QuantizedBinaryKernel(op, rule, a, b, c);
}

StatusOr<QuantizedBinaryPlan> PrepareQuantizedMul(const QuantizedBinaryAttrs& attrs, const QuantizedBinaryDescs& in,
                                                  Isa isa) {
  return Prepare(QuantizedBinaryOp::kMul, attrs, in, isa);
}

StatusOr<QuantizedBinaryPlan> PrepareQuantizedAdd(const QuantizedBinaryAttrs& attrs, const QuantizedBinaryDescs& in,
                                                  Isa isa) {
  return Prepare(QuantizedBinaryOp::kAdd, attrs, in, isa);
}

Status RunQuantizedBinary(const QuantizedBinaryPlan& plan, const QuantizedBinaryData& d) {
  QuantizedBinaryParams p{};
  p.a_scale = (d.a_scale != nullptr && !plan.a_per_axis) ? d.a_scale[0] : 1.0f;
  p.b_scale = (d.b_scale != nullptr && !plan.b_per_axis) ? d.b_scale[0] : 1.0f;
  p.c_scale = d.c_scale != nullptr ? d.c_scale[0] : 1.0f;
  p.a_zero = plan.a_per_axis ? 0 : ZeroPointAt(plan.a_dtype, d.a_zero_point, 0);
  p.b_zero = plan.b_per_axis ? 0 : ZeroPointAt(plan.b_dtype, d.b_zero_point, 0);
  p.c_zero = ZeroPointAt(plan.c_dtype, d.c_zero_point, 0);
  p.c_norm = 1.0f / p.c_scale;
  p.ratio = (p.a_scale * p.b_scale) / p.c_scale;
  p.ratio_a = p.a_scale / p.c_scale;
  p.ratio_b = p.b_scale / p.c_scale;
  p.bias = static_cast<float>(p.c_zero) -
           (p.ratio_a * static_cast<float>(p.a_zero) + p.ratio_b * static_cast<float>(p.b_zero));
  p.bounded = ProvablyBounded(plan, d, p);
  const size_t sa = DataTypeSize(plan.a_dtype), sb = DataTypeSize(plan.b_dtype), sc = DataTypeSize(plan.c_dtype);
  p.stream_output = ElementCount(plan.out_dims) * static_cast<int64_t>(sc) >= (int64_t{1} << 22);
  const char* a = static_cast<const char*>(d.a);
  const char* b = static_cast<const char*>(d.b);
  char* c = static_cast<char*>(d.c);
  const StridedLoop& loop = plan.loop;
  const bool per_axis = plan.a_per_axis || plan.b_per_axis;
  auto run = [&](const int64_t* off) {
    if (!per_axis) {
      plan.kernel(loop.inner, a + off[0] * sa, loop.inner_inc[0], b + off[1] * sb, loop.inner_inc[1], c + off[4] * sc,
                  p);
      return;
    }
    QuantizedBinaryParams q = p;
    if (plan.a_per_axis) {
      q.a_scale = d.a_scale[off[2]];
      q.a_zero = ZeroPointAt(plan.a_dtype, d.a_zero_point, off[2]);
    }
    if (plan.b_per_axis) {
      q.b_scale = d.b_scale[off[3]];
      q.b_zero = ZeroPointAt(plan.b_dtype, d.b_zero_point, off[3]);
    }
    plan.kernel(loop.inner, a + off[0] * sa, loop.inner_inc[0], b + off[1] * sb, loop.inner_inc[1], c + off[4] * sc, q);
  };
  // Elements are independent, so splitting the output changes no bit. Below about 64K
  // elements per thread the wake-up costs more than it saves.
  constexpr int64_t kMinPerThread = 1 << 16;
  if (plan.threads > 1 && loop.num_runs == 1 && !per_axis) {
    ParallelFor(plan.threads, loop.inner, 64, kMinPerThread, [&](int64_t begin, int64_t end) {
      plan.kernel(end - begin, a + begin * loop.inner_inc[0] * sa, loop.inner_inc[0],
                  b + begin * loop.inner_inc[1] * sb, loop.inner_inc[1], c + begin * sc, p);
    });
  } else if (plan.threads > 1) {
    const int64_t runs_per_thread = std::max<int64_t>(1, kMinPerThread / std::max<int64_t>(1, loop.inner));
    ParallelFor(plan.threads, loop.num_runs, 1, runs_per_thread,
                [&](int64_t first, int64_t last) { ForEachRunIn(loop, first, last, run); });
  } else {
    ForEachRun(loop, run);
  }
  return Status::Ok();
}

}  // namespace qrt
