// The Reduce ops: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceSumSquare, ReduceLogSum, ReduceLogSumExp. Axes are an attribute before opset 18
// (ReduceSum: 13) and an optional input from then on; no axes reduce every axis, unless
// noop_with_empty_axes makes the op an identity.
//
// float32 folds in ONNX Runtime's order, which depends on the op and on the reduction's shape
// (OrderFor below; ops/kernels/reduce/float_reduce.h); Mean divides the float sum by the
// count, L2 and LogSum take sqrtf and logf of it. Other float types sum in double in input
// order and round once (float16 and bfloat16 then round to their type); Prod, Max and Min
// compute in the element type. Integers wrap (two's complement) and Mean truncates toward
// zero. An empty reduction gives the operation's identity: 0 for the sums, 1 for Prod, -inf
// (the type's lowest) for Max and LogSum(Exp), +inf (highest) for Min.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/elementwise.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/reduce/float_reduce.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/quantize_dequantize.h"
#include "ops/reduce_mean_quantize_dequantize.h"

namespace qrt {
namespace {

enum class Reduce { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kSumSquare, kLogSum, kLogSumExp };

// The order a float32 reduction folds in (ops/kernels/reduce/float_reduce.h).
enum class FloatOrder { kSequential, kEigen, kGroupsOfFour };

// y[i] = reduce over j of x[kept[i] + reduced[j]]: the offsets of each output's first
// input element and of the reduced elements relative to it.
struct ReduceState {
  DataType dtype;
  std::vector<int64_t> kept, reduced;
  FloatOrder order = FloatOrder::kSequential;
  FloatReduceSpec spec;  // float32
  FloatReduceFn float_reduce = ref::FloatReduce;
  // qrt:ReduceMeanQuantizeDequantize: the input's and (optional) the output's fake quantization.
  QuantizeDequantizeF32Fn in_fake_quant = nullptr, out_fake_quant = nullptr;
};

// ONNX Runtime's reduction shapes: after dropping dims of size 1 and merging neighbours of
// one kind, all reduced (R), kept-reduced (KR), reduced-kept (RK), KRK, or anything else.
enum class ReduceShape { kAll, kKR, kRK, kKRK, kOther };

ReduceShape ClassifyShape(const Dims& dims, const std::vector<char>& reduce) {
  std::string kinds;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    const char k = reduce[d] ? 'R' : 'K';
    if (kinds.empty() || kinds.back() != k) kinds += k;
  }
  if (kinds == "R" || kinds.empty()) return ReduceShape::kAll;
  if (kinds == "KR") return ReduceShape::kKR;
  if (kinds == "RK") return ReduceShape::kRK;
  if (kinds == "KRK") return ReduceShape::kKRK;
  return ReduceShape::kOther;
}

// Which order ONNX Runtime 1.30 uses for op kOp on that shape: Sum and Mean have fast paths
// for R, KR (Eigen) and KRK (SGEMM); the other sums and Prod only reduce everything with
// Eigen; all else folds element by element.
template <Reduce kOp>
FloatOrder OrderFor(ReduceShape shape) {
  if (kOp == Reduce::kSum || kOp == Reduce::kMean) {
    if (shape == ReduceShape::kAll || shape == ReduceShape::kKR) return FloatOrder::kEigen;
    if (shape == ReduceShape::kKRK) return FloatOrder::kGroupsOfFour;
    return FloatOrder::kSequential;
  }
  if (kOp == Reduce::kLogSumExp) return FloatOrder::kSequential;
  return shape == ReduceShape::kAll ? FloatOrder::kEigen : FloatOrder::kSequential;
}

// One output of a float reduction, C = float or double. `at(j)` is the j-th reduced element.
template <Reduce kOp, class C, class At>
C ReduceFloat(int64_t count, At at) {
  if constexpr (kOp == Reduce::kMax || kOp == Reduce::kMin) {
    C acc = kOp == Reduce::kMax ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
    for (int64_t j = 0; j < count; ++j) {
      const C v = at(j);
      if (std::isnan(v)) return v;
      if (kOp == Reduce::kMax ? v > acc : v < acc) acc = v;
    }
    return acc;
  } else if constexpr (kOp == Reduce::kProd) {
    C acc = 1;
    for (int64_t j = 0; j < count; ++j) acc *= at(j);
    return acc;
  } else if constexpr (kOp == Reduce::kLogSumExp) {
    // log(sum(exp(x - max))) + max: the shift keeps exp from overflowing.
    double mx = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < count; ++j) mx = std::max(mx, double(at(j)));
    if (std::isinf(mx)) return C(mx);  // also the empty reduction's -inf
    double sum = 0;
    for (int64_t j = 0; j < count; ++j) sum += std::exp(double(at(j)) - mx);
    return C(std::log(sum) + mx);
  } else {
    double sum = 0;
    for (int64_t j = 0; j < count; ++j) {
      const double v = double(at(j));
      if constexpr (kOp == Reduce::kL1) {
        sum += std::fabs(v);
      } else if constexpr (kOp == Reduce::kL2 || kOp == Reduce::kSumSquare) {
        sum += v * v;
      } else {
        sum += v;
      }
    }
    if constexpr (kOp == Reduce::kMean) return C(sum / double(count));
    if constexpr (kOp == Reduce::kL2) return C(std::sqrt(sum));
    if constexpr (kOp == Reduce::kLogSum) return C(std::log(sum));
    return C(sum);
  }
}

template <Reduce kOp, class T>
T ReduceInt(int64_t count, const T* first, const std::vector<int64_t>& reduced) {
  using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
  if constexpr (kOp == Reduce::kMax || kOp == Reduce::kMin) {
    T acc = kOp == Reduce::kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    for (int64_t r : reduced) acc = kOp == Reduce::kMax ? std::max(acc, first[r]) : std::min(acc, first[r]);
    return acc;
  } else if constexpr (kOp == Reduce::kProd) {
    U acc = 1;
    for (int64_t r : reduced) acc = U(acc * U(first[r]));
    return T(acc);
  } else if constexpr (kOp == Reduce::kLogSum || kOp == Reduce::kLogSumExp || kOp == Reduce::kL2) {
    double sum = 0;
    for (int64_t r : reduced) {
      const double v = double(first[r]);
      sum += kOp == Reduce::kLogSumExp ? std::exp(v) : (kOp == Reduce::kL2 ? v * v : v);
    }
    const double y = kOp == Reduce::kL2 ? std::sqrt(sum) : std::log(sum);
    if (!(y > double(std::numeric_limits<T>::lowest()))) return std::numeric_limits<T>::lowest();
    if (y >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return T(y);
  } else {
    uint64_t sum = 0;  // wraps instead of overflowing
    for (int64_t r : reduced) {
      const int64_t v = int64_t(first[r]);
      if constexpr (kOp == Reduce::kL1) {
        sum += uint64_t(v < 0 ? -v : v);
      } else if constexpr (kOp == Reduce::kSumSquare) {
        sum += uint64_t(v) * uint64_t(v);
      } else {
        sum += uint64_t(v);
      }
    }
    if constexpr (kOp == Reduce::kMean) return count ? T(int64_t(sum) / count) : T(0);
    return T(sum);
  }
}

// float32 sums and products in ONNX Runtime's order for the reduction's shape
// (ops/kernels/reduce/float_reduce.h); LogSumExp as m + logf(sum of expf(x - m)).
// log(sum(exp(x - max))) + max over each output, the sum sequential in float.
void ReduceLogSumExpFloat32(const ReduceState& s, const float* x, float* y) {
  const int64_t n = int64_t(s.reduced.size());
  const int64_t* red = s.reduced.data();
  auto add = [](float a, float b) { return a + b; };
  for (size_t i = 0; i < s.kept.size(); ++i) {
    const float* first = x + s.kept[i];
    float m = -std::numeric_limits<float>::infinity();
    for (int64_t j = 0; j < n; ++j) m = std::max(m, first[red[j]]);
    if (std::isinf(m)) {
      y[i] = m;
      continue;
    }
    const float sum = ref::FoldSequential(
        n, 0.f, [&](int64_t j) { return std::exp(first[red[j]] - m); }, add);
    y[i] = std::log(sum) + m;
  }
}

template <Reduce kOp>
void ReduceFloat32(const ReduceState& s, const float* x, float* y) {
  if constexpr (kOp == Reduce::kLogSumExp) {
    ReduceLogSumExpFloat32(s, x, y);
  } else {
    const int64_t n = int64_t(s.reduced.size());
    s.float_reduce(s.spec, int64_t(s.kept.size()), s.kept.data(), n, s.reduced.data(), x, y);
    for (size_t i = 0; i < s.kept.size(); ++i) {
      if constexpr (kOp == Reduce::kMean) y[i] = y[i] / float(n);
      if constexpr (kOp == Reduce::kL2) y[i] = std::sqrt(y[i]);
      if constexpr (kOp == Reduce::kLogSum) y[i] = std::log(y[i]);
    }
  }
}

// The float32 kernel's fold for kOp.
template <Reduce kOp>
FloatReduceSpec SpecFor(FloatOrder order, const std::vector<int64_t>& reduced) {
  FloatReduceSpec spec;
  spec.order = order == FloatOrder::kEigen          ? ReduceOrder::kEigen
               : order == FloatOrder::kGroupsOfFour ? ReduceOrder::kGroupsOfFour
                                                    : ReduceOrder::kSequential;
  if (kOp == Reduce::kL1) spec.map = ReduceMap::kAbs;
  if (kOp == Reduce::kL2 || kOp == Reduce::kSumSquare) spec.map = ReduceMap::kSquare;
  if (kOp == Reduce::kProd) spec.fold = ReduceFold::kMul;
  if (kOp == Reduce::kMax) spec.fold = ReduceFold::kMax;
  if (kOp == Reduce::kMin) spec.fold = ReduceFold::kMin;
  spec.reduced_contiguous = true;
  for (size_t j = 0; j < reduced.size(); ++j) spec.reduced_contiguous &= reduced[j] == int64_t(j);
  return spec;
}

template <Reduce kOp>
Status RunReduce(const ReduceState& s, const RunArgs& args) {
  const int64_t count = int64_t(s.reduced.size());
  if (s.dtype == DataType::kFloat32) {
    ReduceFloat32<kOp>(s, args.input(0)->data<float>(), args.output(0)->data<float>());
    return Status::Ok();
  }
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    const S* x = args.input(0)->data<S>();
    S* y = args.output(0)->data<S>();
    for (size_t i = 0; i < s.kept.size(); ++i) {
      const S* first = x + s.kept[i];
      if constexpr (std::is_same_v<C, bool>) {
        // bool Max/Min (opset 20): any / all.
        bool acc = kOp == Reduce::kMin;
        for (int64_t r : s.reduced) acc = kOp == Reduce::kMax ? (acc || first[r]) : (acc && first[r]);
        y[i] = acc;
      } else if constexpr (std::is_integral_v<C>) {
        y[i] = ReduceInt<kOp, C>(count, first, s.reduced);
      } else {
        y[i] = E::Store(ReduceFloat<kOp, C>(count, [&](int64_t j) { return E::Load(first[s.reduced[size_t(j)]]); }));
      }
    }
  });
  return Status::Ok();
}

// All offsets sum_d idx_d * strides[d] over the axes in `axes`, in row-major order.
std::vector<int64_t> Offsets(const Dims& dims, const std::vector<int64_t>& strides, const std::vector<size_t>& axes) {
  std::vector<int64_t> out = {0};
  for (size_t a : axes) {
    std::vector<int64_t> next;
    next.reserve(out.size() * size_t(dims[a]));
    for (int64_t base : out) {
      for (int64_t i = 0; i < dims[a]; ++i) next.push_back(base + i * strides[a]);
    }
    out.swap(next);
  }
  return out;
}

// The opset from which the op takes its axes as an input.
template <Reduce kOp>
constexpr int64_t AxesInputSince() {
  return kOp == Reduce::kSum ? 13 : 18;
}

// Checks the input, axes and attributes; fills s and returns the output dims.
template <Reduce kOp>
StatusOr<Dims> PrepareReduceState(PrepareContext& ctx, ReduceState& s) {
  const TensorInfo& x = ctx.input(0);
  const bool bool_ok = kOp == Reduce::kMax || kOp == Reduce::kMin;
  if (x.dtype == DataType::kUndefined || (x.dtype == DataType::kBool && !bool_ok)) {
    return InvalidArgument("input dtype ", DataTypeName(x.dtype), " is not supported by this op");
  }
  const int64_t rank = int64_t(x.dims.size());
  QRT_ASSIGN_OR_RETURN(int64_t keepdims, ctx.attrs().GetInt("keepdims", 1));
  std::vector<int64_t> axes;
  bool noop_if_empty = false;
  if (ctx.opset() < AxesInputSince<kOp>()) {
    if (ctx.attrs().Has("axes")) {
      QRT_ASSIGN_OR_RETURN(axes, ctx.attrs().GetInts("axes"));
    }
  } else {
    QRT_ASSIGN_OR_RETURN(int64_t noop, ctx.attrs().GetInt("noop_with_empty_axes", 0));
    noop_if_empty = noop != 0;
    if (ctx.has_input(1)) {
      QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
      if (ctx.input(1).dims.size() != 1) return InvalidArgument("axes input must be 1-D");
      if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "axes");
      axes = ToInt64Vector(*ctx.input(1).value);
    }
  }
  std::vector<char> reduce(size_t(rank), 0);
  if (axes.empty()) {
    if (!noop_if_empty) reduce.assign(size_t(rank), 1);
  } else {
    for (int64_t a : axes) {
      QRT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
      if (reduce[size_t(ax)]) return InvalidArgument("axis ", a, " is repeated");
      reduce[size_t(ax)] = 1;
    }
  }
  Dims out;
  std::vector<size_t> kept_axes, reduced_axes;
  for (size_t d = 0; d < size_t(rank); ++d) {
    if (reduce[d]) {
      reduced_axes.push_back(d);
      if (keepdims) out.push_back(1);
    } else {
      kept_axes.push_back(d);
      out.push_back(x.dims[d]);
    }
  }
  s.dtype = x.dtype;
  std::vector<int64_t> strides(size_t(rank), 1);
  for (size_t d = size_t(rank); d-- > 1;) strides[d - 1] = strides[d] * x.dims[d];
  s.kept = Offsets(x.dims, strides, kept_axes);
  s.reduced = Offsets(x.dims, strides, reduced_axes);
  s.order = OrderFor<kOp>(ClassifyShape(x.dims, reduce));
  s.spec = SpecFor<kOp>(s.order, s.reduced);
  s.float_reduce = SelectFloatReduce(ctx.isa());
  return out;
}

template <Reduce kOp>
Status PrepareReduce(PrepareContext& ctx) {
  ReduceState s;
  QRT_ASSIGN_OR_RETURN(Dims out, PrepareReduceState<kOp>(ctx, s));
  ctx.SetOutput(0, s.dtype, out);
  ctx.SetKernel<ReduceState, RunReduce<kOp>>(std::move(s));
  return Status::Ok();
}

Status RunReduceMeanQdq(const ReduceState& s, const RunArgs& args) {
  const float* x = args.input(rmqd::kX)->data<float>();
  float* y = args.output(0)->data<float>();
  const FakeQuantStep in = FakeQuantFromInputs(args, rmqd::kInScale, s.in_fake_quant);
  const int64_t n = int64_t(s.reduced.size()), outputs = int64_t(s.kept.size());
  if (s.spec.reduced_contiguous) {
    // Each run fake-quantized into a buffer at the run's own 16-byte phase, so that Eigen's
    // order (which depends on it) is the same as on the whole tensor.
    float* run = ThreadScratchFloats(ScratchSlot::kOp1, size_t(n + 4));
    for (int64_t i = 0; i < outputs; ++i) {
      const int64_t phase = s.kept[size_t(i)] % 4;
      in.map(n, x + s.kept[size_t(i)], in.scale, in.zero_point, run + phase);
      s.float_reduce(s.spec, 1, &phase, n, s.reduced.data(), run, y + i);
    }
  } else {
    const int64_t total = args.input(rmqd::kX)->numel();
    float* all = ThreadScratchFloats(ScratchSlot::kOp1, size_t(total));
    in.map(total, x, in.scale, in.zero_point, all);
    s.float_reduce(s.spec, outputs, s.kept.data(), n, s.reduced.data(), all, y);
  }
  for (int64_t i = 0; i < outputs; ++i) y[i] = y[i] / float(n);
  if (s.out_fake_quant != nullptr) {
    const FakeQuantStep out = FakeQuantFromInputs(args, rmqd::kOutScale, s.out_fake_quant);
    out.map(outputs, y, out.scale, out.zero_point, y);
  }
  return Status::Ok();
}

Status PrepareReduceMeanQdq(PrepareContext& ctx) {
  if (ctx.opset() >= AxesInputSince<Reduce::kMean>())
    return Internal("qrt:ReduceMeanQuantizeDequantize takes axes as an attribute");
  ReduceState s;
  QRT_ASSIGN_OR_RETURN(Dims out, PrepareReduceState<Reduce::kMean>(ctx, s));
  if (s.dtype != DataType::kFloat32) return InvalidArgument("X must be float32");
  QRT_ASSIGN_OR_RETURN(s.in_fake_quant, PrepareFakeQuant(ctx, rmqd::kInScale));
  if (ctx.has_input(rmqd::kOutScale)) {
    QRT_ASSIGN_OR_RETURN(s.out_fake_quant, PrepareFakeQuant(ctx, rmqd::kOutScale));
  }
  ctx.SetOutput(0, DataType::kFloat32, out);
  ctx.SetKernel<ReduceState, RunReduceMeanQdq>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kReduceSumOp{"", "ReduceSum", 1, 2, 1, 1, PrepareReduce<Reduce::kSum>};
const OpDef kReduceMeanOp{"", "ReduceMean", 1, 2, 1, 1, PrepareReduce<Reduce::kMean>};
const OpDef kReduceMaxOp{"", "ReduceMax", 1, 2, 1, 1, PrepareReduce<Reduce::kMax>};
const OpDef kReduceMinOp{"", "ReduceMin", 1, 2, 1, 1, PrepareReduce<Reduce::kMin>};
const OpDef kReduceProdOp{"", "ReduceProd", 1, 2, 1, 1, PrepareReduce<Reduce::kProd>};
const OpDef kReduceL1Op{"", "ReduceL1", 1, 2, 1, 1, PrepareReduce<Reduce::kL1>};
const OpDef kReduceL2Op{"", "ReduceL2", 1, 2, 1, 1, PrepareReduce<Reduce::kL2>};
const OpDef kReduceSumSquareOp{"", "ReduceSumSquare", 1, 2, 1, 1, PrepareReduce<Reduce::kSumSquare>};
const OpDef kReduceLogSumOp{"", "ReduceLogSum", 1, 2, 1, 1, PrepareReduce<Reduce::kLogSum>};
const OpDef kReduceLogSumExpOp{"", "ReduceLogSumExp", 1, 2, 1, 1, PrepareReduce<Reduce::kLogSumExp>};
const OpDef kReduceMeanQuantizeDequantizeOp{
    "qrt", "ReduceMeanQuantizeDequantize", rmqd::kInZeroPoint, rmqd::kInputCount, 1, 1, PrepareReduceMeanQdq};

}  // namespace qrt
