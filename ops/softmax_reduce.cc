// Softmax and ReduceMean.
//   Softmax:    float32: ONNX Runtime's row computation (ops/kernels/softmax.h: its exp
//               approximation, lane sums, a multiply by 1/sum), bit for bit. Other float
//               types: y_i = exp(x_i - max_j x_j) / sum_j exp(x_j - max_j x_j), exp and the
//               difference in the element's type, the sum in double, one division. Before opset 13 the
//               input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] and each
//               row is one softmax; from 13 on the softmax runs along the single axis.
//   ReduceMean: sum of the reduced elements in input order (double for floats, int64 for
//               integers), divided by their count (integers: truncated toward zero).
// float16 and bfloat16 compute in float32 and round once.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/kernels/softmax.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// ---- Softmax -------------------------------------------------------------------------

struct SoftmaxState {
  DataType dtype;
  int64_t outer = 1, n = 1, inner = 1;
  SoftmaxRowFn row = nullptr;  // float32: ORT's row kernel (ops/kernels/softmax.h)
};

// float32: each row (strided rows through a contiguous copy, as ORT transposes them).
void SoftmaxFloatRows(const SoftmaxState& s, const float* x, float* y) {
  if (s.inner == 1) {
    for (int64_t o = 0; o < s.outer; ++o) s.row(s.n, x + o * s.n, y + o * s.n);
    return;
  }
  thread_local std::vector<float> in, out;
  in.resize(size_t(s.n));
  out.resize(size_t(s.n));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < s.inner; ++k) {
      const int64_t base = o * s.n * s.inner + k;
      for (int64_t i = 0; i < s.n; ++i) in[size_t(i)] = x[base + i * s.inner];
      s.row(s.n, in.data(), out.data());
      for (int64_t i = 0; i < s.n; ++i) y[base + i * s.inner] = out[size_t(i)];
    }
  }
}

template <class T, class Load, class Store>
void SoftmaxRows(const SoftmaxState& s, Load load, Store store) {
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < s.inner; ++k) {
      const int64_t base = o * s.n * s.inner + k;
      T m = -std::numeric_limits<T>::infinity();
      for (int64_t i = 0; i < s.n; ++i) {
        const T v = load(base + i * s.inner);
        if (v > m || std::isnan(v)) m = v;
      }
      double sum = 0;
      for (int64_t i = 0; i < s.n; ++i) sum += double(std::exp(load(base + i * s.inner) - m));
      for (int64_t i = 0; i < s.n; ++i) {
        const int64_t at = base + i * s.inner;
        store(at, T(double(std::exp(load(at) - m)) / sum));
      }
    }
  }
}

Status RunSoftmax(const SoftmaxState& s, const RunArgs& args) {
  const void* x = args.input(0)->raw();
  void* y = args.output(0)->raw();
  if (s.row != nullptr) {
    SoftmaxFloatRows(s, static_cast<const float*>(x), static_cast<float*>(y));
  } else if (s.dtype == DataType::kFloat64) {
    const double* px = static_cast<const double*>(x);
    double* py = static_cast<double*>(y);
    SoftmaxRows<double>(s, [&](int64_t i) { return px[i]; }, [&](int64_t i, double v) { py[i] = v; });
  } else {
    const DataType t = s.dtype;
    SoftmaxRows<float>(s, [&](int64_t i) { return LoadFloat(t, x, i); }, [&](int64_t i, float v) { StoreFloat(t, y, i, v); });
  }
  return Status::Ok();
}

Status PrepareSoftmax(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                           DataType::kBFloat16}));
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("Softmax input must have rank >= 1");
  const bool coerce_2d = ctx.opset() < 13;
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", coerce_2d ? 1 : -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  SoftmaxState s;
  s.dtype = x.dtype;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis) s.outer *= v;
    else if (d == axis || coerce_2d) s.n *= v;
    else s.inner *= v;
  }
  if (s.dtype == DataType::kFloat32) s.row = SelectSoftmaxRow(ctx.isa());
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<SoftmaxState, RunSoftmax>(std::move(s));
  return Status::Ok();
}

// ---- ReduceMean ----------------------------------------------------------------------

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
// time so that their chains of adds overlap, and no per-element type dispatch (MobileNetV2's
// global pooling, 1280 x 49, took 47 us, now 35).
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
    case DataType::kInt32: MeanInt(s, static_cast<const int32_t*>(x), static_cast<int32_t*>(y)); break;
    case DataType::kInt64: MeanInt(s, static_cast<const int64_t*>(x), static_cast<int64_t*>(y)); break;
    case DataType::kFloat32: MeanFloat32(s, static_cast<const float*>(x), static_cast<float*>(y)); break;
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
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                           DataType::kBFloat16, DataType::kInt32, DataType::kInt64}));
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

const OpDef kSoftmaxOp{"", "Softmax", 1, 1, 1, 1, PrepareSoftmax};
const OpDef kReduceMeanOp{"", "ReduceMean", 1, 2, 1, 1, PrepareReduceMean};

}  // namespace qrt
