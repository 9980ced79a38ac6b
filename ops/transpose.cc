// Transpose: pure data movement, every dtype: an IndexMap (output axis d walks input axis
// perm[d]). A permutation that keeps some leading axes and swaps the two groups of axes after
// them ([P, A, B] -> [P, B, A]: NCHW <-> NHWC, a matrix transpose) goes through square tiles
// instead, so that both the reads and the writes stay within a few cache lines.
#include <algorithm>
#include <cstring>

#include "ops/kernels/common/index_map.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct TransposeState {
  IndexMap map;
  size_t elem_size = 0;
  int64_t p = 0, a = 0, b = 0;  // the tiled form, [p, a, b] -> [p, b, a]; p == 0: the map
};

template <class T>
void TransposeTiles(const TransposeState& s, const T* x, T* y) {
  TransposeBlocks(s.p, s.a, s.b, x, y);
}

Status RunTranspose(const TransposeState& s, const RunArgs& args) {
  const void* x = args.input(0)->raw();
  void* y = args.output(0)->raw();
  if (s.p == 0) {
    RunIndexMap(s.map, s.elem_size, x, y, nullptr);
    return Status::Ok();
  }
  switch (s.elem_size) {  // data movement: only the element size matters
    case 1:
      TransposeTiles(s, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y));
      break;
    case 2:
      TransposeTiles(s, static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y));
      break;
    case 4:
      TransposeTiles(s, static_cast<const uint32_t*>(x), static_cast<uint32_t*>(y));
      break;
    default:
      TransposeTiles(s, static_cast<const uint64_t*>(x), static_cast<uint64_t*>(y));
      break;
  }
  return Status::Ok();
}

// perm = [0 .. k-1, k+m .. r-1, k .. k+m-1] for some k and m > 0, both groups non-empty: the
// tiled form's p, a, b (all > 0); false otherwise.
bool TiledForm(const Dims& dims, const std::vector<int64_t>& perm, TransposeState& s) {
  const int64_t r = int64_t(perm.size());
  int64_t k = 0;
  while (k < r && perm[size_t(k)] == k) ++k;
  if (k >= r - 1) return false;           // the identity
  const int64_t split = perm[size_t(k)];  // the first axis of the second group
  for (int64_t d = k; d < r; ++d) {
    const int64_t want = d - k < r - split ? split + (d - k) : k + (d - k) - (r - split);
    if (perm[size_t(d)] != want) return false;
  }
  s.p = ElementCount(Dims(dims.begin(), dims.begin() + k));
  s.a = ElementCount(Dims(dims.begin() + k, dims.begin() + split));
  s.b = ElementCount(Dims(dims.begin() + split, dims.end()));
  if (s.p == 0 || s.a == 0 || s.b == 0 || s.elem_size > 8 || (s.elem_size & (s.elem_size - 1)) != 0) {
    s.p = 0;
    return false;
  }
  return true;
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
  Dims out(static_cast<size_t>(rank));
  for (size_t d = 0; d < size_t(rank); ++d) out[d] = x.dims[size_t(perm[d])];
  TransposeState s;
  s.elem_size = DataTypeSize(x.dtype);
  if (!TiledForm(x.dims, perm, s)) s.map = PermutationMap(x.dims, perm);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<TransposeState, RunTranspose>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kTransposeOp{"", "Transpose", 1, 1, 1, 1, PrepareTranspose};

}  // namespace qrt
