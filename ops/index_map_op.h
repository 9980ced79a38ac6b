// Ops whose output elements are each one input element (or a fill constant), chosen axis
// by axis: prepare builds an IndexMap (ops/kernels/common/index_map.h) and the kernel runs
// it for every dtype. Shared by Slice, Pad and Tile.
#pragma once

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

}  // namespace qrt
