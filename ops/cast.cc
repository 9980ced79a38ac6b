// Cast and CastLike between every qrt dtype. Float -> integer truncates toward zero
// and saturates at the target's limits (NaN gives 0): ONNX leaves out-of-range
// conversions undefined, and qrt must not be. Float -> float16/bfloat16 rounds to
// nearest even, to the 8-bit floats as ONNX Runtime does (runtime/float8.h; `saturate`, opset
// 19). Anything -> bool is `!= 0`. The 4-bit integers are refused.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime/float8.h"

namespace qrt {
namespace {

struct CastState {
  DataType from, to;
  bool saturate = true;  // opset 19: out-of-range values to 8-bit floats
};

// Reads element i as the widest exact type: double for floats, int64 for integers.
struct Scalar {
  bool is_float;
  double f;
  int64_t i;
};

Scalar Load(DataType t, const void* p, int64_t i) {
  switch (t) {
    case DataType::kFloat32:
      return {true, static_cast<const float*>(p)[i], 0};
    case DataType::kFloat64:
      return {true, static_cast<const double*>(p)[i], 0};
    case DataType::kFloat16:
      return {true, HalfToFloat(static_cast<const uint16_t*>(p)[i]), 0};
    case DataType::kBFloat16:
      return {true, BFloat16ToFloat(static_cast<const uint16_t*>(p)[i]), 0};
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return {true, Float8ToFloat(t, static_cast<const uint8_t*>(p)[i]), 0};
    case DataType::kBool:
      return {false, 0, static_cast<const uint8_t*>(p)[i] ? 1 : 0};
    case DataType::kInt8:
    case DataType::kInt4:
      return {false, 0, static_cast<const int8_t*>(p)[i]};
    case DataType::kUInt8:
    case DataType::kUInt4:
      return {false, 0, static_cast<const uint8_t*>(p)[i]};
    case DataType::kInt16:
      return {false, 0, static_cast<const int16_t*>(p)[i]};
    case DataType::kUInt16:
      return {false, 0, static_cast<const uint16_t*>(p)[i]};
    case DataType::kInt32:
      return {false, 0, static_cast<const int32_t*>(p)[i]};
    case DataType::kInt64:
      return {false, 0, static_cast<const int64_t*>(p)[i]};
    case DataType::kUInt32:
      return {false, 0, static_cast<const uint32_t*>(p)[i]};
    case DataType::kUInt64:  // above INT64_MAX: wraps, as a two's-complement reinterpretation
      return {false, 0, int64_t(static_cast<const uint64_t*>(p)[i])};
    case DataType::kUndefined:
      break;
  }
  return {false, 0, 0};
}

template <class T>
T ToInt(const Scalar& s) {
  if (!s.is_float) return T(s.i);  // modular narrowing, as C casts do on two's complement
  if (std::isnan(s.f)) return T(0);
  const double lo = double(std::numeric_limits<T>::lowest());
  const double hi = double(std::numeric_limits<T>::max());
  double t = std::trunc(s.f);
  if (t <= lo) return std::numeric_limits<T>::lowest();
  if (t >= hi) return std::numeric_limits<T>::max();
  return T(t);
}

void Store(DataType t, void* p, int64_t i, const Scalar& s, bool saturate) {
  switch (t) {
    case DataType::kFloat32:
      // int64 -> float directly: going through double would round twice.
      static_cast<float*>(p)[i] = s.is_float ? float(s.f) : float(s.i);
      break;
    case DataType::kFloat64:
      static_cast<double*>(p)[i] = s.is_float ? s.f : double(s.i);
      break;
    case DataType::kFloat16:
      static_cast<uint16_t*>(p)[i] = FloatToHalf(s.is_float ? float(s.f) : float(s.i));
      break;
    case DataType::kBFloat16:
      static_cast<uint16_t*>(p)[i] = FloatToBFloat16(s.is_float ? float(s.f) : float(s.i));
      break;
    case DataType::kBool:
      static_cast<uint8_t*>(p)[i] = s.is_float ? (s.f != 0) : (s.i != 0);
      break;
    case DataType::kInt8:
      static_cast<int8_t*>(p)[i] = ToInt<int8_t>(s);
      break;
    case DataType::kUInt8:
      static_cast<uint8_t*>(p)[i] = ToInt<uint8_t>(s);
      break;
    case DataType::kInt16:
      static_cast<int16_t*>(p)[i] = ToInt<int16_t>(s);
      break;
    case DataType::kUInt16:
      static_cast<uint16_t*>(p)[i] = ToInt<uint16_t>(s);
      break;
    case DataType::kInt32:
      static_cast<int32_t*>(p)[i] = ToInt<int32_t>(s);
      break;
    case DataType::kInt64:
      static_cast<int64_t*>(p)[i] = ToInt<int64_t>(s);
      break;
    case DataType::kUInt32:
      static_cast<uint32_t*>(p)[i] = ToInt<uint32_t>(s);
      break;
    case DataType::kUInt64:
      static_cast<uint64_t*>(p)[i] = ToInt<uint64_t>(s);
      break;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      static_cast<uint8_t*>(p)[i] = FloatToFloat8(t, s.is_float ? float(s.f) : float(s.i), saturate);
      break;
    case DataType::kInt4:  // refused by Finish
    case DataType::kUInt4:
    case DataType::kUndefined:
      break;
  }
}

Status RunCast(const CastState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  Tensor& y = *args.output(0);
  const int64_t n = x.numel();
  if (s.from == DataType::kFloat32 && s.to == DataType::kFloat16) {
    for (int64_t i = 0; i < n; ++i) y.data<uint16_t>()[i] = FloatToHalf(x.data<float>()[i]);
    return Status::Ok();
  }
  for (int64_t i = 0; i < n; ++i) Store(s.to, y.raw(), i, Load(s.from, x.raw(), i), s.saturate);
  return Status::Ok();
}

Status Finish(PrepareContext& ctx, DataType to) {
  if (Is4BitType(to) || Is4BitType(ctx.input(0).dtype)) {
    return Unsupported("Cast to or from ", DataTypeName(Is4BitType(to) ? to : ctx.input(0).dtype));
  }
  QRT_ASSIGN_OR_RETURN(int64_t saturate, ctx.attrs().GetInt("saturate", 1));
  CastState s{ctx.input(0).dtype, to, saturate != 0};
  ctx.SetOutput(0, to, ctx.input(0).dims);
  ctx.SetKernel<CastState, RunCast>(s);
  return Status::Ok();
}

Status PrepareCast(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("to"));
  std::optional<DataType> to = DataTypeFromOnnx(int(code));
  if (!to) return Unsupported("Cast to ONNX data type ", code);
  return Finish(ctx, *to);
}

Status PrepareCastLike(PrepareContext& ctx) { return Finish(ctx, ctx.input(1).dtype); }

}  // namespace

const OpDef kCastOp{"", "Cast", 1, 1, 1, 1, PrepareCast};
const OpDef kCastLikeOp{"", "CastLike", 2, 2, 1, 1, PrepareCastLike};

}  // namespace qrt
