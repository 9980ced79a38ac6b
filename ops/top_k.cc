// TopK(X, K): the K largest (largest=1) or smallest elements along `axis` and their int64
// indices, K a known one-element input. Equal values keep their input order (the lower index
// first), as ONNX specifies; NaN ranks above every number for largest and below for smallest.
// The output is sorted whether or not `sorted` asks for it (an unsorted order is unspecified).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <vector>

#include "ops/elementwise.h"
#include "ops/kernels/select/better_than.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct TopKState {
  DataType dtype;
  int64_t outer = 1, n = 1, inner = 1, k = 0;
  bool largest = true;
  BetterThanFn better_than = ref::BetterThan;  // float32 rows along a contiguous axis
};

template <class C>
bool Before(C a, int64_t ia, C b, int64_t ib, bool largest) {
  if constexpr (std::is_floating_point_v<C>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) {
      if (na && nb) return ia < ib;
      return largest ? na : nb;
    }
  }
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

// One float32 row of n contiguous values: only the candidates that beat the K-th best found
// so far are kept (better_than.h) and sorted. Every skipped element has K elements before it
// in TopK's order, so the result is the full sort's.
void TopKRowFloat32(const TopKState& s, const float* row, float* values, int64_t* indices, std::vector<int64_t>& cand) {
  const int64_t n = s.n, k = s.k;
  auto before = [&](int64_t a, int64_t b) { return Before(row[a], a, row[b], b, s.largest); };
  cand.resize(size_t(n));
  std::iota(cand.begin(), cand.begin() + k, int64_t(0));
  int64_t size = k;
  auto keep_best_k = [&] {  // cand[k - 1] becomes the K-th best; the rest are dropped
    std::nth_element(cand.begin(), cand.begin() + (k - 1), cand.begin() + size, before);
    size = k;
  };
  keep_best_k();
  constexpr int64_t kBlock = 256;
  for (int64_t i = k; i < n;) {
    const int64_t end = std::min(n, i + kBlock);
    const float t = row[cand[size_t(k - 1)]];
    if (std::isnan(t) && !s.largest) {  // NaN is the worst for the smallest: everything beats it
      for (int64_t j = i; j < end; ++j) cand[size_t(size++)] = j;
    } else {
      size += s.better_than(row, i, end, t, s.largest, cand.data() + size);
    }
    i = end;
    if (size > 2 * k + kBlock || i == n) keep_best_k();
  }
  std::sort(cand.begin(), cand.begin() + k, before);
  for (int64_t i = 0; i < k; ++i) {
    values[i] = row[cand[size_t(i)]];
    if (indices) indices[i] = cand[size_t(i)];
  }
}

Status RunTopK(const TopKState& s, const RunArgs& args) {
  int64_t* indices = args.output(1) ? args.output(1)->data<int64_t>() : nullptr;
  if (s.dtype == DataType::kFloat32 && s.inner == 1 && s.k > 0 && s.n >= 4 * s.k + 64) {
    std::vector<int64_t> cand;
    const float* x = args.input(0)->data<float>();
    float* values = args.output(0)->data<float>();
    for (int64_t o = 0; o < s.outer; ++o) {
      TopKRowFloat32(s, x + o * s.n, values + o * s.k, indices ? indices + o * s.k : nullptr, cand);
    }
    return Status::Ok();
  }
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    if constexpr (!std::is_same_v<C, bool>) {
      const S* x = args.input(0)->data<S>();
      S* values = args.output(0)->data<S>();
      std::vector<C> row(size_t(s.n));
      std::vector<int64_t> order(size_t(s.n));
      for (int64_t o = 0; o < s.outer; ++o) {
        for (int64_t j = 0; j < s.inner; ++j) {
          const int64_t base = o * s.n * s.inner + j;
          for (int64_t i = 0; i < s.n; ++i) row[size_t(i)] = E::Load(x[base + i * s.inner]);
          std::iota(order.begin(), order.end(), int64_t(0));
          std::partial_sort(order.begin(), order.begin() + s.k, order.end(), [&](int64_t a, int64_t b) {
            return Before(row[size_t(a)], a, row[size_t(b)], b, s.largest);
          });
          const int64_t out_base = o * s.k * s.inner + j;
          for (int64_t i = 0; i < s.k; ++i) {
            const int64_t from = order[size_t(i)];
            values[out_base + i * s.inner] = x[base + from * s.inner];
            if (indices) indices[out_base + i * s.inner] = from;
          }
        }
      }
    }
  });
  return Status::Ok();
}

Status PrepareTopK(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype == DataType::kBool || x.dtype == DataType::kUndefined) return InvalidArgument("X must be numeric");
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("X must have rank >= 1");
  TopKState s;
  s.dtype = x.dtype;
  if (ctx.opset() < 10) {
    QRT_ASSIGN_OR_RETURN(s.k, ctx.attrs().GetInt("k"));
  } else {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
    if (ElementCount(ctx.input(1).dims) != 1) return InvalidArgument("K must hold one element");
    if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "K");
    s.k = ctx.input(1).value->GetAsInt64(0);
  }
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  QRT_ASSIGN_OR_RETURN(int64_t largest, ctx.attrs().GetInt("largest", 1));
  s.largest = largest != 0;
  s.better_than = SelectBetterThan(ctx.isa());
  Dims out = x.dims;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis) s.outer *= v;
    if (d == axis) s.n = v;
    if (d > axis) s.inner *= v;
  }
  if (s.k < 0 || s.k > s.n) return InvalidArgument("K ", s.k, " must be in [0, ", s.n, "] (the axis length)");
  out[size_t(axis)] = s.k;
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetOutput(1, DataType::kInt64, out);
  ctx.SetKernel<TopKState, RunTopK>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kTopKOp{"", "TopK", 1, 2, 2, 2, PrepareTopK};

}  // namespace qrt
