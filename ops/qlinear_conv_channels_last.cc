// com.microsoft QLinearConv: ONNX QLinearConv plus `channels_last`, which ONNX Runtime's
// layout transformer sets when it moves a model to NHWC: X is then [N, spatial..., C] and
// Y [N, spatial..., M]. With channels_last 0 it is ONNX QLinearConv. With 1 it runs
// QLinearConv's own preparation and kernel (ops/conv.cc) on X moved to [N, C, spatial...],
// and moves Y back, so both layouts give the same bits.
#include <algorithm>

#include "ops/kernels/common/index_map.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/qlinear_conv.h"

namespace qrt {
namespace {

struct ChannelsLastState {
  Kernel inner;         // QLinearConv's kernel on [N, C, spatial...]
  Dims x_dims, y_dims;  // the inner kernel's input and output dims
  int64_t batch = 0;
  int64_t x_plane = 0, x_channels = 0;
  int64_t y_plane = 0, y_channels = 0;
};

Status RunChannelsLast(const ChannelsLastState& s, const RunArgs& args) {
  const Tensor& x = *args.input(qlconv::kX);
  Tensor& y = *args.output(0);
  uint8_t* xt = static_cast<uint8_t*>(ThreadScratch(ScratchSlot::kWrappedIn, size_t(x.numel())));
  uint8_t* yt = static_cast<uint8_t*>(ThreadScratch(ScratchSlot::kWrappedOut, size_t(y.numel())));
  TransposeBlocks(s.batch, s.x_plane, s.x_channels, static_cast<const uint8_t*>(x.raw()), xt);
  Tensor x_nchw = Tensor::Borrow(x.dtype(), s.x_dims, xt);
  Tensor y_nchw = Tensor::Borrow(y.dtype(), s.y_dims, yt);
  const Tensor* inputs[qlconv::kInputCount] = {};
  std::copy(args.inputs, args.inputs + args.num_inputs, inputs);  // num_inputs <= kInputCount (the OpDef)
  inputs[qlconv::kX] = &x_nchw;
  Tensor* outputs[1] = {&y_nchw};
  const RunArgs inner{inputs, outputs, args.num_inputs, 1};
  QRT_RETURN_IF_ERROR(s.inner.run(s.inner.state.get(), inner));
  TransposeBlocks(s.batch, s.y_channels, s.y_plane, yt, static_cast<uint8_t*>(y.raw()));
  return Status::Ok();
}

Status PrepareMsQLinearConv(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(int64_t channels_last, ctx.attrs().GetInt("channels_last", 0));
  if (channels_last != 0 && channels_last != 1) {
    return InvalidArgument("channels_last must be 0 or 1, not ", channels_last);
  }
  std::vector<TensorInfo> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
  const Dims& xd = ctx.input(qlconv::kX).dims;
  if (channels_last == 1) {
    if (xd.size() < 3) return InvalidArgument("X must have rank 3 or more with channels_last, not ", xd.size());
    Dims nchw = {xd[0], xd.back()};
    nchw.insert(nchw.end(), xd.begin() + 1, xd.end() - 1);
    inputs[qlconv::kX].dims = nchw;
    inputs[qlconv::kX].value = nullptr;  // a constant X is read at run time through the transpose
  }
  PrepareContext conv(ctx.node(), std::move(inputs), ctx.options());
  QRT_RETURN_IF_ERROR(kQLinearConvOp.prepare(conv));
  ctx.SetKernelNote(conv.kernel_note());
  if (channels_last == 0) {
    ctx.SetOutput(0, conv.output(0).dtype, conv.output(0).dims);
    ctx.SetKernel(conv.TakeKernel());
    return Status::Ok();
  }
  ChannelsLastState s;
  s.x_dims = conv.input(qlconv::kX).dims;
  s.y_dims = conv.output(0).dims;
  s.batch = s.x_dims[0];
  s.x_channels = s.x_dims[1];
  s.x_plane = ElementCount(Dims(s.x_dims.begin() + 2, s.x_dims.end()));
  s.y_channels = s.y_dims[1];
  s.y_plane = ElementCount(Dims(s.y_dims.begin() + 2, s.y_dims.end()));
  Dims nhwc = {s.y_dims[0]};
  nhwc.insert(nhwc.end(), s.y_dims.begin() + 2, s.y_dims.end());
  nhwc.push_back(s.y_channels);
  ctx.SetOutput(0, conv.output(0).dtype, nhwc);
  s.inner = conv.TakeKernel();
  ctx.SetKernel<ChannelsLastState, RunChannelsLast>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMsQLinearConvOp{"com.microsoft",     "QLinearConv", qlconv::kYZeroPoint + 1, qlconv::kInputCount, 1, 1,
                             PrepareMsQLinearConv};

}  // namespace qrt
