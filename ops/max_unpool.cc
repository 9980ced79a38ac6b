// MaxUnpool(X, I, output_shape?): zeros of the unpooled shape with each X element written at
// the flat index I gives it (MaxPool's Indices output), an index into the default unpooled
// shape, (in - 1) * stride - pads_begin - pads_end + kernel per spatial axis. With a larger
// output_shape, each element keeps its coordinates in the default shape (the rest is zeros).
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct UnpoolState {
  size_t elem_size;
  Dims dflt, out;  // the default unpooled shape and the output's
};

Status RunUnpool(const UnpoolState& s, const RunArgs& args) {
  const char* x = static_cast<const char*>(args.input(0)->raw());
  const int64_t* idx = args.input(1)->data<int64_t>();
  Tensor& y = *args.output(0);
  std::memset(y.raw(), 0, y.nbytes());
  char* out = static_cast<char*>(y.raw());
  const int64_t total = ElementCount(s.dflt), n = args.input(0)->numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = idx[i];
    if (at < 0 || at >= total) return InvalidArgument("index ", at, " is outside the unpooled ", total, " elements");
    if (s.out != s.dflt) {  // the same coordinates in the larger output
      int64_t flat = 0, stride = 1, rest = at;
      for (size_t d = s.dflt.size(); d-- > 0;) {
        flat += (rest % s.dflt[d]) * stride;
        rest /= s.dflt[d];
        stride *= s.out[d];
      }
      at = flat;
    }
    std::memcpy(out + size_t(at) * s.elem_size, x + size_t(i) * s.elem_size, s.elem_size);
  }
  return Status::Ok();
}

Status PrepareUnpool(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  if (ctx.input(1).dims != x.dims) return InvalidArgument("I must have X's shape");
  if (x.dims.size() < 3) return InvalidArgument("X must be [N, C, D1, ...]");
  const size_t r = x.dims.size() - 2;
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, ctx.attrs().GetInts("kernel_shape"));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.attrs().GetInts("strides", std::vector<int64_t>(r, 1)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.attrs().GetInts("pads", std::vector<int64_t>(2 * r, 0)));
  if (kernel.size() != r || strides.size() != r || pads.size() != 2 * r) return InvalidArgument("attribute sizes");
  Dims dflt = {x.dims[0], x.dims[1]};
  for (size_t d = 0; d < r; ++d) dflt.push_back((x.dims[2 + d] - 1) * strides[d] - pads[d] - pads[r + d] + kernel[d]);
  for (int64_t d : dflt) {
    if (d < 1) return InvalidArgument("the unpooled shape ", DimsToString(dflt), " is empty or negative");
  }
  Dims out = dflt;
  if (ctx.has_input(2)) {
    if (ctx.input(2).value == nullptr) return NeedsConstant(ctx, 2, "output_shape");
    out = ToInt64Vector(*ctx.input(2).value);
    bool fits = out.size() == dflt.size();
    for (size_t d = 0; fits && d < out.size(); ++d) fits = out[d] >= dflt[d] && (d >= 2 || out[d] == dflt[d]);
    if (!fits) return InvalidArgument("output_shape ", DimsToString(out), " is smaller than ", DimsToString(dflt));
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(x.dtype)).status());
  UnpoolState s;
  s.elem_size = DataTypeSize(x.dtype);
  s.dflt = dflt;
  s.out = out;
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<UnpoolState, RunUnpool>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMaxUnpoolOp{"", "MaxUnpool", 2, 3, 1, 1, PrepareUnpool};

}  // namespace qrt
