// EyeLike: a 2-D tensor of the input's shape with ones on diagonal k, zeros elsewhere, of the
// `dtype` attribute (the input's dtype when absent).
#include <cstring>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct EyeState {
  DataType dtype;
  int64_t rows = 0, cols = 0, k = 0;
};

Status RunEyeLike(const EyeState& s, const RunArgs& args) {
  Tensor& y = *args.output(0);
  std::memset(y.raw(), 0, y.nbytes());
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    typename E::Stored* out = y.data<typename E::Stored>();
    for (int64_t r = 0; r < s.rows; ++r) {
      const int64_t c = r + s.k;
      if (c >= 0 && c < s.cols) out[r * s.cols + c] = E::Store(typename E::Compute(1));
    }
  });
  return Status::Ok();
}

Status PrepareEyeLike(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dims.size() != 2) return InvalidArgument("input must be 2-D, not ", DimsToString(x.dims));
  EyeState s;
  s.dtype = x.dtype;
  if (ctx.attrs().Has("dtype")) {
    QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("dtype"));
    std::optional<DataType> t = DataTypeFromOnnx(int(code));
    if (!t) return Unsupported("dtype code ", code);
    s.dtype = *t;
  }
  QRT_ASSIGN_OR_RETURN(s.k, ctx.attrs().GetInt("k", 0));
  s.rows = x.dims[0];
  s.cols = x.dims[1];
  ctx.SetOutput(0, s.dtype, x.dims);
  ctx.SetKernel<EyeState, RunEyeLike>(std::move(s));
  ctx.SetIndependentOfInputData();
  return Status::Ok();
}

}  // namespace

const OpDef kEyeLikeOp{"", "EyeLike", 1, 1, 1, 1, PrepareEyeLike};

}  // namespace qrt
