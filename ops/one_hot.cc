// OneHot(indices, depth, values): a new axis of length depth (a known scalar) at `axis`,
// values[1] where the index (negative counts from depth) matches and values[0] elsewhere;
// an index outside [-depth, depth) gives a row of values[0].
#include <cmath>
#include <cstring>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct OneHotState {
  DataType index_dtype;
  size_t elem_size;
  int64_t outer = 1, depth = 0, inner = 1;
};

Status RunOneHot(const OneHotState& s, const RunArgs& args) {
  const char* values = static_cast<const char*>(args.input(2)->raw());
  char* y = static_cast<char*>(args.output(0)->raw());
  const size_t size = s.elem_size;
  const Tensor& ind = *args.input(0);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < s.inner; ++k) {
      const double v = ind.GetAsDouble(o * s.inner + k);
      int64_t hot = -1;
      if (std::fabs(v) < double(s.depth) + 1) {  // also false for NaN; keeps the cast in range
        const int64_t i = int64_t(v);            // ONNX: non-integer indices are cast to int64
        if (i >= -s.depth && i < s.depth) hot = i < 0 ? i + s.depth : i;
      }
      for (int64_t d = 0; d < s.depth; ++d) {
        std::memcpy(y + size_t((o * s.depth + d) * s.inner + k) * size, values + (d == hot ? size : 0), size);
      }
    }
  }
  return Status::Ok();
}

Status PrepareOneHot(PrepareContext& ctx) {
  const TensorInfo& ind = ctx.input(0);
  const TensorInfo& depth = ctx.input(1);
  const TensorInfo& values = ctx.input(2);
  if (ind.dtype == DataType::kBool || ind.dtype == DataType::kUndefined)
    return InvalidArgument("indices must be numeric");
  if (ElementCount(depth.dims) != 1) return InvalidArgument("depth must hold one element");
  if (depth.value == nullptr) return NeedsConstant(ctx, 1, "depth");
  if (ElementCount(values.dims) != 2 || values.dims.size() != 1) return InvalidArgument("values must be [off, on]");
  const double dv = depth.value->GetAsDouble(0);
  if (!(dv >= 1 && dv < 9e15)) return InvalidArgument("depth ", dv, " must be positive");
  const int64_t rank = int64_t(ind.dims.size()) + 1;
  if (rank > kMaxRank) return ResourceExhausted("rank ", rank, " exceeds the limit");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  OneHotState s;
  s.index_dtype = ind.dtype;
  s.elem_size = DataTypeSize(values.dtype);
  s.depth = int64_t(dv);
  Dims out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == axis) {
      out.push_back(s.depth);
      continue;
    }
    const int64_t v = ind.dims[size_t(d < axis ? d : d - 1)];
    out.push_back(v);
    (d < axis ? s.outer : s.inner) *= v;
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, s.elem_size).status());
  ctx.SetOutput(0, values.dtype, out);
  ctx.SetKernel<OneHotState, RunOneHot>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kOneHotOp{"", "OneHot", 3, 3, 1, 1, PrepareOneHot};

}  // namespace qrt
