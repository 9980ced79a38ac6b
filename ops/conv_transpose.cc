// ConvTranspose (1-D to 3-D, groups, strides, dilations, pads, auto_pad, output_padding,
// output_shape), float32 in ONNX Runtime's order; other float types widen to float32 and
// round once. Per image and group, as ONNX Runtime computes it:
//   col[kd, p] = sum over the group's input channels ci of W[ci, kd] * X[ci, p]
//     (kd runs over the group's output channels and kernel offsets; a GEMM with W transposed,
//      in MLAS's summation order: ops/kernels/gemm/sgemm.h)
//   col2im: y = 0, then for each kd (channel, kernel offset) and each input position p in
//     order, y[channel, p * stride - pad + offset * dilation] += col[kd, p] where inside;
//   then y += B[channel] when there is a bias.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ops/conv_transpose_quantize_dequantize.h"
#include "ops/elementwise.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/conv/col2im.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/quantize_dequantize.h"

namespace qrt {
namespace {

struct ConvTransposeState {
  DataType dtype;
  int64_t batch = 1, in_channels = 1, out_channels = 1, group = 1;
  Dims in_spatial, out_spatial, kernel, strides, dilations, pads_begin;
  bool has_bias = false;
  Col2ImGeometry geometry;
  SgemmFn gemm = nullptr;
  int threads = 1;
  QuantizeDequantizeF32Fn fake_quant = nullptr;  // qrt:ConvTransposeQuantizeDequantize
};

// float32 input, weights and bias (widened copies for the other float types).
void RunFloat(const ConvTransposeState& s, const float* x, const float* w, const float* b, float* y,
              const FakeQuantStep* fake_quant = nullptr) {
  const int64_t cin_g = s.in_channels / s.group, cout_g = s.out_channels / s.group;
  const int64_t kernel_size = ElementCount(s.kernel), in_size = ElementCount(s.in_spatial);
  const int64_t out_size = ElementCount(s.out_spatial), kd = cout_g * kernel_size;
  float* wt = ThreadScratchFloats(ScratchSlot::kOp1, size_t(kd * cin_g));
  float* col = ThreadScratchFloats(ScratchSlot::kOp2, size_t(kd * in_size));
  std::memset(y, 0, size_t(s.batch * s.out_channels * out_size) * sizeof(float));
  for (int64_t g = 0; g < s.group; ++g) {
    // W's group block [cin_g, kd] transposed to the GEMM's row-major A [kd, cin_g].
    const float* wg = w + g * cin_g * kd;
    for (int64_t ci = 0; ci < cin_g; ++ci) {
      for (int64_t j = 0; j < kd; ++j) wt[j * cin_g + ci] = wg[ci * kd + j];
    }
    for (int64_t n = 0; n < s.batch; ++n) {
      SgemmArgs a;
      a.m = kd;
      a.n = in_size;
      a.k = cin_g;
      a.a = wt;
      a.lda = cin_g;
      a.b = x + (n * s.in_channels + g * cin_g) * in_size;
      a.ldb = in_size;
      a.c = col;
      a.ldc = in_size;
      a.one_row_kernels = false;  // MLAS takes A transposed here
      a.threads = s.threads;
      s.gemm(a);
      Col2ImByRows(s.geometry, cout_g, col, y + (n * s.out_channels + g * cout_g) * out_size);
    }
  }
  if (b == nullptr && fake_quant == nullptr) return;
  for (int64_t n = 0; n < s.batch; ++n) {
    for (int64_t c = 0; c < s.out_channels; ++c) {
      float* plane = y + (n * s.out_channels + c) * out_size;
      if (b != nullptr) {
        for (int64_t i = 0; i < out_size; ++i) plane[i] = plane[i] + b[c];
      }
      if (fake_quant != nullptr) fake_quant->map(out_size, plane, fake_quant->scale, fake_quant->zero_point, plane);
    }
  }
}

Status RunConvTranspose(const ConvTransposeState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const Tensor& w = *args.input(1);
  const Tensor* b = s.has_bias ? args.input(2) : nullptr;
  Tensor& y = *args.output(0);
  if (s.dtype == DataType::kFloat32) {
    RunFloat(s, x.data<float>(), w.data<float>(), b ? b->data<float>() : nullptr, y.data<float>());
    return Status::Ok();
  }
  const std::vector<float> xf = ToFloat32Vector(x), wf = ToFloat32Vector(w),
                           bf = b ? ToFloat32Vector(*b) : std::vector<float>();
  std::vector<float> yf(size_t(y.numel()));
  RunFloat(s, xf.data(), wf.data(), b ? bf.data() : nullptr, yf.data());
  StoreFromFloat32(yf, y);
  return Status::Ok();
}

StatusOr<std::vector<int64_t>> IntsOr(const PrepareContext& ctx, const char* name, size_t n, int64_t dflt) {
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.attrs().GetInts(name, std::vector<int64_t>(n, dflt)));
  if (v.size() != n) return InvalidArgument(name, " has ", v.size(), " values, expected ", n);
  return v;
}

// Checks the inputs and attributes and fills s; returns the output dims.
StatusOr<Dims> PrepareConvTransposeState(PrepareContext& ctx, ConvTransposeState& s) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& w = ctx.input(1);
  if (!IsFloatType(x.dtype)) return InvalidArgument("X must be a float type, not ", DataTypeName(x.dtype));
  if (w.dtype != x.dtype) return InvalidArgument("W must have X's dtype");
  const size_t rank = x.dims.size();
  if (rank < 3 || rank > 5) return Unsupported("ConvTranspose on rank ", rank, " (qrt has 1-D to 3-D)");
  if (w.dims.size() != rank) return InvalidArgument("W ", DimsToString(w.dims), " and X differ in rank");
  const size_t r = rank - 2;
  s.dtype = x.dtype;
  s.batch = x.dims[0];
  s.in_channels = x.dims[1];
  QRT_ASSIGN_OR_RETURN(s.group, ctx.attrs().GetInt("group", 1));
  if (s.group < 1 || s.in_channels % s.group != 0 || w.dims[0] != s.in_channels) {
    return InvalidArgument("W ", DimsToString(w.dims), " does not fit ", s.in_channels, " channels in ", s.group,
                           " groups");
  }
  s.out_channels = w.dims[1] * s.group;
  s.in_spatial.assign(x.dims.begin() + 2, x.dims.end());
  QRT_ASSIGN_OR_RETURN(s.kernel, IntsOr(ctx, "kernel_shape", r, 0));
  for (size_t d = 0; d < r; ++d) {
    if (s.kernel[d] == 0) s.kernel[d] = w.dims[2 + d];
    if (s.kernel[d] != w.dims[2 + d]) return InvalidArgument("kernel_shape does not match W");
  }
  QRT_ASSIGN_OR_RETURN(s.strides, IntsOr(ctx, "strides", r, 1));
  QRT_ASSIGN_OR_RETURN(s.dilations, IntsOr(ctx, "dilations", r, 1));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, IntsOr(ctx, "output_padding", r, 0));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, IntsOr(ctx, "pads", 2 * r, 0));
  QRT_ASSIGN_OR_RETURN(std::string auto_pad, ctx.attrs().GetString("auto_pad", "NOTSET"));
  for (size_t d = 0; d < r; ++d) {
    if (s.strides[d] < 1 || s.dilations[d] < 1 || s.kernel[d] < 1 || pads[d] < 0 || pads[r + d] < 0) {
      return InvalidArgument("strides, dilations and the kernel must be positive, pads not negative");
    }
    if (out_pad[d] < 0 || (out_pad[d] >= s.strides[d] && out_pad[d] >= s.dilations[d])) {
      return InvalidArgument("output_padding ", out_pad[d], " must be below the stride or the dilation");
    }
  }
  std::vector<int64_t> out_shape;
  if (ctx.attrs().Has("output_shape")) {
    QRT_ASSIGN_OR_RETURN(out_shape, ctx.attrs().GetInts("output_shape"));
    if (out_shape.size() == r + 2) out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
    if (out_shape.size() != r) return InvalidArgument("output_shape needs ", r, " spatial dims");
  }
  s.pads_begin.assign(r, 0);
  s.out_spatial.assign(r, 0);
  for (size_t d = 0; d < r; ++d) {
    const int64_t full = s.strides[d] * (s.in_spatial[d] - 1) + out_pad[d] + (s.kernel[d] - 1) * s.dilations[d] + 1;
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t target = out_shape.empty() ? s.in_spatial[d] * s.strides[d] : out_shape[d];
      const int64_t total = full - target;
      // Odd padding: SAME_LOWER (and NOTSET) put the extra one at the start, SAME_UPPER at the
      // end. A target beyond the full output extends it with zeros at the end.
      s.pads_begin[d] = total < 0 ? 0 : auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      s.out_spatial[d] = target;
    } else if (auto_pad == "NOTSET" || auto_pad == "VALID") {
      if (auto_pad == "VALID") pads[d] = pads[r + d] = 0;
      s.pads_begin[d] = pads[d];
      s.out_spatial[d] = full - pads[d] - pads[r + d];
    } else {
      return InvalidArgument("auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID, not \"", auto_pad, "\"");
    }
    if (s.out_spatial[d] < 0) return InvalidArgument("the output would have a negative size");
  }
  if (ctx.has_input(2)) {
    if (ctx.input(2).dtype != x.dtype || ctx.input(2).dims != Dims{s.out_channels}) {
      return InvalidArgument("B must be [", s.out_channels, "] of X's dtype");
    }
    s.has_bias = true;
  }
  Dims out = {s.batch, s.out_channels};
  out.insert(out.end(), s.out_spatial.begin(), s.out_spatial.end());
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, sizeof(float)).status());
  const int64_t kd = (s.out_channels / s.group) * ElementCount(s.kernel);
  QRT_RETURN_IF_ERROR(CheckedElementCount({kd, ElementCount(s.in_spatial)}, sizeof(float)).status());
  s.geometry.rank = int(r);
  for (size_t d = 0; d < r; ++d) {
    s.geometry.in[d] = s.in_spatial[d];
    s.geometry.out[d] = s.out_spatial[d];
    s.geometry.kernel[d] = s.kernel[d];
    s.geometry.stride[d] = s.strides[d];
    s.geometry.dilation[d] = s.dilations[d];
    s.geometry.pad_begin[d] = s.pads_begin[d];
  }
  s.gemm = SelectSgemmKernel(ctx.isa());
  s.threads = ctx.threads();
  return out;
}

Status PrepareConvTranspose(PrepareContext& ctx) {
  ConvTransposeState s;
  QRT_ASSIGN_OR_RETURN(Dims out, PrepareConvTransposeState(ctx, s));
  ctx.SetOutput(0, s.dtype, out);
  ctx.SetKernel<ConvTransposeState, RunConvTranspose>(std::move(s));
  return Status::Ok();
}

Status RunConvTransposeQdq(const ConvTransposeState& s, const RunArgs& args) {
  const FakeQuantStep fake_quant = FakeQuantFromInputs(args, ctqd::kScale, s.fake_quant);
  const Tensor* b = s.has_bias ? args.input(ctqd::kB) : nullptr;
  RunFloat(s, args.input(ctqd::kX)->data<float>(), args.input(ctqd::kW)->data<float>(), b ? b->data<float>() : nullptr,
           args.output(0)->data<float>(), &fake_quant);
  return Status::Ok();
}

Status PrepareConvTransposeQdq(PrepareContext& ctx) {
  ConvTransposeState s;
  QRT_ASSIGN_OR_RETURN(Dims out, PrepareConvTransposeState(ctx, s));
  if (s.dtype != DataType::kFloat32) return InvalidArgument("X and W must be float32");
  if (!ctx.has_input(ctqd::kScale)) return InvalidArgument("the output scale is required");
  QRT_ASSIGN_OR_RETURN(s.fake_quant, PrepareFakeQuant(ctx, ctqd::kScale));
  ctx.SetOutput(0, s.dtype, out);
  ctx.SetKernel<ConvTransposeState, RunConvTransposeQdq>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kConvTransposeOp{"", "ConvTranspose", 2, 3, 1, 1, PrepareConvTranspose};
const OpDef kConvTransposeQuantizeDequantizeOp{
    "qrt", "ConvTransposeQuantizeDequantize", ctqd::kScale + 1, ctqd::kInputCount, 1, 1, PrepareConvTransposeQdq};

}  // namespace qrt
