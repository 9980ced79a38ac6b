// qrt:SoftmaxQuantized (ops/softmax_quantized.h): per row, the codes dequantized into a row of
// floats, Softmax's row kernel, QuantizeLinear's kernel into the output; rows strided by the
// axis (inner > 1) are gathered first, as Softmax itself does.
#include "ops/softmax_quantized.h"

#include <algorithm>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/eltwise/softmax.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

using namespace smq;

struct SmqState {
  int64_t outer = 1, n = 1, inner = 1;
  DataType x_type = DataType::kUInt8, y_type = DataType::kUInt8;
  DequantizeToF32Fn dequantize = nullptr;
  SoftmaxRowFn softmax = nullptr;
  QuantizeF32Fn quantize = nullptr;
};

int32_t ZeroPoint(const Tensor* zp) {
  if (zp == nullptr) return 0;
  return zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[0] : zp->data<uint8_t>()[0];
}

Status RunSmq(const SmqState& s, const RunArgs& args) {
  const uint8_t* x = static_cast<const uint8_t*>(args.input(kX)->raw());
  uint8_t* y = static_cast<uint8_t*>(args.output(0)->raw());
  const float x_scale = args.input(kXScale)->data<float>()[0];
  const float y_scale = args.input(kYScale)->data<float>()[0];
  const int32_t x_zp = ZeroPoint(args.input(kXZeroPoint));
  const int32_t y_zp = ZeroPoint(args.input(kYZeroPoint));
  float* in = ThreadScratchFloats(ScratchSlot::kOp0, size_t(s.n));
  float* out = ThreadScratchFloats(ScratchSlot::kOp1, size_t(s.n));
  uint8_t* codes = ThreadScratchArray<uint8_t>(ScratchSlot::kOp2, size_t(s.n));
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t k = 0; k < s.inner; ++k) {
      const int64_t base = o * s.n * s.inner + k;
      const uint8_t* row = x + base;
      if (s.inner != 1) {
        for (int64_t i = 0; i < s.n; ++i) codes[i] = x[base + i * s.inner];
        row = codes;
      }
      s.dequantize(s.n, row, x_scale, x_zp, in);
      s.softmax(s.n, in, out);
      if (s.inner == 1) {
        s.quantize(s.n, out, y_scale, y_zp, y + base);
      } else {
        s.quantize(s.n, out, y_scale, y_zp, codes);
        for (int64_t i = 0; i < s.n; ++i) y[base + i * s.inner] = codes[i];
      }
    }
  }
  return Status::Ok();
}

Status PrepareSmq(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(kX);
  if (x.dtype != DataType::kUInt8 && x.dtype != DataType::kInt8) {
    return InvalidArgument("SoftmaxQuantized takes 8-bit X, not ", DataTypeName(x.dtype));
  }
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("SoftmaxQuantized input must have rank >= 1");
  for (int i : {kXScale, kYScale}) {
    if (ctx.input(i).dtype != DataType::kFloat32 || ElementCount(ctx.input(i).dims) != 1) {
      return InvalidArgument("input ", i, " must be one float32 scale");
    }
  }
  SmqState s;
  s.x_type = x.dtype;
  s.y_type = ctx.has_input(kYZeroPoint) ? ctx.input(kYZeroPoint).dtype : DataType::kUInt8;
  if (s.y_type != DataType::kUInt8 && s.y_type != DataType::kInt8) return InvalidArgument("Y must be 8-bit");
  if (ctx.has_input(kXZeroPoint) && ctx.input(kXZeroPoint).dtype != x.dtype) {
    return InvalidArgument("X's zero point must be ", DataTypeName(x.dtype));
  }
  QRT_ASSIGN_OR_RETURN(int64_t coerce, ctx.attrs().GetInt("coerce_2d", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", coerce ? 1 : -1));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t v = x.dims[size_t(d)];
    if (d < axis)
      s.outer *= v;
    else if (d == axis || coerce)
      s.n *= v;
    else
      s.inner *= v;
  }
  s.dequantize = SelectDequantizeToF32(s.x_type, ctx.isa());
  s.softmax = SelectSoftmaxRow(ctx.isa());
  s.quantize = SelectQuantizeF32(s.y_type, ctx.isa());
  ctx.SetOutput(0, s.y_type, x.dims);
  ctx.SetKernel<SmqState, RunSmq>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQrtSoftmaxQuantizedOp{"qrt", "SoftmaxQuantized", kYScale + 1, kInputCount, 1, 1, PrepareSmq};

}  // namespace qrt
