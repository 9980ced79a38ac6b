// The softmax family: Softmax, LogSoftmax and Hardmax along one axis.
// Softmax and LogSoftmax on float32 follow ONNX Runtime's row computation
// (ops/kernels/eltwise/softmax.h: its exp approximation, lane sums, a multiply by 1/sum or a
// subtraction of log(sum)), bit for bit. Other float types: y_i = exp(x_i - m) / sum_j
// exp(x_j - m) (LogSoftmax: (x_i - m) - log(sum)), m the row's maximum, exp and the difference
// in the element's type, the sum in double. Hardmax is 1 at the first maximum of each row.
// Before opset 13 the input is coerced to 2-D [prod(dims[:axis]), prod(dims[axis:])] and each
// row is one softmax; from 13 on it runs along the single axis. float16 and bfloat16 compute
// in float32 and round once.
#include "ops/kernels/eltwise/softmax.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Family { kSoftmax, kLogSoftmax, kHardmax };

struct SoftmaxState {
  Family op = Family::kSoftmax;
  DataType dtype;
  int64_t outer = 1, n = 1, inner = 1;
  SoftmaxRowFn row = nullptr;  // float32: ORT's row kernel (ops/kernels/eltwise/softmax.h)
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
      if (s.op == Family::kHardmax) {
        bool found = false;
        for (int64_t i = 0; i < s.n; ++i) {
          const int64_t at = base + i * s.inner;
          const bool first_max = !found && (load(at) == m || (std::isnan(m) && std::isnan(load(at))));
          found = found || first_max;
          store(at, T(first_max ? 1 : 0));
        }
        continue;
      }
      double sum = 0;
      for (int64_t i = 0; i < s.n; ++i) sum += double(std::exp(load(base + i * s.inner) - m));
      if (s.op == Family::kLogSoftmax) {
        const T log_sum = T(std::log(sum));
        for (int64_t i = 0; i < s.n; ++i) {
          const int64_t at = base + i * s.inner;
          store(at, T((load(at) - m) - log_sum));
        }
        continue;
      }
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
    SoftmaxRows<double>(
        s, [&](int64_t i) { return px[i]; }, [&](int64_t i, double v) { py[i] = v; });
  } else {
    const DataType t = s.dtype;
    SoftmaxRows<float>(
        s, [&](int64_t i) { return LoadFloat(t, x, i); }, [&](int64_t i, float v) { StoreFloat(t, y, i, v); });
  }
  return Status::Ok();
}

template <Family kOp>
Status PrepareSoftmax(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(
      ExpectDType(ctx, 0, {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16, DataType::kBFloat16}));
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("Softmax input must have rank >= 1");
  const bool coerce_2d = ctx.opset() < 13;
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", coerce_2d ? 1 : -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  SoftmaxState s;
  s.op = kOp;
  s.dtype = x.dtype;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis)
      s.outer *= v;
    else if (d == axis || coerce_2d)
      s.n *= v;
    else
      s.inner *= v;
  }
  if (s.dtype == DataType::kFloat32 && kOp == Family::kSoftmax) s.row = SelectSoftmaxRow(ctx.isa());
  if (s.dtype == DataType::kFloat32 && kOp == Family::kLogSoftmax) s.row = SelectLogSoftmaxRow(ctx.isa());
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<SoftmaxState, RunSoftmax>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kSoftmaxOp{"", "Softmax", 1, 1, 1, 1, PrepareSoftmax<Family::kSoftmax>};
const OpDef kLogSoftmaxOp{"", "LogSoftmax", 1, 1, 1, 1, PrepareSoftmax<Family::kLogSoftmax>};
const OpDef kHardmaxOp{"", "Hardmax", 1, 1, 1, 1, PrepareSoftmax<Family::kHardmax>};

}  // namespace qrt
