// Unique(X): the unique elements of X flattened, or the unique slices along `axis`; sorted
// (ascending, slices compared element by element) or in the order of their first occurrence.
// Outputs: Y, the index of each unique element's first occurrence, each input element's (slice's)
// index into Y, and each unique element's count, all int64 but Y. Data-dependent
// (data_dependent.h).
#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <type_traits>
#include <vector>

#include "ops/data_dependent.h"
#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// Slices [0, n) of `inner` elements, `outer` times (the axis in the middle): slice s is the
// elements x[(o * n + s) * inner + k] for every o and k, compared in that order.
template <class C>
std::vector<std::vector<C>> Slices(const std::vector<C>& x, int64_t outer, int64_t n, int64_t inner) {
  std::vector<std::vector<C>> s(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < inner; ++k) s[size_t(i)].push_back(x[size_t((o * n + i) * inner + k)]);
    }
  }
  return s;
}

Status PrepareUnique(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.value == nullptr) return NeedsConstant(ctx, 0, "X, whose unique count is the output's shape");
  QRT_ASSIGN_OR_RETURN(int64_t sorted, ctx.attrs().GetInt("sorted", 1));
  const bool flat = !ctx.attrs().Has("axis");
  int64_t axis = 0;
  if (!flat) {
    QRT_ASSIGN_OR_RETURN(int64_t a, ctx.attrs().GetInt("axis"));
    QRT_ASSIGN_OR_RETURN(axis, NormalizeAxis(a, int64_t(x.dims.size())));
  }
  const Dims dims = flat ? Dims{ElementCount(x.dims)} : x.dims;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t n = dims[size_t(axis)];
  std::vector<Tensor> outputs;
  Status status;
  const bool known = DispatchElem(x.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    const S* p = x.value->data<S>();
    std::vector<C> values(size_t(x.value->numel()));
    for (size_t i = 0; i < values.size(); ++i) values[i] = E::Load(p[i]);
    const std::vector<std::vector<C>> slices = Slices(values, outer, n, inner);
    // Unique slices in first-occurrence order, then (sorted) in ascending order.
    std::map<std::vector<C>, int64_t> seen;  // slice -> its position in `order`
    std::vector<int64_t> first, count, inverse(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto [it, fresh] = seen.emplace(slices[size_t(i)], int64_t(first.size()));
      if (fresh) first.push_back(i), count.push_back(0);
      ++count[size_t(it->second)];
      inverse[size_t(i)] = it->second;
    }
    const int64_t u = int64_t(first.size());
    std::vector<int64_t> rank(static_cast<size_t>(u));  // position in Y of each first-occurrence unique
    std::iota(rank.begin(), rank.end(), int64_t(0));
    if (sorted != 0) {
      std::vector<int64_t> by_value(static_cast<size_t>(u));
      std::iota(by_value.begin(), by_value.end(), int64_t(0));
      std::sort(by_value.begin(), by_value.end(), [&](int64_t a, int64_t b) {
        return slices[size_t(first[size_t(a)])] < slices[size_t(first[size_t(b)])];
      });
      for (int64_t r = 0; r < u; ++r) rank[size_t(by_value[size_t(r)])] = r;
    }
    Dims y_dims = dims;
    y_dims[size_t(axis)] = u;
    StatusOr<Tensor> y = Tensor::Allocate(x.dtype, y_dims);
    StatusOr<Tensor> idx = Tensor::Allocate(DataType::kInt64, {u});
    StatusOr<Tensor> inv = Tensor::Allocate(DataType::kInt64, {n});
    StatusOr<Tensor> cnt = Tensor::Allocate(DataType::kInt64, {u});
    if (!y.ok() || !idx.ok() || !inv.ok() || !cnt.ok()) {
      status = ResourceExhausted("Unique's outputs do not fit");
      return;
    }
    S* yp = y->template data<S>();
    for (int64_t j = 0; j < u; ++j) {
      const int64_t r = rank[size_t(j)], src = first[size_t(j)];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t k = 0; k < inner; ++k) yp[(o * u + r) * inner + k] = p[(o * n + src) * inner + k];
      }
      idx->template data<int64_t>()[r] = src;
      cnt->template data<int64_t>()[r] = count[size_t(j)];
    }
    for (int64_t i = 0; i < n; ++i) inv->template data<int64_t>()[i] = rank[size_t(inverse[size_t(i)])];
    outputs.push_back(std::move(*y));
    outputs.push_back(std::move(*idx));
    outputs.push_back(std::move(*inv));
    outputs.push_back(std::move(*cnt));
  });
  if (!known) return InvalidArgument("X has no dtype");
  QRT_RETURN_IF_ERROR(status);
  SetComputedOutputs(ctx, std::move(outputs));
  return Status::Ok();
}

}  // namespace

const OpDef kUniqueOp{"", "Unique", 1, 1, 1, 4, PrepareUnique};

}  // namespace qrt
