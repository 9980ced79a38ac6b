// Transpose: pure data movement, every dtype: an IndexMap (output axis d walks input axis
// perm[d]).
#include <cstring>

#include "ops/kernels/common/index_map.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct TransposeState {
  IndexMap map;
  size_t elem_size = 0;
};

Status RunTranspose(const TransposeState& s, const RunArgs& args) {
  RunIndexMap(s.map, s.elem_size, args.input(0)->raw(), args.output(0)->raw(), nullptr);
  return Status::Ok();
}

Status PrepareTranspose(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  std::vector<int64_t> perm;
  if (ctx.attrs().Has("perm")) {
    QRT_ASSIGN_OR_RETURN(perm, ctx.attrs().GetInts("perm"));
  } else {
    for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (int64_t(perm.size()) != rank) {
    return InvalidArgument("perm has ", perm.size(), " entries for an input of rank ", rank);
  }
  std::vector<char> seen(size_t(rank), 0);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[size_t(p)]) {
      return InvalidArgument("perm ", DimsToString(perm), " is not a permutation of 0..", rank - 1);
    }
    seen[size_t(p)] = 1;
  }
  TransposeState s;
  s.elem_size = DataTypeSize(x.dtype);
  const std::vector<int64_t> strides = ContiguousStrides(x.dims);
  Dims out(static_cast<size_t>(rank));
  s.map.tables.resize(size_t(rank));
  for (size_t d = 0; d < size_t(rank); ++d) {
    const size_t src = size_t(perm[d]);
    out[d] = x.dims[src];
    for (int64_t o = 0; o < out[d]; ++o) s.map.tables[d].push_back(o * strides[src]);
  }
  s.map.out_dims = out;
  FinishIndexMap(s.map);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<TransposeState, RunTranspose>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kTransposeOp{"", "Transpose", 1, 1, 1, 1, PrepareTranspose};

}  // namespace qrt
