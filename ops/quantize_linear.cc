// ONNX QuantizeLinear and DequantizeLinear (opsets 10-21): per-tensor, per-axis and
// blocked (opset 21 block_size) scales.
//   QuantizeLinear:   y = saturate(rint(x / scale) + zp)   one f32 division; ties to even;
//                     rounding happens before the zero point is added.
//   DequantizeLinear: y = (float(x) - float(zp)) * scale   f32 ops.
// The quantized types: int8/uint8, int16/uint16 and int4/uint4 (opset 21; 4-bit values one per
// byte in memory), and the 8-bit floats (opset 19: QuantizeLinear converts x / scale with its
// `saturate`, runtime/float8.h).
// And qrt:QuantizeDequantize(x, scale, zp): the pair DequantizeLinear(QuantizeLinear(x)) with
// one per-tensor float32 scale and 8-bit zero point, float32 out (pass fuse-q-dq), exact.
// NaN has no integer value: it takes the type's lowest code, as in ONNX Runtime (whose clamp
// returns the bound for a NaN), never undefined behaviour.
#include "ops/kernels/quantize/quantize_linear.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/quantize_dequantize.h"
#include "runtime/float8.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

// How scale/zero-point elements map onto the data: index = ((o*groups + a/block)*inner + k).
struct QuantLayout {
  int64_t outer = 1, axis_dim = 1, inner = 1;
  int64_t block = 1;   // elements of the axis sharing one scale (blocked layout)
  int64_t groups = 1;  // scale entries along the axis
  bool per_tensor = true;
  bool blocked = false;  // opset-21 block_size: scale has x's rank
};

struct QdqState {
  DataType x_dtype, q_dtype, f_dtype;  // input, quantized type, float type
  QuantLayout layout;
  // float32 data, per-tensor or per-axis: a kernel per contiguous run; else the generic loop.
  QuantizeF32Fn quantize = nullptr;
  DequantizeToF32Fn dequantize = nullptr;
  int threads = 1;
  bool saturate = true;  // 8-bit float outputs: out-of-range values to the largest finite one
};

// Calls fn(offset, count, scale_index) for runs of elements sharing one scale, covering
// the tensor, split across up to `threads` threads when it is large (elements are
// independent, so the split changes no bit).
template <class Fn>
void ForEachRun(const QuantLayout& l, int threads, Fn fn) {
  constexpr int64_t kMinPerThread = 1 << 16;
  if (l.per_tensor) {
    ParallelFor(threads, l.outer, 64, kMinPerThread, [&](int64_t begin, int64_t end) { fn(begin, end - begin, 0); });
    return;
  }
  // Run r covers elements [r * inner, (r + 1) * inner) with scale r % axis_dim.
  ParallelFor(threads, l.outer * l.axis_dim, 1, std::max<int64_t>(1, kMinPerThread / std::max<int64_t>(1, l.inner)),
              [&](int64_t first, int64_t last) {
                for (int64_t r = first; r < last; ++r) fn(r * l.inner, l.inner, r % l.axis_dim);
              });
}

StatusOr<QuantLayout> MakeLayout(const PrepareContext& ctx, const Dims& x, const Dims& scale) {
  QuantLayout l;
  const int64_t rank = int64_t(x.size());
  if (ElementCount(scale) == 1 && scale.size() <= 1) {
    l.outer = ElementCount(x);
    return l;
  }
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 1));
  QRT_ASSIGN_OR_RETURN(int64_t block, ctx.attrs().GetInt("block_size", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  l.per_tensor = false;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < axis) l.outer *= x[size_t(i)];
    if (i > axis) l.inner *= x[size_t(i)];
  }
  l.axis_dim = x[size_t(axis)];
  if (block <= 0) {
    if (scale.size() != 1 || scale[0] != l.axis_dim) {
      return InvalidArgument("per-axis scale must be 1-D of size ", l.axis_dim, " (axis ", axis, "), got ",
                             DimsToString(scale));
    }
    l.groups = l.axis_dim;
    return l;
  }
  if (ctx.opset() < 21) return InvalidArgument("block_size needs opset 21");
  l.blocked = true;
  l.block = block;
  l.groups = (l.axis_dim + block - 1) / block;
  Dims want = x;
  want[size_t(axis)] = l.groups;
  if (scale != want) {
    return InvalidArgument("blocked scale must have shape ", DimsToString(want), ", got ", DimsToString(scale));
  }
  return l;
}

template <class Fn>
void ForEachElement(const QuantLayout& l, Fn fn) {
  if (l.per_tensor) {
    for (int64_t i = 0; i < l.outer; ++i) fn(i, int64_t(0));
    return;
  }
  int64_t i = 0;
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t a = 0; a < l.axis_dim; ++a) {
      if (l.blocked) {
        const int64_t base = (o * l.groups + a / l.block) * l.inner;
        for (int64_t k = 0; k < l.inner; ++k, ++i) fn(i, base + k);
      } else {
        for (int64_t k = 0; k < l.inner; ++k, ++i) fn(i, a);
      }
    }
  }
}

// QuantizeLinear's input: a float type, or int32 (opset 19+), converted to float.
float LoadInputAsFloat(DataType t, const void* p, int64_t i) {
  return t == DataType::kInt32 ? float(static_cast<const int32_t*>(p)[i]) : LoadFloat(t, p, i);
}

int64_t LoadInt(DataType t, const void* p, int64_t i) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kInt4:  // one per byte in memory
      return static_cast<const int8_t*>(p)[i];
    case DataType::kUInt8:
    case DataType::kUInt4:
      return static_cast<const uint8_t*>(p)[i];
    case DataType::kInt16:
      return static_cast<const int16_t*>(p)[i];
    case DataType::kUInt16:
      return static_cast<const uint16_t*>(p)[i];
    case DataType::kInt32:
      return static_cast<const int32_t*>(p)[i];
    default:
      return 0;
  }
}

void IntRange(DataType t, double* lo, double* hi) {
  switch (t) {
    case DataType::kInt8:
      *lo = -128;
      *hi = 127;
      break;
    case DataType::kUInt8:
      *lo = 0;
      *hi = 255;
      break;
    case DataType::kInt16:
      *lo = -32768;
      *hi = 32767;
      break;
    case DataType::kUInt16:
      *lo = 0;
      *hi = 65535;
      break;
    case DataType::kInt4:
      *lo = -8;
      *hi = 7;
      break;
    case DataType::kUInt4:
      *lo = 0;
      *hi = 15;
      break;
    default:
      *lo = -2147483648.0;
      *hi = 2147483647.0;
      break;
  }
}

void StoreInt(DataType t, void* p, int64_t i, int64_t v) {
  switch (t) {
    case DataType::kInt8:
    case DataType::kInt4:
      static_cast<int8_t*>(p)[i] = int8_t(v);
      break;
    case DataType::kUInt8:
    case DataType::kUInt4:
      static_cast<uint8_t*>(p)[i] = uint8_t(v);
      break;
    case DataType::kInt16:
      static_cast<int16_t*>(p)[i] = int16_t(v);
      break;
    case DataType::kUInt16:
      static_cast<uint16_t*>(p)[i] = uint16_t(v);
      break;
    default:
      static_cast<int32_t*>(p)[i] = int32_t(v);
      break;
  }
}

// QuantizeLinear of one value, in the generic loops: saturate(rint(x / scale) + zp), NaN to
// the lowest code, the sum and clamp in double (exact for every quantized type).
int64_t QuantizeValue(float x, float scale, int64_t zp, double lo, double hi) {
  const float q = std::nearbyint(x / scale);
  const double v = double(q) + double(zp);
  return int64_t(v >= lo ? (v > hi ? hi : v) : lo);
}

Status RunQuantize(const QdqState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const Tensor& scale = *args.input(1);
  const Tensor* zp = args.input(2);
  Tensor& y = *args.output(0);
  if (s.quantize) {
    const float* xs = x.data<float>();
    const float* sc = scale.data<float>();
    char* out = static_cast<char*>(y.raw());
    const size_t es = DataTypeSize(s.q_dtype);
    ForEachRun(s.layout, s.threads, [&](int64_t i, int64_t n, int64_t si) {
      s.quantize(n, xs + i, sc[si], zp ? int32_t(LoadInt(s.q_dtype, zp->raw(), si)) : 0, out + i * es);
    });
    return Status::Ok();
  }
  if (IsFloat8Type(s.q_dtype)) {
    // ONNX Runtime converts x / scale and leaves the zero point (which must be 0) out: -0 stays -0.
    uint8_t* out = y.data<uint8_t>();
    ForEachElement(s.layout, [&](int64_t i, int64_t si) {
      out[i] = FloatToFloat8(s.q_dtype, LoadInputAsFloat(s.x_dtype, x.raw(), i) / LoadFloat(s.f_dtype, scale.raw(), si),
                             s.saturate);
    });
    return Status::Ok();
  }
  double lo, hi;
  IntRange(s.q_dtype, &lo, &hi);
  ForEachElement(s.layout, [&](int64_t i, int64_t si) {
    StoreInt(s.q_dtype, y.raw(), i,
             QuantizeValue(LoadInputAsFloat(s.x_dtype, x.raw(), i), LoadFloat(s.f_dtype, scale.raw(), si),
                           zp ? LoadInt(s.q_dtype, zp->raw(), si) : 0, lo, hi));
  });
  return Status::Ok();
}

Status RunDequantize(const QdqState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const Tensor& scale = *args.input(1);
  const Tensor* zp = args.input(2);
  Tensor& y = *args.output(0);
  if (s.dequantize) {
    const char* in = static_cast<const char*>(x.raw());
    const float* sc = scale.data<float>();
    float* out = y.data<float>();
    const size_t es = DataTypeSize(s.q_dtype);
    ForEachRun(s.layout, s.threads, [&](int64_t i, int64_t n, int64_t si) {
      s.dequantize(n, in + i * es, sc[si], zp ? int32_t(LoadInt(s.q_dtype, zp->raw(), si)) : 0, out + i);
    });
    return Status::Ok();
  }
  if (IsFloat8Type(s.q_dtype)) {
    const uint8_t* in = x.data<uint8_t>();
    ForEachElement(s.layout, [&](int64_t i, int64_t si) {
      const float zv = zp ? Float8ToFloat(s.q_dtype, zp->data<uint8_t>()[si]) : 0.f;
      StoreFloat(s.f_dtype, y.raw(), i, (Float8ToFloat(s.q_dtype, in[i]) - zv) * LoadFloat(s.f_dtype, scale.raw(), si));
    });
    return Status::Ok();
  }
  ForEachElement(s.layout, [&](int64_t i, int64_t si) {
    const float xv = float(LoadInt(s.q_dtype, x.raw(), i));
    const float zv = zp ? float(LoadInt(s.q_dtype, zp->raw(), si)) : 0.f;
    StoreFloat(s.f_dtype, y.raw(), i, (xv - zv) * LoadFloat(s.f_dtype, scale.raw(), si));
  });
  return Status::Ok();
}

// The quantized types by opset: 8-bit from 10, the 8-bit floats from 19, 16-bit and 4-bit
// integers from 21. DequantizeLinear (`dequantize`) also takes int32, and 16-bit integers at any
// opset, as qrt always has (ONNX Runtime's quantizer writes them).
Status CheckQuantizedType(const PrepareContext& ctx, DataType q, bool dequantize) {
  const int64_t opset = ctx.opset();
  if (q == DataType::kInt8 || q == DataType::kUInt8) return Status::Ok();
  if (dequantize && (q == DataType::kInt32 || q == DataType::kInt16 || q == DataType::kUInt16)) return Status::Ok();
  if (IsFloat8Type(q)) {
    return opset >= 19 ? Status::Ok() : InvalidArgument(DataTypeName(q), " quantization needs opset 19");
  }
  if (q == DataType::kInt16 || q == DataType::kUInt16 || Is4BitType(q)) {
    return opset >= 21 ? Status::Ok() : InvalidArgument(DataTypeName(q), " quantization needs opset 21");
  }
  return Unsupported("quantized type ", DataTypeName(q));
}

// The zero point at input `scale + 1` (if present) against the scale at `scale`.
Status CheckZeroPoint(const PrepareContext& ctx, DataType q_dtype, int scale = 1) {
  const TensorInfo &zp = ctx.input(scale + 1), &sc = ctx.input(scale);
  if (!ctx.has_input(scale + 1)) return Status::Ok();
  if (zp.dtype != q_dtype) {
    return InvalidArgument("zero point dtype ", DataTypeName(zp.dtype), " differs from ", DataTypeName(q_dtype));
  }
  // A one-element zero point may pair with a one-element scale of another rank ([] vs
  // [1]): both are per-tensor, and ONNX Runtime accepts it (tract_qtdnn_qlinearconv).
  const bool both_scalar =
      ElementCount(zp.dims) == 1 && ElementCount(sc.dims) == 1 && zp.dims.size() <= 1 && sc.dims.size() <= 1;
  if (zp.dims != sc.dims && !both_scalar) {
    return InvalidArgument("zero point shape ", DimsToString(zp.dims), " differs from scale shape ",
                           DimsToString(sc.dims));
  }
  return Status::Ok();
}

Status PrepareQuantize(PrepareContext& ctx) {
  QdqState s;
  s.x_dtype = ctx.input(0).dtype;
  s.f_dtype = ctx.input(1).dtype;
  QRT_RETURN_IF_ERROR(
      ExpectDType(ctx, 0, {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kInt32}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}));
  if (ctx.has_input(2)) {
    s.q_dtype = ctx.input(2).dtype;
  } else {
    QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("output_dtype", 2));
    auto t = DataTypeFromOnnx(int(code));
    if (!t) return Unsupported("output_dtype ", code);
    s.q_dtype = *t;
  }
  QRT_RETURN_IF_ERROR(CheckQuantizedType(ctx, s.q_dtype, /*dequantize=*/false));
  QRT_ASSIGN_OR_RETURN(int64_t saturate, ctx.attrs().GetInt("saturate", 1));
  s.saturate = saturate != 0;
  QRT_RETURN_IF_ERROR(CheckZeroPoint(ctx, s.q_dtype));
  QRT_ASSIGN_OR_RETURN(s.layout, MakeLayout(ctx, ctx.input(0).dims, ctx.input(1).dims));
  if (s.x_dtype == DataType::kFloat32 && s.f_dtype == DataType::kFloat32 && !s.layout.blocked) {
    s.quantize = SelectQuantizeF32(s.q_dtype, ctx.isa());
  }
  ctx.SetOutput(0, s.q_dtype, ctx.input(0).dims);
  s.threads = ctx.threads();
  ctx.SetKernel<QdqState, RunQuantize>(std::move(s));
  return Status::Ok();
}

Status PrepareDequantize(PrepareContext& ctx) {
  QdqState s;
  s.q_dtype = s.x_dtype = ctx.input(0).dtype;
  s.f_dtype = ctx.input(1).dtype;
  QRT_RETURN_IF_ERROR(CheckQuantizedType(ctx, s.q_dtype, /*dequantize=*/true));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16}));
  QRT_RETURN_IF_ERROR(CheckZeroPoint(ctx, s.q_dtype));
  QRT_ASSIGN_OR_RETURN(s.layout, MakeLayout(ctx, ctx.input(0).dims, ctx.input(1).dims));
  if (s.f_dtype == DataType::kFloat32 && !s.layout.blocked) {
    s.dequantize = SelectDequantizeToF32(s.q_dtype, ctx.isa());
  }
  ctx.SetOutput(0, s.f_dtype, ctx.input(0).dims);
  if (s.f_dtype == DataType::kFloat32 && !s.layout.blocked) {
    int64_t axis = -1;
    if (!s.layout.per_tensor) {
      QRT_ASSIGN_OR_RETURN(int64_t a, ctx.attrs().GetInt("axis", 1));
      QRT_ASSIGN_OR_RETURN(axis, NormalizeAxis(a, int64_t(ctx.input(0).dims.size())));
    }
    ctx.SetOutputGrid(0, ConstantGrid(ctx, 1, s.q_dtype, axis));
  }
  s.threads = ctx.threads();
  ctx.SetKernel<QdqState, RunDequantize>(std::move(s));
  return Status::Ok();
}

struct QuantizeDequantizeState {
  DataType x_dtype, q_dtype;
  QuantizeDequantizeF32Fn kernel = nullptr;  // float32 x; else the generic loop
  int threads = 1;
};

Status RunQuantizeDequantize(const QuantizeDequantizeState& s, const RunArgs& args) {
  const Tensor& x = *args.input(qdq::kX);
  float* out = args.output(0)->data<float>();
  const FakeQuantStep fq = FakeQuantFromInputs(args, qdq::kScale, s.kernel);
  if (s.kernel) {
    const float* in = x.data<float>();
    QuantLayout whole;
    whole.outer = x.numel();
    ForEachRun(whole, s.threads,
               [&](int64_t i, int64_t n, int64_t) { fq.map(n, in + i, fq.scale, fq.zero_point, out + i); });
    return Status::Ok();
  }
  // RunQuantize's and RunDequantize's generic loops, one element at a time.
  double lo, hi;
  IntRange(s.q_dtype, &lo, &hi);
  const float z = float(fq.zero_point);
  for (int64_t i = 0; i < x.numel(); ++i) {
    out[i] =
        (float(QuantizeValue(LoadInputAsFloat(s.x_dtype, x.raw(), i), fq.scale, fq.zero_point, lo, hi)) - z) * fq.scale;
  }
  return Status::Ok();
}

Status PrepareQuantizeDequantize(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(
      ExpectDType(ctx, qdq::kX, {DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kInt32}));
  QRT_ASSIGN_OR_RETURN(QuantizeDequantizeF32Fn kernel, PrepareFakeQuant(ctx, qdq::kScale));
  QuantizeDequantizeState s;
  s.x_dtype = ctx.input(qdq::kX).dtype;
  s.q_dtype = ctx.has_input(qdq::kZeroPoint) ? ctx.input(qdq::kZeroPoint).dtype : DataType::kUInt8;
  if (s.x_dtype == DataType::kFloat32) s.kernel = kernel;
  s.threads = ctx.threads();
  ctx.SetOutput(0, DataType::kFloat32, ctx.input(qdq::kX).dims);
  ctx.SetOutputGrid(0, ConstantGrid(ctx, qdq::kScale, s.q_dtype, -1));
  ctx.SetKernel<QuantizeDequantizeState, RunQuantizeDequantize>(std::move(s));
  return Status::Ok();
}

}  // namespace

StatusOr<QuantizeDequantizeF32Fn> PrepareFakeQuant(const PrepareContext& ctx, int scale_input) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, scale_input, {DataType::kFloat32}));
  const DataType q = ctx.has_input(scale_input + 1) ? ctx.input(scale_input + 1).dtype : DataType::kUInt8;
  if (q != DataType::kInt8 && q != DataType::kUInt8) return Unsupported("quantized type ", DataTypeName(q));
  const Dims& scale = ctx.input(scale_input).dims;
  if (ElementCount(scale) != 1 || scale.size() > 1) {
    return InvalidArgument("scale must be one value (per-tensor), got ", DimsToString(scale));
  }
  QRT_RETURN_IF_ERROR(CheckZeroPoint(ctx, q, scale_input));
  return SelectQuantizeDequantizeF32(q, ctx.isa());
}

std::shared_ptr<const QuantGrid> ConstantGrid(const PrepareContext& ctx, int scale_input, DataType q_dtype,
                                              int64_t axis) {
  if (q_dtype != DataType::kUInt8 && q_dtype != DataType::kInt8) return nullptr;
  const Tensor* scale = ctx.input(scale_input).value;
  const Tensor* zp = ctx.input(scale_input + 1).value;
  if (scale == nullptr || scale->dtype() != DataType::kFloat32 || (ctx.has_input(scale_input + 1) && zp == nullptr)) {
    return nullptr;
  }
  auto grid = std::make_shared<QuantGrid>();
  grid->type = q_dtype;
  grid->axis = axis;
  for (int64_t i = 0; i < scale->numel(); ++i) {
    grid->scales.push_back(scale->data<float>()[i]);
    grid->zero_points.push_back(zp != nullptr ? int32_t(LoadInt(q_dtype, zp->raw(), i)) : 0);
  }
  if (grid->scales.empty() || (axis < 0 && grid->scales.size() != 1)) return nullptr;
  return grid;
}

FakeQuantStep FakeQuantFromInputs(const RunArgs& args, int scale_input, QuantizeDequantizeF32Fn map) {
  const Tensor* zp = args.input(scale_input + 1);
  FakeQuantStep e;
  e.map = map;
  e.scale = args.input(scale_input)->data<float>()[0];
  e.zero_point = zp ? int32_t(LoadInt(zp->dtype(), zp->raw(), 0)) : 0;
  return e;
}

const OpDef kQuantizeDequantizeOp{"qrt", "QuantizeDequantize",     qdq::kScale + 1, qdq::kInputCount, 1,
                                  1,     PrepareQuantizeDequantize};
const OpDef kQuantizeLinearOp{"", "QuantizeLinear", 2, 3, 1, 1, PrepareQuantize};
const OpDef kDequantizeLinearOp{"", "DequantizeLinear", 2, 3, 1, 1, PrepareDequantize};

}  // namespace qrt
