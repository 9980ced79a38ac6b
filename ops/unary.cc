// Element-wise unary float ops: Relu, Sigmoid, Tanh, Exp, Neg, Abs, Sqrt, LeakyRelu,
// HardSigmoid, Clip. float32 and float64 compute in their own type; float16 and
// bfloat16 compute in float32 and round once. Relu, Neg, Abs and Clip also take
// integer tensors. Each function below is the reference: one libm call or one
// comparison, in the order the ONNX definition writes it, except float Sigmoid and Tanh,
// which are ONNX Runtime's rational approximations (ops/kernels/eltwise/sigmoid_tanh.h) so that QDQ
// graphs round as in the reference system.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class UnaryOp { kRelu, kSigmoid, kTanh, kExp, kNeg, kAbs, kSqrt, kLeakyRelu, kHardSigmoid, kClip };

struct UnaryState {
  UnaryOp op;
  DataType dtype;
  double alpha = 0, beta = 0;  // LeakyRelu alpha; HardSigmoid alpha, beta
  double lo = 0, hi = 0;       // Clip bounds, in the element type's range
  FloatMapFn map = nullptr;    // float32 Sigmoid / Tanh: ORT's approximation (sigmoid_tanh.h)
};

template <class T>
T ApplyFloat(const UnaryState& s, T x) {
  switch (s.op) {
    case UnaryOp::kRelu:
      return x < T(0) ? T(0) : x;  // keeps NaN
    case UnaryOp::kSigmoid:
      if constexpr (std::is_same_v<T, float>) {
        float y;
        ref::Sigmoid(1, &x, &y);
        return y;
      } else if (x >= T(0)) {
        // 1/(1+e^-x) overflows e^-x for very negative x; the symmetric form avoids it.
        return T(1) / (T(1) + std::exp(-x));
      } else {
        T e = std::exp(x);
        return e / (T(1) + e);
      }
    case UnaryOp::kTanh:
      if constexpr (std::is_same_v<T, float>) {
        float y;
        ref::Tanh(1, &x, &y);
        return y;
      } else {
        return std::tanh(x);
      }
    case UnaryOp::kExp:
      return std::exp(x);
    case UnaryOp::kNeg:
      return -x;
    case UnaryOp::kAbs:
      return std::fabs(x);
    case UnaryOp::kSqrt:
      return std::sqrt(x);
    case UnaryOp::kLeakyRelu:
      return x < T(0) ? x * T(s.alpha) : x;
    case UnaryOp::kHardSigmoid: {
      T v = T(s.alpha) * x + T(s.beta);
      return std::max(T(0), std::min(T(1), v));
    }
    case UnaryOp::kClip: {
      if (std::isnan(x)) return x;
      return std::min(std::max(x, T(s.lo)), T(s.hi));
    }
  }
  return x;
}

template <class T>
T ApplyInt(const UnaryState& s, T x) {
  using U = std::make_unsigned_t<T>;
  switch (s.op) {
    case UnaryOp::kRelu:
      return x < T(0) ? T(0) : x;
    case UnaryOp::kNeg:
      return T(U(0) - U(x));
    case UnaryOp::kAbs:
      return x < T(0) ? T(U(0) - U(x)) : x;
    case UnaryOp::kClip: {
      if (double(x) < s.lo) return T(s.lo);
      if (double(x) > s.hi) return T(s.hi);
      return x;
    }
    default:
      return x;
  }
}

Status RunUnary(const UnaryState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  Tensor& y = *args.output(0);
  const int64_t n = x.numel();
  switch (s.dtype) {
    case DataType::kFloat32: {
      const float* px = x.data<float>();
      float* py = y.data<float>();
      if (s.map != nullptr) {
        s.map(n, px, py);
        break;
      }
      for (int64_t i = 0; i < n; ++i) py[i] = ApplyFloat<float>(s, px[i]);
      break;
    }
    case DataType::kFloat64: {
      const double* px = x.data<double>();
      double* py = y.data<double>();
      for (int64_t i = 0; i < n; ++i) py[i] = ApplyFloat<double>(s, px[i]);
      break;
    }
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      const bool half = s.dtype == DataType::kFloat16;
      const uint16_t* px = x.data<uint16_t>();
      uint16_t* py = y.data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) {
        float v = half ? HalfToFloat(px[i]) : BFloat16ToFloat(px[i]);
        v = ApplyFloat<float>(s, v);
        py[i] = half ? FloatToHalf(v) : FloatToBFloat16(v);
      }
      break;
    }
    default:
      DispatchNumeric(s.dtype, [&](auto tag) {
        using T = decltype(tag);
        if constexpr (std::is_integral_v<T>) {
          const T* px = x.data<T>();
          T* py = y.data<T>();
          for (int64_t i = 0; i < n; ++i) py[i] = ApplyInt<T>(s, px[i]);
        }
      });
  }
  return Status::Ok();
}

// Clip's min/max: attributes before opset 11, optional inputs from 11 on.
Status ReadClipBounds(const PrepareContext& ctx, UnaryState& s) {
  double lowest, highest;
  if (IsFloatType(s.dtype)) {
    lowest = -std::numeric_limits<double>::infinity();
    highest = std::numeric_limits<double>::infinity();
  } else {
    lowest = -9.2e18;
    highest = 9.2e18;
    DispatchNumeric(s.dtype, [&](auto tag) {
      using T = decltype(tag);
      lowest = double(std::numeric_limits<T>::lowest());
      highest = double(std::numeric_limits<T>::max());
    });
  }
  s.lo = lowest;
  s.hi = highest;
  if (ctx.opset() < 11) {
    QRT_ASSIGN_OR_RETURN(float lo, ctx.attrs().GetFloat("min", -std::numeric_limits<float>::max()));
    QRT_ASSIGN_OR_RETURN(float hi, ctx.attrs().GetFloat("max", std::numeric_limits<float>::max()));
    s.lo = lo;
    s.hi = hi;
    return Status::Ok();
  }
  for (int i = 1; i <= 2; ++i) {
    if (!ctx.has_input(i)) continue;
    const TensorInfo& t = ctx.input(i);
    if (t.dtype != s.dtype) return InvalidArgument("Clip bound ", i, " must have the input's dtype");
    if (ElementCount(t.dims) != 1) return InvalidArgument("Clip bound ", i, " must be a scalar");
    if (t.value == nullptr) return NeedsConstant(ctx, i, i == 1 ? "min" : "max");
    (i == 1 ? s.lo : s.hi) = t.value->GetAsDouble(0);
  }
  return Status::Ok();
}

template <UnaryOp kOp>
Status PrepareUnary(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  UnaryState s;
  s.op = kOp;
  s.dtype = x.dtype;
  const bool int_ok = kOp == UnaryOp::kRelu || kOp == UnaryOp::kNeg || kOp == UnaryOp::kAbs || kOp == UnaryOp::kClip;
  if (!IsFloatType(x.dtype) && !(int_ok && IsIntegerType(x.dtype))) {
    return InvalidArgument("input dtype ", DataTypeName(x.dtype), " is not supported by this op");
  }
  if (kOp == UnaryOp::kLeakyRelu) {
    QRT_ASSIGN_OR_RETURN(float a, ctx.attrs().GetFloat("alpha", 0.01f));
    s.alpha = a;
  }
  if (s.dtype == DataType::kFloat32 && kOp == UnaryOp::kSigmoid) s.map = SelectSigmoid(ctx.isa());
  if (s.dtype == DataType::kFloat32 && kOp == UnaryOp::kTanh) s.map = SelectTanh(ctx.isa());
  if (kOp == UnaryOp::kHardSigmoid) {
    QRT_ASSIGN_OR_RETURN(float a, ctx.attrs().GetFloat("alpha", 0.2f));
    QRT_ASSIGN_OR_RETURN(float b, ctx.attrs().GetFloat("beta", 0.5f));
    s.alpha = a;
    s.beta = b;
  }
  if (kOp == UnaryOp::kClip) QRT_RETURN_IF_ERROR(ReadClipBounds(ctx, s));
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<UnaryState, RunUnary>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kReluOp{"", "Relu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kRelu>};
const OpDef kSigmoidOp{"", "Sigmoid", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSigmoid>};
const OpDef kTanhOp{"", "Tanh", 1, 1, 1, 1, PrepareUnary<UnaryOp::kTanh>};
const OpDef kExpOp{"", "Exp", 1, 1, 1, 1, PrepareUnary<UnaryOp::kExp>};
const OpDef kNegOp{"", "Neg", 1, 1, 1, 1, PrepareUnary<UnaryOp::kNeg>};
const OpDef kAbsOp{"", "Abs", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAbs>};
const OpDef kSqrtOp{"", "Sqrt", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSqrt>};
const OpDef kLeakyReluOp{"", "LeakyRelu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kLeakyRelu>};
const OpDef kHardSigmoidOp{"", "HardSigmoid", 1, 1, 1, 1, PrepareUnary<UnaryOp::kHardSigmoid>};
const OpDef kClipOp{"", "Clip", 1, 3, 1, 1, PrepareUnary<UnaryOp::kClip>};

}  // namespace qrt
