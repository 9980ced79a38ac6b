// Trilu: the upper (upper=1, default) or lower triangle of each matrix in the last two axes,
// relative to diagonal k (a known scalar input, 0 when omitted); other elements are 0.
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct TriluState {
  size_t elem_size;
  int64_t batch = 1, rows = 0, cols = 0, k = 0;
  bool upper = true;
};

Status RunTrilu(const TriluState& s, const RunArgs& args) {
  const char* x = static_cast<const char*>(args.input(0)->raw());
  char* y = static_cast<char*>(args.output(0)->raw());
  const size_t size = s.elem_size;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t r = 0; r < s.rows; ++r) {
      const size_t row = size_t((b * s.rows + r) * s.cols) * size;
      for (int64_t c = 0; c < s.cols; ++c) {
        const bool keep = s.upper ? c - r >= s.k : c - r <= s.k;
        const size_t at = row + size_t(c) * size;
        if (keep) {
          std::memcpy(y + at, x + at, size);
        } else {
          std::memset(y + at, 0, size);
        }
      }
    }
  }
  return Status::Ok();
}

Status PrepareTrilu(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const size_t rank = x.dims.size();
  if (rank < 2) return InvalidArgument("input must have rank >= 2, not ", rank);
  TriluState s;
  s.elem_size = DataTypeSize(x.dtype);
  QRT_ASSIGN_OR_RETURN(int64_t upper, ctx.attrs().GetInt("upper", 1));
  s.upper = upper != 0;
  if (ctx.has_input(1)) {
    if (ElementCount(ctx.input(1).dims) != 1) return InvalidArgument("k must be a scalar");
    if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "k");
    s.k = ctx.input(1).value->GetAsInt64(0);
  }
  s.rows = x.dims[rank - 2];
  s.cols = x.dims[rank - 1];
  for (size_t d = 0; d + 2 < rank; ++d) s.batch *= x.dims[d];
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<TriluState, RunTrilu>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kTriluOp{"", "Trilu", 1, 2, 1, 1, PrepareTrilu};

}  // namespace qrt
