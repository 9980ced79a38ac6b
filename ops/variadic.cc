// The variadic element-wise ops Max, Min, Sum and Mean: one or more inputs of one dtype,
// numpy-broadcast together. Inputs fold left to right (((x0 op x1) op x2) ...), each step
// rounded to the element type; Mean is that Sum multiplied by 1/count, as ONNX Runtime
// computes it. Max and Min propagate NaN. float16 and bfloat16 compute each step in float32.
#include <cmath>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Fold { kMax, kMin, kSum, kMean };

struct VariadicState {
  DataType dtype;
  int count = 0;
  StridedLoop first;              // y = x0 broadcast
  std::vector<StridedLoop> rest;  // y = y op x_k, k = 1..count-1
};

template <Fold kOp, class C>
C Apply(C a, C b) {
  if constexpr (kOp == Fold::kMax || kOp == Fold::kMin) {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
    }
    if constexpr (kOp == Fold::kMax) return a < b ? b : a;
    return b < a ? b : a;
  } else if constexpr (std::is_same_v<C, bool>) {
    return a || b;  // never run: prepare refuses bool Sum and Mean
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
    return C(U(a) + U(b));  // wraps
  } else {
    return a + b;
  }
}

template <Fold kOp>
Status RunVariadic(const VariadicState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    S* y = args.output(0)->data<S>();
    BroadcastMap2(s.first, args.input(0)->data<S>(), args.input(0)->data<S>(), y, [](S a, S) { return a; });
    for (int k = 1; k < s.count; ++k) {
      BroadcastMap2(s.rest[size_t(k - 1)], static_cast<const S*>(y), args.input(k)->data<S>(), y,
                    [](S a, S b) { return E::Store(Apply<kOp, C>(E::Load(a), E::Load(b))); });
    }
    if constexpr (kOp == Fold::kMean && !std::is_integral_v<C>) {
      const C inv = C(1) / C(s.count);
      const int64_t n = args.output(0)->numel();
      for (int64_t i = 0; i < n; ++i) y[i] = E::Store(E::Load(y[i]) * inv);
    }
  });
  return Status::Ok();
}

template <Fold kOp>
Status PrepareVariadic(PrepareContext& ctx) {
  const int count = ctx.num_inputs();
  VariadicState s;
  s.dtype = ctx.input(0).dtype;
  s.count = count;
  Dims out = ctx.input(0).dims;
  for (int k = 0; k < count; ++k) {
    if (!ctx.has_input(k)) return InvalidArgument("input ", k, " is omitted");
    if (ctx.input(k).dtype != s.dtype) {
      return InvalidArgument("input dtypes differ: ", DataTypeName(s.dtype), " and ", DataTypeName(ctx.input(k).dtype));
    }
    QRT_ASSIGN_OR_RETURN(out, BroadcastDims(out, ctx.input(k).dims));
  }
  const bool numeric = s.dtype != DataType::kBool;
  if (!numeric || ((kOp == Fold::kSum || kOp == Fold::kMean) && !IsFloatType(s.dtype))) {
    return InvalidArgument("input dtype ", DataTypeName(s.dtype), " is not supported by this op");
  }
  s.first = MakeStridedLoop({ctx.input(0).dims, ctx.input(0).dims, out}, out);
  for (int k = 1; k < count; ++k) s.rest.push_back(MakeStridedLoop({out, ctx.input(k).dims, out}, out));
  ctx.SetOutput(0, s.dtype, out);
  ctx.SetKernel<VariadicState, RunVariadic<kOp>>(std::move(s));
  return Status::Ok();
}

}  // namespace

constexpr int kMaxVariadicInputs = 1 << 16;
const OpDef kMaxOp{"", "Max", 1, kMaxVariadicInputs, 1, 1, PrepareVariadic<Fold::kMax>};
const OpDef kMinOp{"", "Min", 1, kMaxVariadicInputs, 1, 1, PrepareVariadic<Fold::kMin>};
const OpDef kSumOp{"", "Sum", 1, kMaxVariadicInputs, 1, 1, PrepareVariadic<Fold::kSum>};
const OpDef kMeanOp{"", "Mean", 1, kMaxVariadicInputs, 1, 1, PrepareVariadic<Fold::kMean>};

}  // namespace qrt
