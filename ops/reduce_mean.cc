// ReduceMean: sum of the reduced elements in input order (double for floats, int64 for
// integers), divided by their count (integers: truncated toward zero). float16 and bfloat16
// compute in float32 and round once.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// y[i] = mean over j of x[kept[i] + reduced[j]]: the offsets of each output's first
// input element and of the reduced elements relative to it.
struct ReduceState {
  DataType dtype;
  std::vector<int64_t> kept, reduced;
};

template <class T>
void MeanInt(const ReduceState& s, const T* x, T* y) {
  const int64_t count = int64_t(s.reduced.size());
  for (size_t i = 0; i < s.kept.size(); ++i) {
    uint64_t sum = 0;  // wraps instead of overflowing
    for (int64_t r : s.reduced) sum += uint64_t(int64_t(x[s.kept[i] + r]));
    y[i] = count ? T(int64_t(sum) / count) : T(0);
  }
}

// float32: each output's sum as in the general loop (double, input order), eight outputs at a
// time so that their chains of adds overlap, and no per-element type dispatch.
void MeanFloat32(const ReduceState& s, const float* x, float* y) {
  constexpr size_t kOutputs = 8;
  const double count = double(s.reduced.size());
  size_t i = 0;
  for (; i + kOutputs <= s.kept.size(); i += kOutputs) {
    const float* first[kOutputs];
    double sum[kOutputs];
    for (size_t o = 0; o < kOutputs; ++o) first[o] = x + s.kept[i + o], sum[o] = 0;
    for (int64_t r : s.reduced) {
      for (size_t o = 0; o < kOutputs; ++o) sum[o] += double(first[o][r]);
    }
    for (size_t o = 0; o < kOutputs; ++o) y[i + o] = float(sum[o] / count);
  }
  for (; i < s.kept.size(); ++i) {
    double sum = 0;
    for (int64_t r : s.reduced) sum += double(x[s.kept[i] + r]);
    y[i] = float(sum / count);
  }
}

Status RunReduceMean(const ReduceState& s, const RunArgs& args) {
  const void* x = args.input(0)->raw();
  void* y = args.output(0)->raw();
  const double count = double(s.reduced.size());
  switch (s.dtype) {
    case DataType::kInt32:
      MeanInt(s, static_cast<const int32_t*>(x), static_cast<int32_t*>(y));
      break;
    case DataType::kInt64:
      MeanInt(s, static_cast<const int64_t*>(x), static_cast<int64_t*>(y));
      break;
    case DataType::kFloat32:
      MeanFloat32(s, static_cast<const float*>(x), static_cast<float*>(y));
      break;
    case DataType::kFloat64: {
      const double* px = static_cast<const double*>(x);
      for (size_t i = 0; i < s.kept.size(); ++i) {
        double sum = 0;
        for (int64_t r : s.reduced) sum += px[s.kept[i] + r];
        static_cast<double*>(y)[i] = sum / count;
      }
      break;
    }
    default:
      for (size_t i = 0; i < s.kept.size(); ++i) {
        double sum = 0;
        for (int64_t r : s.reduced) sum += double(LoadFloat(s.dtype, x, s.kept[i] + r));
        StoreFloat(s.dtype, y, int64_t(i), float(sum / count));
      }
  }
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

Status PrepareReduceMean(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0,
                                  {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16,
                                   DataType::kInt32, DataType::kInt64}));
  const int64_t rank = int64_t(x.dims.size());
  QRT_ASSIGN_OR_RETURN(int64_t keepdims, ctx.attrs().GetInt("keepdims", 1));
  std::vector<int64_t> axes;
  bool noop_if_empty = false;
  if (ctx.opset() < 18) {
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
  ReduceState s;
  s.dtype = x.dtype;
  const std::vector<int64_t> strides = [&] {
    std::vector<int64_t> st(size_t(rank), 1);
    for (size_t d = size_t(rank); d-- > 1;) st[d - 1] = st[d] * x.dims[d];
    return st;
  }();
  s.kept = Offsets(x.dims, strides, kept_axes);
  s.reduced = Offsets(x.dims, strides, reduced_axes);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<ReduceState, RunReduceMean>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kReduceMeanOp{"", "ReduceMean", 1, 2, 1, 1, PrepareReduceMean};

}  // namespace qrt
