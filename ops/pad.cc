// Pad (opsets 2-21: constant, reflect, edge, and wrap from opset 19): an IndexMap whose out-of-input
// entries write the constant; the pads must be known when the graph is planned.
#include <algorithm>
#include <cstring>

#include "ops/index_map_op.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

// Input index for virtual index i (relative to the input's first element) on an axis of
// length n > 0, or -1 for the constant.
int64_t PadSource(PadMode mode, int64_t i, int64_t n) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case PadMode::kConstant:
      return -1;
    case PadMode::kEdge:
      return i < 0 ? 0 : n - 1;
    case PadMode::kWrap:
      return ((i % n) + n) % n;
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
  IndexMapState state;
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
  ctx.SetKernel<IndexMapState, RunIndexMapOp>(std::move(state));
  return Status::Ok();
}

}  // namespace

const OpDef kPadOp{"", "Pad", 1, 4, 1, 1, PreparePad};

}  // namespace qrt
