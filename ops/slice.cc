// Slice (opsets 1-13: attributes before 10, inputs after): an IndexMap; starts, ends, axes
// and steps must be known when the graph is planned (they decide the output shape).
#include <algorithm>
#include <cstring>

#include "ops/index_map_op.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status PrepareSlice(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  std::vector<int64_t> starts, ends, axes, steps;
  bool have_axes = false, have_steps = false;
  if (ctx.opset() < 10) {
    QRT_ASSIGN_OR_RETURN(starts, ctx.attrs().GetInts("starts"));
    QRT_ASSIGN_OR_RETURN(ends, ctx.attrs().GetInts("ends"));
    if (ctx.attrs().Has("axes")) {
      QRT_ASSIGN_OR_RETURN(axes, ctx.attrs().GetInts("axes"));
      have_axes = true;
    }
  } else {
    if (!ctx.has_input(1) || !ctx.has_input(2)) return InvalidArgument("Slice needs starts and ends inputs");
    QRT_ASSIGN_OR_RETURN(starts, ReadIntList(ctx, 1, "starts"));
    QRT_ASSIGN_OR_RETURN(ends, ReadIntList(ctx, 2, "ends"));
    if (ctx.has_input(3)) {
      QRT_ASSIGN_OR_RETURN(axes, ReadIntList(ctx, 3, "axes"));
      have_axes = true;
    }
    if (ctx.has_input(4)) {
      QRT_ASSIGN_OR_RETURN(steps, ReadIntList(ctx, 4, "steps"));
      have_steps = true;
    }
  }
  if (starts.size() != ends.size()) {
    return InvalidArgument("starts has ", starts.size(), " entries, ends has ", ends.size());
  }
  if (!have_axes) {
    if (int64_t(starts.size()) > rank) {
      return InvalidArgument(starts.size(), " starts for an input of rank ", rank);
    }
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(int64_t(i));
  }
  if (axes.size() != starts.size()) {
    return InvalidArgument("axes has ", axes.size(), " entries, starts has ", starts.size());
  }
  if (!have_steps) steps.assign(starts.size(), 1);
  if (steps.size() != starts.size()) {
    return InvalidArgument("steps has ", steps.size(), " entries, starts has ", starts.size());
  }
  QRT_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank));

  // Per axis: first index and step (a step larger than the axis gives one element, so
  // clamping its magnitude keeps the arithmetic in range without changing the result).
  constexpr int64_t kBig = int64_t(1) << 40;
  std::vector<int64_t> first(size_t(rank), 0), step(size_t(rank), 1);
  Dims out = x.dims;
  for (size_t i = 0; i < axes.size(); ++i) {
    const size_t ax = size_t(axes[i]);
    const int64_t dim = x.dims[ax];
    const int64_t st = std::clamp<int64_t>(steps[i], -kBig, kBig);
    if (st == 0) return InvalidArgument("slice step for axis ", axes[i], " is 0");
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    int64_t len;
    if (st > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      len = e > s ? (e - s - 1) / st + 1 : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      len = s > e ? (s - e - 1) / -st + 1 : 0;
    }
    out[ax] = len;
    first[ax] = s;
    step[ax] = st;
  }
  IndexMapState state;
  state.elem_size = DataTypeSize(x.dtype);
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  state.map.out_dims = out;
  state.map.tables.resize(size_t(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    for (int64_t o = 0; o < out[d]; ++o) state.map.tables[d].push_back((first[d] + o * step[d]) * strides[d]);
  }
  FinishIndexMap(state.map);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<IndexMapState, RunIndexMapOp>(std::move(state));
  return Status::Ok();
}

}  // namespace

const OpDef kSliceOp{"", "Slice", 1, 5, 1, 1, PrepareSlice};

}  // namespace qrt
