// Slice, Pad and Tile. Each maps every output element to one input element (or, for
// Pad, to the constant) axis by axis, so prepare builds an IndexMap and the kernel is
// RunIndexMap for every dtype. Starts, ends, axes, steps, pads and repeats must be known
// when the graph is planned: they decide the output shape.
#include <algorithm>
#include <cstring>

#include "ops/kernels/index_map.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct MapState {
  IndexMap map;
  size_t elem_size = 0;
  unsigned char fill[8] = {0};
  int fill_input = -1;  // Pad: read the constant from this input at run time
};

Status RunMap(const MapState& s, const RunArgs& args) {
  const void* fill = s.fill;
  if (s.fill_input >= 0 && args.input(s.fill_input) != nullptr) fill = args.input(s.fill_input)->raw();
  RunIndexMap(s.map, s.elem_size, args.input(0)->raw(), args.output(0)->raw(), fill);
  return Status::Ok();
}

// An int32/int64 1-D input whose value is needed at plan time.
StatusOr<std::vector<int64_t>> ReadIntList(const PrepareContext& ctx, int input, const char* what) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, input, {DataType::kInt32, DataType::kInt64}));
  if (ctx.input(input).dims.size() != 1) {
    return InvalidArgument(what, " must be 1-D, got shape ", DimsToString(ctx.input(input).dims));
  }
  if (ctx.input(input).value == nullptr) return NeedsConstant(ctx, input, what);
  return ToInt64Vector(*ctx.input(input).value);
}

// Axes in [-rank, rank), normalized; repeats are an error.
StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<char> seen(size_t(rank), 0);
  for (int64_t a : axes) {
    QRT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
    if (seen[size_t(ax)]) return InvalidArgument("axis ", a, " is repeated");
    seen[size_t(ax)] = 1;
    out.push_back(ax);
  }
  return out;
}

// ---- Slice ---------------------------------------------------------------------------

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
  MapState state;
  state.elem_size = DataTypeSize(x.dtype);
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  state.map.out_dims = out;
  state.map.tables.resize(size_t(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    for (int64_t o = 0; o < out[d]; ++o) state.map.tables[d].push_back((first[d] + o * step[d]) * strides[d]);
  }
  FinishIndexMap(state.map);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<MapState, RunMap>(std::move(state));
  return Status::Ok();
}

// ---- Pad -----------------------------------------------------------------------------

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Input index for virtual index i (relative to the input's first element) on an axis of
// length n > 0, or -1 for the constant.
int64_t PadSource(PadMode mode, int64_t i, int64_t n) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant: return -1;
    case PadMode::kEdge: return i < 0 ? 0 : n - 1;
    case PadMode::kWrap: return ((i % n) + n) % n;
    case PadMode::kReflect: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);  // numpy 'reflect': the edge is not repeated
      int64_t m = ((i % period) + period) % period;
      return m < n ? m : period - m;
    }
  }
  return -1;
}

Status PreparePad(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  MapState state;
  state.elem_size = DataTypeSize(x.dtype);
  QRT_ASSIGN_OR_RETURN(std::string mode_name, ctx.attrs().GetString("mode", std::string("constant")));
  PadMode mode;
  if (mode_name == "constant") {
    mode = PadMode::kConstant;
  } else if (mode_name == "reflect") {
    mode = PadMode::kReflect;
  } else if (mode_name == "edge") {
    mode = PadMode::kEdge;
  } else if (mode_name == "wrap" && ctx.opset() >= 19) {
    mode = PadMode::kWrap;
  } else {
    return InvalidArgument("unknown Pad mode '", mode_name, "'");
  }

  std::vector<int64_t> pads, axes;
  if (ctx.opset() < 11) {
    QRT_ASSIGN_OR_RETURN(pads, ctx.attrs().GetInts("pads"));
    QRT_ASSIGN_OR_RETURN(float value, ctx.attrs().GetFloat("value", 0.f));
    ScalarToBytes(x.dtype, value, state.fill);
  } else {
    if (!ctx.has_input(1)) return InvalidArgument("Pad needs the pads input");
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
    QRT_ASSIGN_OR_RETURN(pads, ReadIntList(ctx, 1, "pads"));
    if (ctx.has_input(2)) {
      const TensorInfo& cv = ctx.input(2);
      if (cv.dtype != x.dtype) {
        return InvalidArgument("constant_value dtype ", DataTypeName(cv.dtype), " differs from data dtype ",
                               DataTypeName(x.dtype));
      }
      if (ElementCount(cv.dims) != 1 || cv.dims.size() > 1) return InvalidArgument("constant_value must be a scalar");
      state.fill_input = 2;
    }
    if (ctx.has_input(3)) {
      if (ctx.opset() < 18) return InvalidArgument("Pad axes input needs opset 18");
      QRT_ASSIGN_OR_RETURN(axes, ReadIntList(ctx, 3, "axes"));
    }
  }
  if (axes.empty() && !(ctx.opset() >= 18 && ctx.has_input(3))) {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  QRT_ASSIGN_OR_RETURN(axes, NormalizeAxes(axes, rank));
  if (pads.size() != 2 * axes.size()) {
    return InvalidArgument("pads has ", pads.size(), " entries; expected ", 2 * axes.size());
  }
  std::vector<int64_t> before(size_t(rank), 0), after(size_t(rank), 0);
  for (size_t i = 0; i < axes.size(); ++i) {
    before[size_t(axes[i])] = pads[i];
    after[size_t(axes[i])] = pads[i + axes.size()];
  }
  Dims out(static_cast<size_t>(rank));
  constexpr int64_t kLimit = int64_t(1) << 40;
  for (size_t d = 0; d < size_t(rank); ++d) {
    if (before[d] > kLimit || before[d] < -kLimit || after[d] > kLimit || after[d] < -kLimit) {
      return InvalidArgument("pad ", before[d], "/", after[d], " on axis ", d, " is out of range");
    }
    out[d] = x.dims[d] + before[d] + after[d];
    if (out[d] < 0) {
      return InvalidArgument("pads ", before[d], ", ", after[d], " on axis ", d, " of length ", x.dims[d],
                             " give a negative length");
    }
    if (x.dims[d] == 0 && out[d] > 0 && mode != PadMode::kConstant) {
      return InvalidArgument("cannot pad an empty axis in ", mode_name, " mode");
    }
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, state.elem_size).status());
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  state.map.out_dims = out;
  state.map.tables.resize(size_t(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    for (int64_t o = 0; o < out[d]; ++o) {
      const int64_t src = x.dims[d] == 0 ? -1 : PadSource(mode, o - before[d], x.dims[d]);
      state.map.tables[d].push_back(src < 0 ? kIndexMapFill : src * strides[d]);
    }
  }
  FinishIndexMap(state.map);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<MapState, RunMap>(std::move(state));
  return Status::Ok();
}

// ---- Tile ----------------------------------------------------------------------------

Status PrepareTile(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ReadIntList(ctx, 1, "repeats"));
  if (int64_t(repeats.size()) != rank) {
    return InvalidArgument("repeats has ", repeats.size(), " entries for an input of rank ", rank);
  }
  Dims out(static_cast<size_t>(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    if (repeats[d] < 0) return InvalidArgument("negative repeat ", repeats[d], " on axis ", d);
    QRT_ASSIGN_OR_RETURN(out[d], CheckedElementCount(Dims{x.dims[d], repeats[d]}));
  }
  MapState state;
  state.elem_size = DataTypeSize(x.dtype);
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, state.elem_size).status());
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  state.map.out_dims = out;
  state.map.tables.resize(size_t(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    for (int64_t o = 0; o < out[d]; ++o) state.map.tables[d].push_back((o % x.dims[d]) * strides[d]);
  }
  FinishIndexMap(state.map);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<MapState, RunMap>(std::move(state));
  return Status::Ok();
}

}  // namespace

const OpDef kSliceOp{"", "Slice", 1, 5, 1, 1, PrepareSlice};
const OpDef kPadOp{"", "Pad", 1, 4, 1, 1, PreparePad};
const OpDef kTileOp{"", "Tile", 2, 2, 1, 1, PrepareTile};

}  // namespace qrt
