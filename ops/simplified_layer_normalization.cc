// SimplifiedLayerNormalization (ONNX Runtime's RMS normalization, which it registers in the ONNX
// domain and com.microsoft): each row of the trailing axes [axis, rank) divided by its root mean
// square, times scale; optional output inv_std_var of shape dims[:axis] + [1]*. float32, in ORT
// 1.30's orders (ops/kernels/norm/rms_norm.h): MLAS's kernel for rows of 16 or more, a plain
// loop for shorter ones.
#include "ops/kernels/norm/rms_norm.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct RmsState {
  int64_t rows = 1, n = 1;
  float epsilon = 1e-5f;
  RmsNormRowFn row = ref::RmsNormRow;
};

Status RunRms(const RmsState& s, const RunArgs& args) {
  const float* x = args.input(0)->data<float>();
  const float* scale = args.input(1)->data<float>();
  float* y = args.output(0)->data<float>();
  float* inv_out = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<float>() : nullptr;
  for (int64_t r = 0; r < s.rows; ++r) {
    float inv;
    s.row(s.n, x + r * s.n, scale, s.epsilon, y + r * s.n, &inv);
    if (inv_out) inv_out[r] = inv;
  }
  return Status::Ok();
}

Status PrepareRms(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype != DataType::kFloat32) return Unsupported("SimplifiedLayerNormalization on ", DataTypeName(x.dtype));
  if (x.dims.empty()) return InvalidArgument("X must have rank 1 or more");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, int64_t(x.dims.size())));
  RmsState s;
  s.rows = ElementCount(Dims(x.dims.begin(), x.dims.begin() + axis));
  s.n = ElementCount(Dims(x.dims.begin() + axis, x.dims.end()));
  if (ctx.input(1).dtype != DataType::kFloat32 || ElementCount(ctx.input(1).dims) != s.n) {
    return InvalidArgument("scale must hold ", s.n, " float32 values, the size of X's axes from ", axis);
  }
  QRT_ASSIGN_OR_RETURN(s.epsilon, ctx.attrs().GetFloat("epsilon", 1e-5f));
  s.row = SelectRmsNormRow(ctx.isa(), s.n);
  Dims stat = x.dims;
  for (size_t d = size_t(axis); d < stat.size(); ++d) stat[d] = 1;
  ctx.SetOutput(0, x.dtype, x.dims);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, stat);
  ctx.SetKernel<RmsState, RunRms>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kSimplifiedLayerNormalizationOp{"", "SimplifiedLayerNormalization", 2, 2, 1, 2, PrepareRms};
const OpDef kMsSimplifiedLayerNormalizationOp{"com.microsoft", "SimplifiedLayerNormalization", 2, 2, 1, 2, PrepareRms};

}  // namespace qrt
