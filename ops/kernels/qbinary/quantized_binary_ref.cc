// Reference QuantizedMul / QuantizedAdd run kernels: the specification (op-semantics.md 4, 5;
// the combined rules follow ONNX Runtime's MLAS x86 kernels). Never optimize.
//   _a = float(a - za) * sa            (divide rule: (float(a) - float(za)) * sa; float a: a)
//   v  = _a * _b  |  _a + _b           (float32 output: C = v)
//   reciprocal: q = nearbyint(v * c_norm) + zc
//   divide:     q = rint(v / sc) + zc
//   combined *: q = rint(float((a - za) * (b - zb)) * ratio + float(zc))
//   combined +: q = rint(fma(float(a), ratio_a, fma(float(b), ratio_b, bias)))
//   C = q saturated to [Tmin, Tmax]; NaN -> Tmin.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/kernels/qbinary/quantized_binary.h"

namespace qrt {
namespace ref {
namespace {

template <class T>
constexpr bool kIsFloat = std::is_same<T, float>::value;

// Dequantized operand value.
template <class T, Requantize R>
float Dequantize(T v, float scale, int32_t zero) {
  if constexpr (kIsFloat<T>) {
    return v;
  } else if constexpr (R == Requantize::kDivide) {
    return (static_cast<float>(v) - static_cast<float>(zero)) * scale;
  } else {
    return static_cast<float>(static_cast<int32_t>(v) - zero) * scale;
  }
}

// q is integral, +-inf or NaN (for reciprocal/divide: before the zero point is added).
template <class TC>
TC Saturate(float q) {
  constexpr float kMin = static_cast<float>(std::numeric_limits<TC>::min());
  constexpr float kMax = static_cast<float>(std::numeric_limits<TC>::max());
  if (!(q >= kMin)) return std::numeric_limits<TC>::min();  // also NaN
  if (q >= kMax) return std::numeric_limits<TC>::max();
  return static_cast<TC>(static_cast<int32_t>(q));
}

template <class TA, class TB, class TC, QuantizedBinaryOp Op, Requantize R>
TC One(TA a, TB b, const QuantizedBinaryParams& p) {
  if constexpr (R == Requantize::kCombined && !kIsFloat<TA> && !kIsFloat<TB> && !kIsFloat<TC>) {
    if constexpr (Op == QuantizedBinaryOp::kMul) {
      const int32_t prod = (static_cast<int32_t>(a) - p.a_zero) * (static_cast<int32_t>(b) - p.b_zero);
      return Saturate<TC>(std::nearbyint(static_cast<float>(prod) * p.ratio + static_cast<float>(p.c_zero)));
    } else {
      const float inner = std::fma(static_cast<float>(b), p.ratio_b, p.bias);
      return Saturate<TC>(std::nearbyint(std::fma(static_cast<float>(a), p.ratio_a, inner)));
    }
  } else {
    const float fa = Dequantize<TA, R>(a, p.a_scale, p.a_zero);
    const float fb = Dequantize<TB, R>(b, p.b_scale, p.b_zero);
    const float v = Op == QuantizedBinaryOp::kMul ? fa * fb : fa + fb;
    if constexpr (kIsFloat<TC>) {
      return v;
    } else {
      const float y = R == Requantize::kDivide ? v / p.c_scale : v * p.c_norm;
      // nearbyint + zc: exact whenever the sum is inside [Tmin, Tmax]; outside it saturates.
      return Saturate<TC>(std::nearbyint(y) + static_cast<float>(p.c_zero));
    }
  }
}

template <class TA, class TB, class TC, QuantizedBinaryOp Op, Requantize R>
void Run(int64_t n, const void* a, int64_t a_inc, const void* b, int64_t b_inc, void* c,
         const QuantizedBinaryParams& p) {
  const TA* pa = static_cast<const TA*>(a);
  const TB* pb = static_cast<const TB*>(b);
  TC* pc = static_cast<TC*>(c);
  for (int64_t i = 0; i < n; ++i) pc[i] = One<TA, TB, TC, Op, R>(pa[i * a_inc], pb[i * b_inc], p);
}

template <class TA, class TB, class TC, QuantizedBinaryOp Op>
QuantizedBinaryFn ForRule(Requantize rule) {
  switch (rule) {
    case Requantize::kReciprocal:
      return Run<TA, TB, TC, Op, Requantize::kReciprocal>;
    case Requantize::kDivide:
      return Run<TA, TB, TC, Op, Requantize::kDivide>;
    case Requantize::kCombined:
      if constexpr (kIsFloat<TA> || kIsFloat<TB> || kIsFloat<TC>) {
        return nullptr;
      } else {
        return Run<TA, TB, TC, Op, Requantize::kCombined>;
      }
  }
  return nullptr;
}

template <class TA, class TB, class TC>
QuantizedBinaryFn ForOp(QuantizedBinaryOp op, Requantize rule) {
  return op == QuantizedBinaryOp::kMul ? ForRule<TA, TB, TC, QuantizedBinaryOp::kMul>(rule)
                                       : ForRule<TA, TB, TC, QuantizedBinaryOp::kAdd>(rule);
}

template <class TA, class TB>
QuantizedBinaryFn ForC(QuantizedBinaryOp op, Requantize rule, DataType c) {
  switch (c) {
    case DataType::kUInt8:
      return ForOp<TA, TB, uint8_t>(op, rule);
    case DataType::kInt8:
      return ForOp<TA, TB, int8_t>(op, rule);
    case DataType::kUInt16:
      return ForOp<TA, TB, uint16_t>(op, rule);
    case DataType::kInt16:
      return ForOp<TA, TB, int16_t>(op, rule);
    case DataType::kFloat32:
      return ForOp<TA, TB, float>(op, rule);
    default:
      return nullptr;
  }
}

template <class TA>
QuantizedBinaryFn ForB(QuantizedBinaryOp op, Requantize rule, DataType b, DataType c) {
  switch (b) {
    case DataType::kUInt8:
      return ForC<TA, uint8_t>(op, rule, c);
    case DataType::kInt8:
      return ForC<TA, int8_t>(op, rule, c);
    case DataType::kUInt16:
      return ForC<TA, uint16_t>(op, rule, c);
    case DataType::kInt16:
      return ForC<TA, int16_t>(op, rule, c);
    case DataType::kFloat32:
      return ForC<TA, float>(op, rule, c);
    default:
      return nullptr;
  }
}

}  // namespace

QuantizedBinaryFn QuantizedBinaryKernel(QuantizedBinaryOp op, Requantize rule, DataType a, DataType b, DataType c) {
  switch (a) {
    case DataType::kUInt8:
      return ForB<uint8_t>(op, rule, b, c);
    case DataType::kInt8:
      return ForB<int8_t>(op, rule, b, c);
    case DataType::kUInt16:
      return ForB<uint16_t>(op, rule, b, c);
    case DataType::kInt16:
      return ForB<int16_t>(op, rule, b, c);
    case DataType::kFloat32:
      return ForB<float>(op, rule, b, c);
    default:
      return nullptr;
  }
}

}  // namespace ref
}  // namespace qrt
