// Ops whose output elements are each one input element (or a fill constant), chosen axis
// by axis: prepare builds an IndexMap (ops/kernels/common/index_map.h) and the kernel runs
// it for every dtype. Shared by Slice, Pad and Tile, with the plan-time reads they need.
#pragma once

#include <vector>

#include "ops/kernels/common/index_map.h"
#include "ops/op_util.h"

namespace qrt {

struct IndexMapState {
  IndexMap map;
  size_t elem_size = 0;
  unsigned char fill[8] = {0};
  int fill_input = -1;  // Pad: read the constant from this input at run time
};

inline Status RunIndexMapOp(const IndexMapState& s, const RunArgs& args) {
  const void* fill = s.fill;
  if (s.fill_input >= 0 && args.input(s.fill_input) != nullptr) fill = args.input(s.fill_input)->raw();
  RunIndexMap(s.map, s.elem_size, args.input(0)->raw(), args.output(0)->raw(), fill);
  return Status::Ok();
}

// An int32/int64 1-D input whose value is needed at plan time.
inline StatusOr<std::vector<int64_t>> ReadIntList(const PrepareContext& ctx, int input, const char* what) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, input, {DataType::kInt32, DataType::kInt64}));
  if (ctx.input(input).dims.size() != 1) {
    return InvalidArgument(what, " must be 1-D, got shape ", DimsToString(ctx.input(input).dims));
  }
  if (ctx.input(input).value == nullptr) return NeedsConstant(ctx, input, what);
  return ToInt64Vector(*ctx.input(input).value);
}

// Axes in [-rank, rank), normalized; repeats are an error.
inline StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
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

}  // namespace qrt
