// Numpy-broadcasting element-wise binary arithmetic: Add, Sub, Mul, Div (and PRelu,
// which is the same shape of computation). Integer arithmetic wraps (two's
// complement) instead of overflowing; integer division by zero gives 0 — ONNX leaves
// both undefined, and qrt must not be. float16/bfloat16 compute in float32 and round once.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kPRelu };

template <class T>
T Apply(BinaryOp op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case BinaryOp::kAdd:
        return a + b;
      case BinaryOp::kSub:
        return a - b;
      case BinaryOp::kMul:
        return a * b;
      case BinaryOp::kDiv:
        return a / b;
      case BinaryOp::kPRelu: {
        // Both sides computed, then selected: a branch on the sign of each element
        // mispredicts half the time on real activations and blocks vectorization.
        const T m = a * b;
        return a < T(0) ? m : a;
      }
    }
    return T(0);
  } else {
    // Wrap-around arithmetic in an unsigned type at least as wide as unsigned int: narrower
    // ones promote to (signed) int, where 49325 * 49325 (uint16) would overflow.
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
    switch (op) {
      case BinaryOp::kAdd:
        return T(U(a) + U(b));
      case BinaryOp::kSub:
        return T(U(a) - U(b));
      case BinaryOp::kMul:
        return T(U(a) * U(b));
      case BinaryOp::kDiv:
        if (b == 0) return T(0);
        if constexpr (std::is_signed_v<T>) {
          if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;  // wraps
        }
        return T(a / b);
      case BinaryOp::kPRelu:
        return a < T(0) ? T(U(a) * U(b)) : a;
    }
    return T(0);
  }
}

struct BinaryState {
  BinaryOp op;
  DataType dtype;
  Dims out_dims;
  std::vector<int64_t> a_strides, b_strides;
};

template <class T, BinaryOp kOp>
void RunTyped(const BinaryState& s, const T* a, const T* b, T* y) {
  ForEachBroadcastRun(s.out_dims, s.a_strides, s.b_strides,
                      [&](int64_t o, int64_t ia, int64_t ib, int64_t n, int64_t sa, int64_t sb) {
                        T* out = y + o;
                        const T* pa = a + ia;
                        const T* pb = b + ib;
                        if (sa == 1 && sb == 1) {
                          for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, pa[i], pb[i]);
                        } else if (sa == 1 && sb == 0) {
                          const T vb = *pb;
                          for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, pa[i], vb);
                        } else if (sa == 0 && sb == 1) {
                          const T va = *pa;
                          for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, va, pb[i]);
                        } else {
                          for (int64_t i = 0; i < n; ++i) out[i] = Apply(kOp, pa[i * sa], pb[i * sb]);
                        }
                      });
}

template <BinaryOp kOp>
void RunOp(const BinaryState& s, const Tensor& a, const Tensor& b, Tensor& y) {
  switch (s.dtype) {
    case DataType::kFloat16:
    case DataType::kBFloat16: {
      const bool half = s.dtype == DataType::kFloat16;
      auto to_f = [half](uint16_t v) { return half ? HalfToFloat(v) : BFloat16ToFloat(v); };
      auto from_f = [half](float v) { return half ? FloatToHalf(v) : FloatToBFloat16(v); };
      const uint16_t* pa = a.data<uint16_t>();
      const uint16_t* pb = b.data<uint16_t>();
      uint16_t* py = y.data<uint16_t>();
      ForEachBroadcastRun(s.out_dims, s.a_strides, s.b_strides,
                          [&](int64_t o, int64_t ia, int64_t ib, int64_t n, int64_t sa, int64_t sb) {
                            for (int64_t i = 0; i < n; ++i) {
                              py[o + i] = from_f(Apply(kOp, to_f(pa[ia + i * sa]), to_f(pb[ib + i * sb])));
                            }
                          });
      return;
    }
    default:
      DispatchNumeric(s.dtype, [&](auto tag) {
        using T = decltype(tag);
        RunTyped<T, kOp>(s, a.data<T>(), b.data<T>(), y.data<T>());
      });
  }
}

Status RunBinary(const BinaryState& s, const RunArgs& args) {
  const Tensor& a = *args.input(0);
  const Tensor& b = *args.input(1);
  Tensor& y = *args.output(0);
  switch (s.op) {
    case BinaryOp::kAdd:
      RunOp<BinaryOp::kAdd>(s, a, b, y);
      break;
    case BinaryOp::kSub:
      RunOp<BinaryOp::kSub>(s, a, b, y);
      break;
    case BinaryOp::kMul:
      RunOp<BinaryOp::kMul>(s, a, b, y);
      break;
    case BinaryOp::kDiv:
      RunOp<BinaryOp::kDiv>(s, a, b, y);
      break;
    case BinaryOp::kPRelu:
      RunOp<BinaryOp::kPRelu>(s, a, b, y);
      break;
  }
  return Status::Ok();
}

template <BinaryOp kOp>
Status PrepareBinary(PrepareContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  if (a.dtype != b.dtype) {
    return InvalidArgument("input dtypes differ: ", DataTypeName(a.dtype), " and ", DataTypeName(b.dtype));
  }
  if (a.dtype == DataType::kBool) return Unsupported("arithmetic on bool tensors");
  BinaryState s;
  s.op = kOp;
  s.dtype = a.dtype;
  Dims b_dims = b.dims;
  if (kOp == BinaryOp::kPRelu) {
    // PRelu's slope broadcasts to X (unidirectionally); the output has X's shape.
    QRT_ASSIGN_OR_RETURN(s.out_dims, BroadcastDims(a.dims, b.dims));
    if (s.out_dims != a.dims) {
      return InvalidArgument("slope of shape ", DimsToString(b.dims), " does not broadcast to X of shape ",
                             DimsToString(a.dims));
    }
  } else {
    QRT_ASSIGN_OR_RETURN(b_dims, LegacyBroadcastDims(ctx, a.dims, b.dims));
    QRT_ASSIGN_OR_RETURN(s.out_dims, BroadcastDims(a.dims, b_dims));
  }
  s.a_strides = BroadcastStrides(a.dims, s.out_dims);
  s.b_strides = BroadcastStrides(b_dims, s.out_dims);
  ctx.SetOutput(0, a.dtype, s.out_dims);
  ctx.SetKernel<BinaryState, RunBinary>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kAddOp{"", "Add", 2, 2, 1, 1, PrepareBinary<BinaryOp::kAdd>};
const OpDef kSubOp{"", "Sub", 2, 2, 1, 1, PrepareBinary<BinaryOp::kSub>};
const OpDef kMulOp{"", "Mul", 2, 2, 1, 1, PrepareBinary<BinaryOp::kMul>};
const OpDef kDivOp{"", "Div", 2, 2, 1, 1, PrepareBinary<BinaryOp::kDiv>};
const OpDef kPReluOp{"", "PRelu", 2, 2, 1, 1, PrepareBinary<BinaryOp::kPRelu>};

}  // namespace qrt
