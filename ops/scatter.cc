// ScatterElements (and its older name Scatter) and ScatterND: the output is a copy of data
// with `updates` written at the places the indices name, in the order of `updates`, each
// combined by `reduction` (none, add, mul, max, min) with what is there. Negative indices
// count from the end; out of range is an error. float16/bfloat16 reduce in float32.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

struct ScatterState {
  DataType dtype;
  Reduction reduction = Reduction::kNone;
  DataType index_dtype = DataType::kInt64;
  // ScatterElements
  bool nd = false;
  Dims update_dims;
  std::vector<int64_t> data_strides;
  int64_t axis = 0, axis_len = 0;
  // ScatterND
  int64_t rows = 0, m = 0, slice = 1;
  Dims indexed;
  std::vector<int64_t> strides;
};

template <class E>
void Combine(Reduction r, typename E::Stored* at, typename E::Stored u) {
  using C = typename E::Compute;
  if (r == Reduction::kNone) {
    *at = u;
    return;
  }
  const C a = E::Load(*at), b = E::Load(u);
  C v;
  if constexpr (std::is_same_v<C, bool>) {
    v = r == Reduction::kAdd || r == Reduction::kMax ? (a || b) : (a && b);
  } else if constexpr (std::is_integral_v<C>) {
    using U = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned, std::make_unsigned_t<C>>;
    v = r == Reduction::kAdd   ? C(U(a) + U(b))
        : r == Reduction::kMul ? C(U(a) * U(b))
        : r == Reduction::kMax ? std::max(a, b)
                               : std::min(a, b);
  } else {
    v = r == Reduction::kAdd   ? a + b
        : r == Reduction::kMul ? a * b
        : r == Reduction::kMax ? std::max(a, b)
                               : std::min(a, b);
  }
  *at = E::Store(v);
}

template <class E, class I>
Status ScatterTyped(const ScatterState& s, const RunArgs& args) {
  using S = typename E::Stored;
  const Tensor& data = *args.input(0);
  Tensor& y = *args.output(0);
  if (y.raw() != data.raw()) std::memcpy(y.raw(), data.raw(), data.nbytes());
  const I* idx = args.input(1)->data<I>();
  const S* upd = args.input(2)->data<S>();
  S* out = y.data<S>();
  if (!s.nd) {
    const size_t rank = s.update_dims.size();
    const int64_t n = ElementCount(s.update_dims);
    std::vector<int64_t> pos(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = int64_t(idx[i]);
      if (k < -s.axis_len || k >= s.axis_len) {
        return InvalidArgument("index ", k, " is out of range for an axis of length ", s.axis_len);
      }
      if (k < 0) k += s.axis_len;
      int64_t off = 0;
      for (size_t d = 0; d < rank; ++d) off += (int64_t(d) == s.axis ? k : pos[d]) * s.data_strides[d];
      Combine<E>(s.reduction, out + off, upd[i]);
      for (size_t d = rank; d-- > 0;) {
        if (++pos[d] < s.update_dims[d]) break;
        pos[d] = 0;
      }
    }
    return Status::Ok();
  }
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t off = 0;
    for (int64_t j = 0; j < s.m; ++j) {
      int64_t k = int64_t(idx[r * s.m + j]);
      const int64_t len = s.indexed[size_t(j)];
      if (k < -len || k >= len) return InvalidArgument("index ", k, " is out of range for a dim of length ", len);
      if (k < 0) k += len;
      off += k * s.strides[size_t(j)];
    }
    for (int64_t e = 0; e < s.slice; ++e) Combine<E>(s.reduction, out + off * s.slice + e, upd[r * s.slice + e]);
  }
  return Status::Ok();
}

Status RunScatter(const ScatterState& s, const RunArgs& args) {
  Status result;
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    result = s.index_dtype == DataType::kInt32 ? ScatterTyped<E, int32_t>(s, args) : ScatterTyped<E, int64_t>(s, args);
  });
  return result;
}

StatusOr<Reduction> ReadReduction(const PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::string r, ctx.attrs().GetString("reduction", "none"));
  if (r == "none") return Reduction::kNone;
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return InvalidArgument("reduction must be none, add, mul, max or min, not \"", r, "\"");
}

Status PrepareScatterElements(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& ind = ctx.input(1);
  const TensorInfo& upd = ctx.input(2);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt32, DataType::kInt64}));
  if (upd.dtype != x.dtype) return InvalidArgument("updates must have data's dtype");
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("data must have rank >= 1");
  if (ind.dims != upd.dims) return InvalidArgument("indices and updates must have one shape");
  if (int64_t(ind.dims.size()) != rank) return InvalidArgument("indices and data differ in rank");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && ind.dims[size_t(d)] > x.dims[size_t(d)]) return InvalidArgument("indices exceed data on axis ", d);
  }
  ScatterState s;
  s.dtype = x.dtype;
  QRT_ASSIGN_OR_RETURN(s.reduction, ReadReduction(ctx));
  s.index_dtype = ind.dtype;
  s.update_dims = ind.dims;
  s.axis = axis;
  s.axis_len = x.dims[size_t(axis)];
  s.data_strides.assign(size_t(rank), 1);
  for (size_t d = size_t(rank); d-- > 1;) s.data_strides[d - 1] = s.data_strides[d] * x.dims[d];
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<ScatterState, RunScatter>(std::move(s));
  return Status::Ok();
}

Status PrepareScatterNd(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& ind = ctx.input(1);
  const TensorInfo& upd = ctx.input(2);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  if (upd.dtype != x.dtype) return InvalidArgument("updates must have data's dtype");
  const int64_t r = int64_t(x.dims.size()), q = int64_t(ind.dims.size());
  if (r < 1 || q < 1) return InvalidArgument("data and indices must have rank >= 1");
  ScatterState s;
  s.dtype = x.dtype;
  s.nd = true;
  QRT_ASSIGN_OR_RETURN(s.reduction, ReadReduction(ctx));
  s.m = ind.dims[size_t(q - 1)];
  if (s.m < 1 || s.m > r) return InvalidArgument("indices' last dim ", s.m, " must be in [1, ", r, "]");
  Dims expect(ind.dims.begin(), ind.dims.end() - 1);
  expect.insert(expect.end(), x.dims.begin() + s.m, x.dims.end());
  if (upd.dims != expect) {
    return InvalidArgument("updates ", DimsToString(upd.dims), " must have shape ", DimsToString(expect));
  }
  s.rows = ElementCount(Dims(ind.dims.begin(), ind.dims.end() - 1));
  for (int64_t d = s.m; d < r; ++d) s.slice *= x.dims[size_t(d)];
  s.indexed.assign(x.dims.begin(), x.dims.begin() + s.m);
  s.strides.assign(size_t(s.m), 1);
  for (int64_t j = s.m - 1; j > 0; --j) s.strides[size_t(j - 1)] = s.strides[size_t(j)] * s.indexed[size_t(j)];
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<ScatterState, RunScatter>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kScatterElementsOp{"", "ScatterElements", 3, 3, 1, 1, PrepareScatterElements};
const OpDef kScatterOp{"", "Scatter", 3, 3, 1, 1, PrepareScatterElements};
const OpDef kScatterNdOp{"", "ScatterND", 3, 3, 1, 1, PrepareScatterNd};

}  // namespace qrt
