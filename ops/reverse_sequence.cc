// ReverseSequence: along time_axis, the first sequence_lens[b] elements of each batch entry b
// (batch_axis) reversed, the rest copied. Pure data movement, every dtype.
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct ReverseState {
  size_t elem_size;
  Dims dims;
  int64_t time_axis = 0, batch_axis = 1;
};

Status RunReverse(const ReverseState& s, const RunArgs& args) {
  const char* x = static_cast<const char*>(args.input(0)->raw());
  char* y = static_cast<char*>(args.output(0)->raw());
  const Tensor& lens = *args.input(1);
  const size_t rank = s.dims.size();
  const int64_t n = ElementCount(s.dims);
  std::vector<int64_t> idx(rank, 0), strides(rank, 1);
  for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * s.dims[d];
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = idx[size_t(s.batch_axis)], t = idx[size_t(s.time_axis)];
    const int64_t len = lens.GetAsInt64(b);
    if (len < 0 || len > s.dims[size_t(s.time_axis)]) {
      return InvalidArgument("sequence_lens[", b, "] = ", len, " is outside [0, ", s.dims[size_t(s.time_axis)], "]");
    }
    const int64_t from = t < len ? i + (len - 1 - 2 * t) * strides[size_t(s.time_axis)] : i;
    std::memcpy(y + size_t(i) * s.elem_size, x + size_t(from) * s.elem_size, s.elem_size);
    for (size_t d = rank; d-- > 0;) {
      if (++idx[d] < s.dims[d]) break;
      idx[d] = 0;
    }
  }
  return Status::Ok();
}

Status PrepareReverse(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  if (x.dims.size() < 2) return InvalidArgument("input must have rank >= 2");
  ReverseState s;
  s.elem_size = DataTypeSize(x.dtype);
  s.dims = x.dims;
  QRT_ASSIGN_OR_RETURN(s.time_axis, ctx.attrs().GetInt("time_axis", 0));
  QRT_ASSIGN_OR_RETURN(s.batch_axis, ctx.attrs().GetInt("batch_axis", 1));
  const bool ok = (s.time_axis == 0 && s.batch_axis == 1) || (s.time_axis == 1 && s.batch_axis == 0);
  if (!ok) return InvalidArgument("time_axis and batch_axis must be 0 and 1 in some order");
  if (ctx.input(1).dims != Dims{x.dims[size_t(s.batch_axis)]}) return InvalidArgument("sequence_lens must be [batch]");
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<ReverseState, RunReverse>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kReverseSequenceOp{"", "ReverseSequence", 2, 2, 1, 1, PrepareReverse};

}  // namespace qrt
