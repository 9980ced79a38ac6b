// Tile: an IndexMap (output index modulo the input length); repeats known at plan time.
#include <algorithm>
#include <cstring>

#include "ops/index_map_op.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

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
  IndexMapState state;
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
  ctx.SetKernel<IndexMapState, RunIndexMapOp>(std::move(state));
  return Status::Ok();
}

}  // namespace

const OpDef kTileOp{"", "Tile", 2, 2, 1, 1, PrepareTile};

}  // namespace qrt
