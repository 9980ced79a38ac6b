// Element-wise unary ops: the activations (Relu, Sigmoid, Tanh, LeakyRelu, HardSigmoid,
// HardSwish, Elu, Selu, Celu, ThresholdedRelu, Softplus, Softsign, Mish, Gelu, Shrink, Clip)
// and the math functions (Exp, Log, Sqrt, Reciprocal, Abs, Neg, Sign, Floor, Ceil, Round,
// Erf, the trigonometric and hyperbolic functions), plus the predicates IsNaN, IsInf, Not.
//
// float32 and float64 compute in their own type; float16 and bfloat16 compute in float32
// and round once. Each function below is the reference: one libm call or the expression the
// ONNX definition (or function body) writes, in its order. float32 Sigmoid and Tanh are ONNX
// Runtime's rational approximations (ops/kernels/eltwise/sigmoid_tanh.h), Erf and Gelu's erf
// form its MLAS erf (ops/kernels/eltwise/erf.h), so that QDQ graphs round as in the
// reference system. The op is a template argument of the run
// loop: no per-element dispatch.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/kernels/eltwise/erf.h"
#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class UnaryOp {
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kNeg,
  kAbs,
  kSqrt,
  kLeakyRelu,
  kHardSigmoid,
  kClip,
  kLog,
  kReciprocal,
  kFloor,
  kCeil,
  kRound,
  kSign,
  kErf,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kAsinh,
  kAcosh,
  kAtanh,
  kSoftplus,
  kSoftsign,
  kElu,
  kSelu,
  kCelu,
  kThresholdedRelu,
  kHardSwish,
  kShrink,
  kMish,
  kGelu,
};

// Ops defined on integer tensors too (wrapping two's complement where it matters).
constexpr bool TakesIntegers(UnaryOp op) {
  return op == UnaryOp::kRelu || op == UnaryOp::kNeg || op == UnaryOp::kAbs || op == UnaryOp::kClip ||
         op == UnaryOp::kSign || op == UnaryOp::kShrink;
}

struct UnaryState {
  DataType dtype;
  double alpha = 0, beta = 0;  // each op's attributes (LeakyRelu alpha, Selu alpha/gamma, ...)
  double lo = 0, hi = 0;       // Clip bounds, in the element type's range
  bool tanh_gelu = false;      // Gelu approximate="tanh"
  FloatMapFn map = nullptr;    // float32 Sigmoid / Tanh / Erf / Gelu: ORT's approximations
                               // (sigmoid_tanh.h, erf.h)
};

template <class T>
T Softplus(T x) {
  // log(exp(x) + 1), as the definition writes it; exp overflows to inf exactly where the
  // result is x to within rounding, so large x returns x.
  if (x > T(std::is_same_v<T, float> ? 20 : 40)) return x;
  return std::log(std::exp(x) + T(1));
}

template <UnaryOp kOp, class T>
T ApplyFloat(const UnaryState& s, T x) {
  if constexpr (kOp == UnaryOp::kRelu) {
    return x < T(0) ? T(0) : x;  // keeps NaN
  } else if constexpr (kOp == UnaryOp::kSigmoid) {
    if constexpr (std::is_same_v<T, float>) {
      float y;
      ref::Sigmoid(1, &x, &y);
      return y;
    }
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    // 1/(1+e^-x) overflows e^-x for very negative x; the symmetric form avoids it.
    const T e = std::exp(x);
    return e / (T(1) + e);
  } else if constexpr (kOp == UnaryOp::kTanh) {
    if constexpr (std::is_same_v<T, float>) {
      float y;
      ref::Tanh(1, &x, &y);
      return y;
    }
    return std::tanh(x);
  } else if constexpr (kOp == UnaryOp::kExp) {
    return std::exp(x);
  } else if constexpr (kOp == UnaryOp::kNeg) {
    return -x;
  } else if constexpr (kOp == UnaryOp::kAbs) {
    return std::fabs(x);
  } else if constexpr (kOp == UnaryOp::kSqrt) {
    return std::sqrt(x);
  } else if constexpr (kOp == UnaryOp::kLeakyRelu) {
    return x < T(0) ? x * T(s.alpha) : x;
  } else if constexpr (kOp == UnaryOp::kHardSigmoid) {
    const T v = T(s.alpha) * x + T(s.beta);
    return std::max(T(0), std::min(T(1), v));
  } else if constexpr (kOp == UnaryOp::kClip) {
    // NaN fails both comparisons and passes through; written as two selects (no isnan test),
    // which the compiler vectorizes.
    const T t = x < T(s.lo) ? T(s.lo) : x;
    return t > T(s.hi) ? T(s.hi) : t;
  } else if constexpr (kOp == UnaryOp::kLog) {
    return std::log(x);
  } else if constexpr (kOp == UnaryOp::kReciprocal) {
    return T(1) / x;
  } else if constexpr (kOp == UnaryOp::kFloor) {
    return std::floor(x);
  } else if constexpr (kOp == UnaryOp::kCeil) {
    return std::ceil(x);
  } else if constexpr (kOp == UnaryOp::kRound) {
    return std::nearbyint(x);  // ties to even in the default rounding mode, as ONNX says
  } else if constexpr (kOp == UnaryOp::kSign) {
    if (std::isnan(x)) return x;
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
  } else if constexpr (kOp == UnaryOp::kErf) {
    return std::erf(x);
  } else if constexpr (kOp == UnaryOp::kSin) {
    return std::sin(x);
  } else if constexpr (kOp == UnaryOp::kCos) {
    return std::cos(x);
  } else if constexpr (kOp == UnaryOp::kTan) {
    return std::tan(x);
  } else if constexpr (kOp == UnaryOp::kAsin) {
    return std::asin(x);
  } else if constexpr (kOp == UnaryOp::kAcos) {
    return std::acos(x);
  } else if constexpr (kOp == UnaryOp::kAtan) {
    return std::atan(x);
  } else if constexpr (kOp == UnaryOp::kSinh) {
    return std::sinh(x);
  } else if constexpr (kOp == UnaryOp::kCosh) {
    return std::cosh(x);
  } else if constexpr (kOp == UnaryOp::kAsinh) {
    return std::asinh(x);
  } else if constexpr (kOp == UnaryOp::kAcosh) {
    return std::acosh(x);
  } else if constexpr (kOp == UnaryOp::kAtanh) {
    return std::atanh(x);
  } else if constexpr (kOp == UnaryOp::kSoftplus) {
    return Softplus(x);
  } else if constexpr (kOp == UnaryOp::kSoftsign) {
    return x / (T(1) + std::fabs(x));
  } else if constexpr (kOp == UnaryOp::kElu) {
    return x < T(0) ? T(s.alpha) * (std::exp(x) - T(1)) : x;
  } else if constexpr (kOp == UnaryOp::kSelu) {
    // alpha, gamma as float attributes; gamma * (alpha * e^x - alpha) for x <= 0.
    const T alpha = T(s.alpha), gamma = T(s.beta);
    return x > T(0) ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
  } else if constexpr (kOp == UnaryOp::kCelu) {
    const T alpha = T(s.alpha);
    return std::max(T(0), x) + std::min(T(0), alpha * (std::exp(x / alpha) - T(1)));
  } else if constexpr (kOp == UnaryOp::kThresholdedRelu) {
    return x > T(s.alpha) ? x : T(0);
  } else if constexpr (kOp == UnaryOp::kHardSwish) {
    // x * HardSigmoid<alpha=1/6, beta=0.5>(x), the function body's order.
    const T v = T(1.0f / 6.0f) * x + T(0.5f);
    return x * std::max(T(0), std::min(T(1), v));
  } else if constexpr (kOp == UnaryOp::kShrink) {
    const T bias = T(s.beta), lambd = T(s.alpha);
    return x < -lambd ? x + bias : (x > lambd ? x - bias : T(0));
  } else if constexpr (kOp == UnaryOp::kMish) {
    return x * std::tanh(Softplus(x));
  } else if constexpr (kOp == UnaryOp::kGelu) {
    if (s.tanh_gelu) {
      const T inner = T(0.7978845608028654) * (x + T(0.044715) * x * x * x);  // sqrt(2/pi)
      return T(0.5) * x * (T(1) + std::tanh(inner));
    }
    return T(0.5) * x * (T(1) + std::erf(x * T(0.7071067811865476)));  // 1/sqrt(2)
  }
  return x;
}

template <UnaryOp kOp, class T>
T ApplyInt(const UnaryState& s, T x) {
  using U = std::make_unsigned_t<T>;
  if constexpr (kOp == UnaryOp::kRelu) {
    return x < T(0) ? T(0) : x;
  } else if constexpr (kOp == UnaryOp::kNeg) {
    return T(U(0) - U(x));
  } else if constexpr (kOp == UnaryOp::kAbs) {
    return x < T(0) ? T(U(0) - U(x)) : x;
  } else if constexpr (kOp == UnaryOp::kClip) {
    if (double(x) < s.lo) return T(s.lo);
    if (double(x) > s.hi) return T(s.hi);
    return x;
  } else if constexpr (kOp == UnaryOp::kSign) {
    return x > T(0) ? T(1) : (x < T(0) ? T(-1) : T(0));
  } else if constexpr (kOp == UnaryOp::kShrink) {
    // Integer Shrink: the comparisons and the bias in double, the result back in T.
    const double v = double(x);
    auto to_t = [](double r) {  // saturating: a double outside T's range must not be converted
      if (r <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
      if (r >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
      return T(r);
    };
    if (v < -s.alpha) return to_t(v + s.beta);
    if (v > s.alpha) return to_t(v - s.beta);
    return T(0);
  }
  return x;
}

template <UnaryOp kOp>
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
      for (int64_t i = 0; i < n; ++i) py[i] = ApplyFloat<kOp, float>(s, px[i]);
      break;
    }
    case DataType::kFloat64: {
      const double* px = x.data<double>();
      double* py = y.data<double>();
      for (int64_t i = 0; i < n; ++i) py[i] = ApplyFloat<kOp, double>(s, px[i]);
      break;
    }
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      const uint16_t* px = x.data<uint16_t>();
      uint16_t* py = y.data<uint16_t>();
      if (s.dtype == DataType::kFloat16) {
        for (int64_t i = 0; i < n; ++i) py[i] = FloatToHalf(ApplyFloat<kOp, float>(s, HalfToFloat(px[i])));
      } else {
        for (int64_t i = 0; i < n; ++i) py[i] = FloatToBFloat16(ApplyFloat<kOp, float>(s, BFloat16ToFloat(px[i])));
      }
      break;
    }
    default:
      if constexpr (TakesIntegers(kOp)) {
        DispatchNumeric(s.dtype, [&](auto tag) {
          using T = decltype(tag);
          if constexpr (std::is_integral_v<T>) {
            const T* px = x.data<T>();
            T* py = y.data<T>();
            for (int64_t i = 0; i < n; ++i) py[i] = ApplyInt<kOp, T>(s, px[i]);
          }
        });
      }
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

// Reads float attribute `name` (default `dflt`) into `out`.
Status ReadFloatAttr(const PrepareContext& ctx, const char* name, float dflt, double& out) {
  QRT_ASSIGN_OR_RETURN(float v, ctx.attrs().GetFloat(name, dflt));
  out = v;
  return Status::Ok();
}

template <UnaryOp kOp>
Status ReadAttributes(const PrepareContext& ctx, UnaryState& s) {
  switch (kOp) {
    case UnaryOp::kLeakyRelu:
      return ReadFloatAttr(ctx, "alpha", 0.01f, s.alpha);
    case UnaryOp::kHardSigmoid:
      QRT_RETURN_IF_ERROR(ReadFloatAttr(ctx, "alpha", 0.2f, s.alpha));
      return ReadFloatAttr(ctx, "beta", 0.5f, s.beta);
    case UnaryOp::kElu:
    case UnaryOp::kCelu:
    case UnaryOp::kThresholdedRelu:
      return ReadFloatAttr(ctx, "alpha", 1.0f, s.alpha);
    case UnaryOp::kSelu:
      QRT_RETURN_IF_ERROR(ReadFloatAttr(ctx, "alpha", 1.67326319217681884765625f, s.alpha));
      return ReadFloatAttr(ctx, "gamma", 1.05070102214813232421875f, s.beta);
    case UnaryOp::kShrink:
      QRT_RETURN_IF_ERROR(ReadFloatAttr(ctx, "lambd", 0.5f, s.alpha));
      return ReadFloatAttr(ctx, "bias", 0.0f, s.beta);
    case UnaryOp::kClip:
      return ReadClipBounds(ctx, s);
    case UnaryOp::kGelu: {
      QRT_ASSIGN_OR_RETURN(std::string approximate, ctx.attrs().GetString("approximate", "none"));
      if (approximate != "none" && approximate != "tanh") {
        return InvalidArgument("approximate must be \"none\" or \"tanh\", not \"", approximate, "\"");
      }
      s.tanh_gelu = approximate == "tanh";
      return Status::Ok();
    }
    default:
      return Status::Ok();
  }
}

template <UnaryOp kOp>
Status PrepareUnary(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  UnaryState s;
  s.dtype = x.dtype;
  if (!IsFloatType(x.dtype) && !(TakesIntegers(kOp) && IsIntegerType(x.dtype))) {
    return InvalidArgument("input dtype ", DataTypeName(x.dtype), " is not supported by this op");
  }
  QRT_RETURN_IF_ERROR(ReadAttributes<kOp>(ctx, s));
  if (s.dtype == DataType::kFloat32 && kOp == UnaryOp::kSigmoid) s.map = SelectSigmoid(ctx.isa());
  if (s.dtype == DataType::kFloat32 && kOp == UnaryOp::kTanh) s.map = SelectTanh(ctx.isa());
  if (s.dtype == DataType::kFloat32 && kOp == UnaryOp::kErf) s.map = SelectErf(ctx.isa());
  if (s.dtype == DataType::kFloat32 && kOp == UnaryOp::kGelu && !s.tanh_gelu) s.map = SelectGeluErf(ctx.isa());
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<UnaryState, RunUnary<kOp>>(std::move(s));
  return Status::Ok();
}

// IsNaN, IsInf (float -> bool) and Not (bool -> bool).
enum class Predicate { kIsNaN, kIsInf, kNot };

struct PredicateState {
  DataType dtype;
  bool negative = true, positive = true;  // IsInf's detect_negative / detect_positive
};

template <Predicate kPred, class T>
void RunPredicateTyped(const PredicateState& s, const T* x, uint8_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kPred == Predicate::kNot) {
      y[i] = x[i] ? 0 : 1;
    } else {
      float v;
      if constexpr (std::is_same_v<T, uint16_t>) {
        v = s.dtype == DataType::kFloat16 ? HalfToFloat(x[i]) : BFloat16ToFloat(x[i]);
      } else {
        v = float(x[i]);  // NaN and infinities survive the narrowing of a double
      }
      if constexpr (kPred == Predicate::kIsNaN) {
        y[i] = std::isnan(v);
      } else {
        y[i] = std::isinf(v) && (v > 0 ? s.positive : s.negative);
      }
    }
  }
}

template <Predicate kPred>
Status RunPredicate(const PredicateState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  uint8_t* y = args.output(0)->data<uint8_t>();
  const int64_t n = x.numel();
  switch (s.dtype) {
    case DataType::kFloat32:
      RunPredicateTyped<kPred>(s, x.data<float>(), y, n);
      break;
    case DataType::kFloat64:
      RunPredicateTyped<kPred>(s, x.data<double>(), y, n);
      break;
    case DataType::kBool:
      RunPredicateTyped<kPred>(s, x.data<uint8_t>(), y, n);
      break;
    default:
      RunPredicateTyped<kPred>(s, x.data<uint16_t>(), y, n);
  }
  return Status::Ok();
}

template <Predicate kPred>
Status PreparePredicate(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  PredicateState s;
  s.dtype = x.dtype;
  if (kPred == Predicate::kNot) {
    if (x.dtype != DataType::kBool) return InvalidArgument("Not takes bool, not ", DataTypeName(x.dtype));
  } else if (!IsFloatType(x.dtype)) {
    return InvalidArgument("input dtype ", DataTypeName(x.dtype), " is not a float type");
  }
  if (kPred == Predicate::kIsInf) {
    QRT_ASSIGN_OR_RETURN(int64_t neg, ctx.attrs().GetInt("detect_negative", 1));
    QRT_ASSIGN_OR_RETURN(int64_t pos, ctx.attrs().GetInt("detect_positive", 1));
    s.negative = neg != 0;
    s.positive = pos != 0;
  }
  ctx.SetOutput(0, DataType::kBool, x.dims);
  ctx.SetKernel<PredicateState, RunPredicate<kPred>>(std::move(s));
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
const OpDef kLogOp{"", "Log", 1, 1, 1, 1, PrepareUnary<UnaryOp::kLog>};
const OpDef kReciprocalOp{"", "Reciprocal", 1, 1, 1, 1, PrepareUnary<UnaryOp::kReciprocal>};
const OpDef kFloorOp{"", "Floor", 1, 1, 1, 1, PrepareUnary<UnaryOp::kFloor>};
const OpDef kCeilOp{"", "Ceil", 1, 1, 1, 1, PrepareUnary<UnaryOp::kCeil>};
const OpDef kRoundOp{"", "Round", 1, 1, 1, 1, PrepareUnary<UnaryOp::kRound>};
const OpDef kSignOp{"", "Sign", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSign>};
const OpDef kErfOp{"", "Erf", 1, 1, 1, 1, PrepareUnary<UnaryOp::kErf>};
const OpDef kSinOp{"", "Sin", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSin>};
const OpDef kCosOp{"", "Cos", 1, 1, 1, 1, PrepareUnary<UnaryOp::kCos>};
const OpDef kTanOp{"", "Tan", 1, 1, 1, 1, PrepareUnary<UnaryOp::kTan>};
const OpDef kAsinOp{"", "Asin", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAsin>};
const OpDef kAcosOp{"", "Acos", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAcos>};
const OpDef kAtanOp{"", "Atan", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAtan>};
const OpDef kSinhOp{"", "Sinh", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSinh>};
const OpDef kCoshOp{"", "Cosh", 1, 1, 1, 1, PrepareUnary<UnaryOp::kCosh>};
const OpDef kAsinhOp{"", "Asinh", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAsinh>};
const OpDef kAcoshOp{"", "Acosh", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAcosh>};
const OpDef kAtanhOp{"", "Atanh", 1, 1, 1, 1, PrepareUnary<UnaryOp::kAtanh>};
const OpDef kSoftplusOp{"", "Softplus", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSoftplus>};
const OpDef kSoftsignOp{"", "Softsign", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSoftsign>};
const OpDef kEluOp{"", "Elu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kElu>};
const OpDef kSeluOp{"", "Selu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kSelu>};
const OpDef kCeluOp{"", "Celu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kCelu>};
const OpDef kThresholdedReluOp{"", "ThresholdedRelu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kThresholdedRelu>};
const OpDef kHardSwishOp{"", "HardSwish", 1, 1, 1, 1, PrepareUnary<UnaryOp::kHardSwish>};
const OpDef kShrinkOp{"", "Shrink", 1, 1, 1, 1, PrepareUnary<UnaryOp::kShrink>};
const OpDef kMishOp{"", "Mish", 1, 1, 1, 1, PrepareUnary<UnaryOp::kMish>};
const OpDef kGeluOp{"", "Gelu", 1, 1, 1, 1, PrepareUnary<UnaryOp::kGelu>};
const OpDef kIsNaNOp{"", "IsNaN", 1, 1, 1, 1, PreparePredicate<Predicate::kIsNaN>};
const OpDef kIsInfOp{"", "IsInf", 1, 1, 1, 1, PreparePredicate<Predicate::kIsInf>};
const OpDef kNotOp{"", "Not", 1, 1, 1, 1, PreparePredicate<Predicate::kNot>};

}  // namespace qrt
