// Pow(X, Y): X to the power Y, numpy-broadcast. X is float (any width), int32 or int64; Y any
// numeric type; the output has X's dtype. ONNX Runtime's order: with a one-element Y of 2 or
// 3 it multiplies (x*x, (x*x)*x); float32 X with float32 Y calls powf; every other pair
// computes pow in double and converts to X's type (integers truncate toward zero). float16
// and bfloat16 X compute in float32 as float32 X does and round once.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct PowState {
  DataType x_dtype, y_dtype;
  StridedLoop loop;
  bool scalar_exponent = false;
};

// Double -> integer T without UB: NaN gives 0, out-of-range values saturate.
template <class T>
T ToInt(double v) {
  if (std::isnan(v)) return T(0);
  if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(v);
}

template <class XTag, class YTag>
void PowTyped(const PowState& s, const RunArgs& args) {
  using EX = Elem<XTag>;
  using EY = Elem<YTag>;
  using SX = typename EX::Stored;
  using SY = typename EY::Stored;
  using CX = typename EX::Compute;
  const SX* x = args.input(0)->data<SX>();
  const SY* y = args.input(1)->data<SY>();
  SX* z = args.output(0)->data<SX>();
  if (s.scalar_exponent) {
    const double e = double(EY::Load(y[0]));
    const int64_t n = args.output(0)->numel();
    if (e == 2 || e == 3) {
      for (int64_t i = 0; i < n; ++i) {
        const CX v = EX::Load(x[i]);
        if constexpr (std::is_integral_v<CX>) {
          using U = std::make_unsigned_t<CX>;
          const U sq = U(v) * U(v);
          z[i] = CX(e == 2 ? sq : U(sq * U(v)));  // wraps
        } else {
          z[i] = EX::Store(e == 2 ? v * v : v * v * v);
        }
      }
      return;
    }
  }
  BroadcastMap2(s.loop, x, y, z, [](SX a, SY b) -> SX {
    const CX v = EX::Load(a);
    const auto e = EY::Load(b);
    if constexpr (std::is_same_v<CX, float> && std::is_same_v<std::decay_t<decltype(e)>, float>) {
      return EX::Store(std::pow(v, e));
    } else if constexpr (std::is_integral_v<CX>) {
      return ToInt<CX>(std::pow(double(v), double(e)));
    } else {
      return EX::Store(CX(std::pow(double(v), double(e))));
    }
  });
}

Status RunPow(const PowState& s, const RunArgs& args) {
  DispatchElem(s.x_dtype, [&](auto xt) {
    DispatchElem(s.y_dtype, [&](auto yt) {
      using XT = decltype(xt);
      using YT = decltype(yt);
      if constexpr (!std::is_same_v<XT, BoolTag> && !std::is_same_v<YT, BoolTag>) PowTyped<XT, YT>(s, args);
    });
  });
  return Status::Ok();
}

Status PreparePow(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& y = ctx.input(1);
  if (!IsFloatType(x.dtype) && x.dtype != DataType::kInt32 && x.dtype != DataType::kInt64) {
    return InvalidArgument("X dtype ", DataTypeName(x.dtype), " is not supported (float, int32, int64)");
  }
  if (y.dtype == DataType::kBool || y.dtype == DataType::kUndefined) {
    return InvalidArgument("Y dtype ", DataTypeName(y.dtype), " is not numeric");
  }
  QRT_ASSIGN_OR_RETURN(Dims y_dims, LegacyBroadcastDims(ctx, x.dims, y.dims));
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(x.dims, y_dims));
  PowState s;
  s.x_dtype = x.dtype;
  s.y_dtype = y.dtype;
  s.loop = MakeStridedLoop({x.dims, y_dims, out}, out);
  s.scalar_exponent = ElementCount(y.dims) == 1 && out == x.dims;
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<PowState, RunPow>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kPowOp{"", "Pow", 2, 2, 1, 1, PreparePow};

}  // namespace qrt
