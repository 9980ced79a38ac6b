// ONNX Conv, ConvInteger and QLinearConv (1-D to 3-D). The numerics are those of the
// reference kernels (ops/kernels/conv/conv_ref.h, the requantization in matmul_ref.h); the
// fast paths below must reproduce them:
//
//   Conv (f32): every sum in ONNX Runtime's MLAS order (conv_float.h): im2col or direct
//     GEMM with the ordered GEMM of ops/kernels/gemm/sgemm.h, AVX2 or reference, bit-identical.
//     oneDNN's f32 convolution is not used for Conv: its summation order differs, and in a
//     QDQ graph a last-bit difference becomes a quantization step. f64: the reference.
//   ConvInteger / QLinearConv: the int32 accumulators must be exact:
//     - igemm: at the AVX2 tier and above, im2col panels of (x - x_zp) and rows of w' in
//       int16 and the integer GEMM (ops/kernels/igemm/igemm.h): exact products and a wrapping
//       int32 sum, the reference's bits for any weights, constant or not (constant W at the
//       AVX-512 VNNI tier: bytes and VPDPBUSD, IgemmConvQuads). Taken where IgemmConvPays
//       (conv_plan.cc); otherwise a oneDNN path where it is proven exact at plan time from the
//       constant weights:
//     - onednn-int8: oneDNN u8 x s8 -> s32 (u8 input, constant input zero point). oneDNN on
//       AVX2 adds pairs of u8*s8 products in saturating s16 and converts accumulators
//       through f32 (docs/onednn-2.6.md, 2b), so it needs w' = w - w_zp in [-64,63]
//       (2*255*64 < 2^15) and 255 * sum_k |w'| <= 2^24 for every output channel (every
//       raw sum, zero-point compensation and result is then an exact f32 integer).
//     - onednn-f32: oneDNN f32 convolution of (x - x_zp) and w' as floats, when
//       max|x - x_zp| * sum_k |w'| <= 2^24 for every output channel: every partial sum
//       in any order is then an integer of magnitude <= 2^24, exact in f32 (FMA too).
//       Depthwise convolutions prefer this path (OnednnInt8Pays, conv_plan.cc).
//     - exact-f32: the same bound and the same floats through qrt's own float kernels, X's
//       codes read as x - x_zp while the planes are filled. Taken at the AVX2 tier and above
//       where the float planner picks the 3x3 depthwise lanes or rows kernels (oneDNN's
//       depthwise took 37 us where these take 10 on a 32-channel stride-2 layer).
//     - reference: everything else (full-range weights with long reductions, non-constant
//       weights or zero points).
//     The bias is added to the exact accumulator in int32 (wrapping) by qrt in every
//     path, and the requantization is always qrt's (RequantizeLikeOrt).
//   Plans compiled with Isa::kScalar use the reference kernels only.
//
// qrt:ConvQuantizeDequantize (made by fuse-conv-fake-quant) is a float Conv followed by
// element-wise steps, each optional (at least one): inputs X, W, B; a Relu's or Clip's clamp
// (float attributes clamp_min, clamp_max); then a qrt:QuantizeDequantize's scale and zero point (3, 4); a PRelu's
// slope, one value or one per channel (5); another QuantizeDequantize's scale and zero point (6, 7). The steps run on
// each block of outputs once it is final (OutputEpilogue): the same operations on the same floats, so the result is the
// unfused chain's to the bit. Two int attributes (link-conv-codes) let two such convolutions pass 8-bit codes between
// them instead of floats:
//   output_codes 1: the output is QuantizeLinear(conv, s, z) with inputs 3, 4 (the only step),
//     the codes whose dequantized values the fake quantization would have written;
//   input_codes 1: input 0 is 8-bit codes and X is DequantizeLinear(input 0, s, z) with
//     inputs 8, 9 (one scale, a zero point of input 0's type or none).
//
// qrt:QLinearConv (made by fuse-qdq-conv) is QLinearConv plus a clamp of the quantized output
// (ops/qlinear_conv.h).
//
// Each prepare chooses its algorithm once (ops/kernels/conv/conv_plan.h, whose table holds the
// thresholds), notes it for `qrt inspect --json`, and the run switches on it. The compile option
// conv_algorithm forces one: a convolution of the algorithm's family (float: Conv and
// ConvQuantizeDequantize; integer: ConvInteger and QLinearConv) that it cannot compute, or not
// provably exactly, fails to plan; the other family ignores it.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/conv_integer_to_float.h"
#include "ops/conv_quantize_dequantize.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/conv/code_patches.h"
#include "ops/kernels/conv/conv_float.h"
#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/dwconv/depthwise_int8.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/kernels/igemm/igemm.h"
#include "ops/kernels/pwconv/conv_pointwise_int8.h"
#include "ops/kernels/quantize/requantize.h"
#include "ops/kernels/quantize/scale_int32.h"
#include "ops/onednn/onednn_conv.h"
#include "ops/onednn/onednn_util.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/qlinear_conv.h"
#include "ops/quantize_dequantize.h"
#include "runtime/kernel_isa.h"
#include "runtime/quant_grid.h"

namespace qrt {
namespace {

// Input/output dims and attributes -> geometry (ONNX Conv shape rules, auto_pad included).
StatusOr<ConvGeometry> MakeGeometry(const PrepareContext& ctx, const Dims& x, const Dims& w) {
  if (x.size() < 3 || x.size() > 5) return Unsupported("convolution of rank ", x.size(), " input");
  if (w.size() != x.size()) return InvalidArgument("W has rank ", w.size(), ", X has rank ", x.size());
  const int r = int(x.size()) - 2;
  ConvGeometry g;
  g.spatial_rank = r;
  g.batch = x[0];
  g.in_channels = x[1];
  g.out_channels = w[0];
  QRT_ASSIGN_OR_RETURN(g.group, ctx.attrs().GetInt("group", 1));
  if (g.group < 1 || g.in_channels % g.group != 0 || g.out_channels % g.group != 0 || w[1] * g.group != g.in_channels) {
    return InvalidArgument("group ", g.group, " does not fit X ", DimsToString(x), " and W ", DimsToString(w));
  }
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> ks, ctx.attrs().GetInts("kernel_shape", std::vector<int64_t>{}));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> strides, ctx.attrs().GetInts("strides", std::vector<int64_t>(r, 1)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> dil, ctx.attrs().GetInts("dilations", std::vector<int64_t>(r, 1)));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ctx.attrs().GetInts("pads", std::vector<int64_t>(2 * r, 0)));
  QRT_ASSIGN_OR_RETURN(std::string auto_pad, ctx.attrs().GetString("auto_pad", "NOTSET"));
  if (strides.empty()) strides.assign(r, 1);
  if (dil.empty()) dil.assign(r, 1);
  if (pads.empty()) pads.assign(2 * r, 0);
  if (int(strides.size()) != r || int(dil.size()) != r || int(pads.size()) != 2 * r ||
      (!ks.empty() && int(ks.size()) != r)) {
    return InvalidArgument("strides/dilations/pads/kernel_shape do not match ", r, " spatial dims");
  }
  for (int i = 0; i < r; ++i) {
    const int d = 3 - r + i;
    if (!ks.empty() && ks[i] != w[2 + i]) {
      return InvalidArgument("kernel_shape ", ks[i], " differs from W dim ", w[2 + i]);
    }
    // Bounds keep (kernel - 1) * dilation, in + pads and out * stride far inside int64
    // (kernel dims are bounded by the tensor size limit) and refuse ONNX-invalid values.
    constexpr int64_t kLimit = int64_t(1) << 24;
    if (strides[i] < 1 || dil[i] < 1 || strides[i] > kLimit || dil[i] > kLimit) {
      return InvalidArgument("strides and dilations must be in [1, ", kLimit, "], got ", strides[i], " and ", dil[i]);
    }
    if (auto_pad == "NOTSET" && (pads[i] < 0 || pads[r + i] < 0 || pads[i] > kLimit || pads[r + i] > kLimit)) {
      return InvalidArgument("pads must be in [0, ", kLimit, "], got ", pads[i], " and ", pads[r + i],
                             " on spatial axis ", i);
    }
    g.in[d] = x[2 + i];
    g.kernel[d] = w[2 + i];
    g.stride[d] = strides[i];
    g.dilation[d] = dil[i];
    const int64_t extent = (g.kernel[d] - 1) * dil[i] + 1;
    if (auto_pad == "NOTSET") {
      g.pad_begin[d] = pads[i];
      g.pad_end[d] = pads[r + i];
    } else if (auto_pad == "VALID") {
      g.pad_begin[d] = g.pad_end[d] = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // Output ceil(in / stride); the odd pad goes at the end (UPPER) or the beginning (LOWER).
      const int64_t out = (g.in[d] + strides[i] - 1) / strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[i] + extent - g.in[d]);
      g.pad_begin[d] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[d] = total - g.pad_begin[d];
    } else {
      return InvalidArgument("auto_pad '", auto_pad, "'");
    }
    const int64_t span = g.in[d] + g.pad_begin[d] + g.pad_end[d] - extent;
    if (span < 0) return InvalidArgument("kernel extent ", extent, " exceeds padded input ", g.in[d]);
    g.out[d] = span / strides[i] + 1;
  }
  // X may be declared at the size limit without data; bound the output before the
  // paths below size their buffers and loops from it.
  Dims y{g.batch, g.out_channels};
  for (int d = 3 - r; d < 3; ++d) y.push_back(g.out[d]);
  QRT_RETURN_IF_ERROR(CheckedElementCount(y).status());
  return g;
}

Dims OutputDims(const ConvGeometry& g) {
  Dims y{g.batch, g.out_channels};
  for (int d = 3 - g.spatial_rank; d < 3; ++d) y.push_back(g.out[d]);
  return y;
}

// The forced algorithm (PlanOptions::conv_algorithm), kAuto when none.
StatusOr<ConvAlgorithm> ForcedAlgorithm(const PrepareContext& ctx) {
  const std::string& name = ctx.options().conv_algorithm;
  if (name.empty()) return ConvAlgorithm::kAuto;
  std::optional<ConvAlgorithm> a = ParseConvAlgorithm(name);
  if (!a) return InvalidArgument("unknown conv_algorithm '", name, "'");
  return *a;
}

bool IsIntegerAlgorithm(ConvAlgorithm a) {
  return a == ConvAlgorithm::kOnednnInt8 || a == ConvAlgorithm::kOnednnF32 || a == ConvAlgorithm::kIgemm ||
         a == ConvAlgorithm::kExactF32;
}

Status NotApplicable(ConvAlgorithm a, const char* why) {
  return Unsupported("conv_algorithm ", ConvAlgorithmName(a), " does not apply: ", why);
}

// ---- Conv (float) ------------------------------------------------------------------

// qrt:ConvQuantizeDequantize's steps after the convolution: fake quantization before and after
// the PRelu, and the codes read and written in place of floats (link-conv-codes).
struct ConvSteps {
  QuantizeDequantizeF32Fn fake_quant_before = nullptr, fake_quant_after = nullptr;
  bool before_signed = false;  // fake_quant_before's quantized type
  bool prelu = false;
  bool clamp = false;  // a Relu's or Clip's clamp first (cqd::kClampMin, kClampMax)
  float clamp_lo = 0.f, clamp_hi = 0.f;
  DequantizeRowKernels dequantize_x;   // input_codes: X's codes to floats (row: any run)
  QuantizeF32Fn quantize_y = nullptr;  // output_codes: the outputs to codes
  bool epilogue() const { return clamp || fake_quant_before != nullptr || prelu || fake_quant_after != nullptr; }
};

struct ConvState {
  ConvGeometry g;
  DataType dtype;
  // The algorithm: a float one (plan.algorithm), or an int8 one with `plan` as its fallback.
  ConvAlgorithm algorithm = ConvAlgorithm::kPatches;
  ConvFloatPlan plan;
  ConvFloatKernels kernels;  // f32: the ordered GEMMs (reference or AVX2, bit-identical)
  int threads = 1;
  ConvSteps steps;
  // The int8 algorithms' plans: the 1x1 convolution in 8-bit integers (conv_pointwise_int8.h),
  // the 3x3 depthwise one from codes to codes in 16-bit integers (depthwise_int8.h).
  std::shared_ptr<const PointwiseInt8Plan> int8;
  std::shared_ptr<const DepthwiseInt8Plan> depthwise_int8;
  DepthwiseInt8PlaneFn depthwise_int8_plane = nullptr;
};

// Takes the int8 pointwise path where it applies: qrt:ConvQuantizeDequantize with a fake
// quantization first (a clamp before it too: conv_pointwise_int8.cc, ClampSteps), constant W and bias, W and X on 8-bit
// grids, group 1 (a 1x1 direct convolution, or any other over its patch matrix of codes). Only where PointwiseInt8Pays
// (conv_plan.cc), unless forced; any other forced algorithm refuses it. x_grid: X's grid (that of its codes with
// input_codes), null if unknown; y_grid: the fake quantization's, null unless constant (the plan then keeps its step
// constants).
Status ChooseInt8(const PrepareContext& ctx, ConvAlgorithm forced, const QuantGrid* x_grid, const QuantGrid* y_grid,
                  ConvState& s) {
  const bool wanted = forced == ConvAlgorithm::kPointwiseInt8;
  if ((forced != ConvAlgorithm::kAuto && !wanted) || !CanUseAvx2(ctx.isa()) || s.steps.fake_quant_before == nullptr ||
      std::isnan(s.steps.clamp_lo) || std::isnan(s.steps.clamp_hi)) {
    return wanted ? NotApplicable(forced, "it needs a fake quantization first and the AVX2 tier") : Status::Ok();
  }
  const TensorInfo &w = ctx.input(1), &b = ctx.input(2);
  const bool b_known = !ctx.has_input(2) || b.value != nullptr;
  if (PointwiseInt8Available(ctx.isa()) && x_grid != nullptr && w.value != nullptr && w.grid != nullptr && b_known &&
      (PointwiseInt8Pays(s.g, PointwiseInt8Tier(ctx.isa())) || wanted)) {
    s.int8 = PlanPointwiseInt8(s.g, w.value->data<float>(), *w.grid, *x_grid,
                               ctx.has_input(2) ? b.value->data<float>() : nullptr,
                               y_grid != nullptr ? y_grid->scales[0] : 0.f, ctx.isa());
  }
  if (wanted && s.int8 == nullptr) return NotApplicable(forced, "no exact int8 plan for this node on this CPU");
  if (s.int8 != nullptr) {
    s.algorithm = ConvAlgorithm::kPointwiseInt8;
    NoteKernelIsa(PointwiseInt8Tier(ctx.isa()));
  }
  return Status::Ok();
}

// Takes the int8 depthwise path (depthwise_int8.h) where it applies: codes in and out, a 3x3
// depthwise convolution with constant W (on its grid) and bias, constant grids for X's and Y's
// codes, the AVX2 tier. Only where DepthwiseInt8Pays (conv_plan.cc), unless forced; any other
// forced algorithm refuses it.
Status ChooseDepthwiseInt8(const PrepareContext& ctx, ConvAlgorithm forced, const QuantGrid* x_grid,
                           const QuantGrid* y_grid, ConvState& s) {
  const TensorInfo &w = ctx.input(1), &b = ctx.input(2);
  const bool wanted = forced == ConvAlgorithm::kDepthwiseInt8;
  if ((forced == ConvAlgorithm::kAuto && DepthwiseInt8Pays(s.g, EffectiveIsa(ctx.isa()))) || wanted) {
    if (DepthwiseInt8Available(ctx.isa()) && x_grid != nullptr && y_grid != nullptr && w.value != nullptr &&
        w.grid != nullptr && (!ctx.has_input(2) || b.value != nullptr)) {
      s.depthwise_int8 =
          PlanDepthwiseInt8(s.g, w.value->data<float>(), *w.grid, ctx.has_input(2) ? b.value->data<float>() : nullptr,
                            *x_grid, y_grid->scales[0], y_grid->zero_points[0], y_grid->type);
    }
  }
  if (wanted && s.depthwise_int8 == nullptr) return NotApplicable(forced, "no exact int8 depthwise plan here");
  if (s.depthwise_int8 != nullptr) {
    s.algorithm = ConvAlgorithm::kDepthwiseInt8;
    s.depthwise_int8_plane = SelectDepthwiseInt8(ctx.isa());
  }
  return Status::Ok();
}

// The plain convolution (no steps) in N x C x spatial order.
template <class T>
void ConvNchw(const ConvState& s, const T* x, const T* w, const T* b, T* y) {
  if constexpr (std::is_same_v<T, float>) {
    float* scratch = ThreadScratchFloats(ScratchSlot::kOp0, size_t(std::max<int64_t>(1, s.plan.scratch_floats)));
    ConvFloatOrdered(s.plan, s.g, x, w, b, y, s.kernels, scratch, s.threads);
  } else {
    ref::ConvFloat(s.g, x, w, b, y);
  }
}

// qrt:ConvQuantizeDequantize's steps for this run.
OutputEpilogue EpilogueOf(const ConvState& s, const RunArgs& args) {
  OutputEpilogue epilogue;
  epilogue.clamp = s.steps.clamp, epilogue.clamp_lo = s.steps.clamp_lo, epilogue.clamp_hi = s.steps.clamp_hi;
  if (s.steps.fake_quant_before != nullptr)
    epilogue.before = FakeQuantFromInputs(args, cqd::kScale, s.steps.fake_quant_before);
  if (s.steps.prelu) {  // one slope per output channel, or one for all
    epilogue.slope = args.input(cqd::kSlope)->data<float>();
    epilogue.slope_step = args.input(cqd::kSlope)->numel() == s.g.out_channels ? 1 : 0;
  }
  if (s.steps.fake_quant_after != nullptr)
    epilogue.after = FakeQuantFromInputs(args, cqd::kScaleAfter, s.steps.fake_quant_after);
  return epilogue;
}

// The int8 path over patches: X's codes (made from its floats where every one lies on the grid,
// else false: the float path runs), then per image their patch matrix, the 1x1 convolution of
// the plan over it. False, having written nothing, where the run is declined.
bool ConvPatchesInt8(const ConvState& s, PointwiseInt8Args a) {
  const PointwiseInt8Plan& p = *s.int8;
  const int64_t plane = s.g.in_channels * s.g.in_spatial();
  const int32_t zero_point = p.x_offset + (p.x_signed ? -128 : 0);  // x_offset = zero point - type's lowest
  const uint8_t* codes = static_cast<const uint8_t*>(a.x_codes);
  if (codes == nullptr) {
    auto* made = static_cast<uint8_t*>(ThreadScratch(ScratchSlot::kPatchInputCodes, size_t(s.g.batch * plane)));
    if (!CodesOnGrid(a.x, s.g.batch * plane, p.x_scale, p.x_inverse, zero_point,
                     p.x_signed ? DataType::kInt8 : DataType::kUInt8, made)) {
      return false;
    }
    codes = made;
  }
  const uint8_t pad = uint8_t(zero_point);  // d = 0, the padding's value
  auto* planes = static_cast<uint8_t*>(ThreadScratch(ScratchSlot::kPatchPlanes, size_t(CodePlanesBytes(s.g))));
  auto* patches =
      static_cast<uint8_t*>(ThreadScratch(ScratchSlot::kPatchCodes, size_t(p.k * p.columns + kCodePatchesSlack)));
  PointwiseInt8Args image = a;
  image.batch = 1, image.x = nullptr;
  for (int64_t n = 0; n < s.g.batch; ++n) {
    BuildCodePatches(s.g, codes + n * plane, pad, planes, patches);
    image.x_codes = patches;
    if (a.y != nullptr) image.y = a.y + n * p.channels * p.columns;
    if (a.codes != nullptr) image.codes = static_cast<uint8_t*>(a.codes) + n * p.channels * p.columns;
    if (!ConvPointwiseInt8(p, image)) return false;  // the first image's, for the same reason every time
  }
  return true;
}

// f32 in N x C x spatial: the int8 path where planned and it takes the run, else the ordered
// float convolution; X read, and Y written, as codes with input_codes and output_codes.
void RunConvF32(const ConvState& s, const RunArgs& args) {
  const Tensor& xq = *args.input(0);
  const float* w = args.input(1)->data<float>();
  const float* b = args.input(2) ? args.input(2)->data<float>() : nullptr;
  Tensor& y = *args.output(0);
  if (s.algorithm == ConvAlgorithm::kDepthwiseInt8) {  // codes in and out, grids constant: as planned
    ConvDepthwiseInt8(*s.depthwise_int8, s.depthwise_int8_plane, xq.raw(), y.raw(), s.g.batch, s.threads);
    return;
  }
  const OutputEpilogue epilogue = EpilogueOf(s, args);
  const FakeQuantStep& fq = epilogue.before;           // output_codes: the only step
  if (s.algorithm == ConvAlgorithm::kPointwiseInt8) {  // else, or when it declines the run: s.plan
    PointwiseInt8Args a;
    if (s.steps.dequantize_x.row != nullptr)
      a.x_codes = xq.raw();
    else
      a.x = xq.data<float>();
    a.w = w, a.bias = b, a.batch = s.g.batch;
    a.epilogue = epilogue;
    a.before_signed = s.steps.before_signed;
    a.gemm = s.kernels.gemm;
    a.threads = s.threads;
    if (s.steps.quantize_y != nullptr)
      a.codes = y.raw(), a.quantize = s.steps.quantize_y;
    else
      a.y = y.data<float>();
    if (s.int8->patches ? ConvPatchesInt8(s, a) : ConvPointwiseInt8(*s.int8, a)) return;
  }
  ConvInputCodes codes;
  const float* x = nullptr;
  if (s.steps.dequantize_x.row != nullptr) {
    const FakeQuantStep dq = FakeQuantFromInputs(args, cqd::kCodesScale, nullptr);
    codes = ConvInputCodes{xq.raw(), s.steps.dequantize_x, dq.scale, dq.zero_point, xq.dtype() == DataType::kInt8};
    if (!s.plan.handles_codes()) {  // X dequantized first
      float* xf = ThreadScratchFloats(ScratchSlot::kOp1, size_t(xq.numel()));
      s.steps.dequantize_x.row(xq.numel(), xq.raw(), dq.scale, dq.zero_point, xf);
      x = xf;
    }
  } else {
    x = xq.data<float>();
  }
  float* scratch = ThreadScratchFloats(ScratchSlot::kOp0, size_t(std::max<int64_t>(1, s.plan.scratch_floats)));
  if (s.steps.quantize_y == nullptr) {
    ConvFloatOrdered(s.plan, s.g, x, w, b, y.data<float>(), s.kernels, scratch, s.threads,
                     s.steps.epilogue() ? &epilogue : nullptr, x == nullptr ? &codes : nullptr);
    return;
  }
  // The convolution's floats, then QuantizeLinear: the codes of the fake quantization. A group's
  // plane at a time where the convolution does that itself.
  if (s.plan.handles_codes()) {
    const ConvOutputCodes out{y.raw(), s.steps.quantize_y, fq.scale, fq.zero_point, y.dtype() == DataType::kInt8};
    ConvFloatOrdered(s.plan, s.g, x, w, b, nullptr, s.kernels, scratch, s.threads, nullptr,
                     x == nullptr ? &codes : nullptr, &out);
    return;
  }
  float* yf = ThreadScratchFloats(ScratchSlot::kOp2, size_t(y.numel()));
  ConvFloatOrdered(s.plan, s.g, x, w, b, yf, s.kernels, scratch, s.threads, nullptr, x == nullptr ? &codes : nullptr);
  s.steps.quantize_y(y.numel(), yf, fq.scale, fq.zero_point, y.raw());
}

template <class T>
void RunConvTyped(const ConvState& s, const RunArgs& args) {
  const T* x = args.input(0)->data<T>();
  const T* w = args.input(1)->data<T>();
  const T* b = args.input(2) ? args.input(2)->data<T>() : nullptr;
  T* y = args.output(0)->data<T>();
  ConvNchw(s, x, w, b, y);  // f64: no epilogue (qrt:ConvQuantizeDequantize is f32 only)
}

Status RunConv(const ConvState& s, const RunArgs& args) {
  if (s.dtype == DataType::kFloat32)
    RunConvF32(s, args);
  else
    RunConvTyped<double>(s, args);
  return Status::Ok();
}

// Conv, or qrt:ConvQuantizeDequantize (fake_quant).
Status PrepareConvOrFused(PrepareContext& ctx, bool fake_quant) {
  bool input_codes = false, output_codes = false;
  if (fake_quant) {
    QRT_ASSIGN_OR_RETURN(int64_t in_codes, ctx.attrs().GetInt(cqd::kInputCodes, 0));
    QRT_ASSIGN_OR_RETURN(int64_t out_codes, ctx.attrs().GetInt(cqd::kOutputCodes, 0));
    input_codes = in_codes != 0, output_codes = out_codes != 0;
  }
  // With input_codes, X is the DequantizeLinear of input 0 (inputs 8, 9): float32.
  const DataType dt = input_codes ? DataType::kFloat32 : ctx.input(0).dtype;
  if (dt != DataType::kFloat32 && dt != DataType::kFloat64) return Unsupported("Conv on ", DataTypeName(dt));
  if (ctx.input(1).dtype != dt) return InvalidArgument("W dtype differs from X");
  ConvState s;
  s.dtype = dt;
  QRT_ASSIGN_OR_RETURN(s.g, MakeGeometry(ctx, ctx.input(0).dims, ctx.input(1).dims));
  const bool has_b = ctx.has_input(2);
  if (has_b && (ctx.input(2).dtype != dt || ctx.input(2).dims != Dims{s.g.out_channels})) {
    return InvalidArgument("B must be 1-D of size ", s.g.out_channels);
  }
  QRT_ASSIGN_OR_RETURN(ConvAlgorithm forced, ForcedAlgorithm(ctx));
  if (IsIntegerAlgorithm(forced)) forced = ConvAlgorithm::kAuto;  // the integer convolutions'
  const bool int8_forced = forced == ConvAlgorithm::kPointwiseInt8 || forced == ConvAlgorithm::kDepthwiseInt8;
  if (int8_forced && !fake_quant) return NotApplicable(forced, "a plain Conv has no fake quantization");
  // f64 runs the reference (the ordered driver is f32).
  if (dt == DataType::kFloat64 && !int8_forced) forced = ConvAlgorithm::kReference;
  s.kernels = SelectConvFloatKernels(ctx.isa());
  std::optional<ConvFloatPlan> plan =
      PlanConvFloat(s.g, AvailableIn(s.kernels), int8_forced ? ConvAlgorithm::kAuto : forced);
  if (!plan) return NotApplicable(forced, "not this geometry, or not this CPU's kernels");
  s.plan = *plan;
  s.algorithm = s.plan.algorithm;
  s.threads = ctx.threads();
  std::shared_ptr<const QuantGrid> output_grid;
  if (fake_quant) {
    // qrt:QuantizeDequantize takes no float64; neither does the pair fused.
    if (dt != DataType::kFloat32) return Unsupported("ConvQuantizeDequantize on ", DataTypeName(dt));
    if (ctx.has_input(cqd::kScale)) {
      QRT_ASSIGN_OR_RETURN(s.steps.fake_quant_before, PrepareFakeQuant(ctx, cqd::kScale));
    }
    if (ctx.has_input(cqd::kScaleAfter)) {
      QRT_ASSIGN_OR_RETURN(s.steps.fake_quant_after, PrepareFakeQuant(ctx, cqd::kScaleAfter));
    }
    if (ctx.has_input(cqd::kZeroPoint) && !ctx.has_input(cqd::kScale)) {
      return InvalidArgument("input 4 (zero point) without input 3 (scale)");
    }
    if (ctx.has_input(cqd::kZeroPointAfter) && !ctx.has_input(cqd::kScaleAfter)) {
      return InvalidArgument("input 7 (zero point) without input 6 (scale)");
    }
    if (ctx.has_input(cqd::kSlope)) {
      QRT_RETURN_IF_ERROR(ExpectDType(ctx, cqd::kSlope, {DataType::kFloat32}));
      if (!IsPerChannel(ctx.input(cqd::kSlope).dims, s.g.out_channels, ctx.input(0).dims.size())) {
        return InvalidArgument("PRelu slope of shape ", DimsToString(ctx.input(cqd::kSlope).dims),
                               " is not one value per channel");
      }
      s.steps.prelu = true;
    }
    const bool clamp_min = ctx.attrs().Has(cqd::kClampMin), clamp_max = ctx.attrs().Has(cqd::kClampMax);
    if (clamp_min != clamp_max) return InvalidArgument(cqd::kClampMin, " and ", cqd::kClampMax, " go together");
    if (clamp_min) {
      QRT_ASSIGN_OR_RETURN(s.steps.clamp_lo, ctx.attrs().GetFloat(cqd::kClampMin, 0.f));
      QRT_ASSIGN_OR_RETURN(s.steps.clamp_hi, ctx.attrs().GetFloat(cqd::kClampMax, 0.f));
      s.steps.clamp = true;
    }
    if (!s.steps.epilogue()) return InvalidArgument("no epilogue step (inputs 3, 5 and 6 are all omitted)");
    s.steps.before_signed = ctx.has_input(cqd::kZeroPoint) && ctx.input(cqd::kZeroPoint).dtype == DataType::kInt8;
    if (input_codes) {
      const DataType q = ctx.input(0).dtype;
      if (q != DataType::kUInt8 && q != DataType::kInt8) {
        return InvalidArgument("input_codes needs 8-bit codes at input 0, got ", DataTypeName(q));
      }
      if (!ctx.has_input(cqd::kCodesScale)) return InvalidArgument("input_codes needs X's scale at input 8");
      QRT_RETURN_IF_ERROR(PrepareFakeQuant(ctx, cqd::kCodesScale).status());  // one float scale, an 8-bit zero point
      if (ctx.has_input(cqd::kCodesZeroPoint) && ctx.input(cqd::kCodesZeroPoint).dtype != q)
        return InvalidArgument("input 9 (zero point) is not of X's type");
      s.steps.dequantize_x = SelectDequantizeRows(q, ctx.isa());
    }
    if (output_codes) {
      if (s.steps.fake_quant_before == nullptr || s.steps.prelu || s.steps.fake_quant_after != nullptr ||
          s.steps.clamp) {
        return InvalidArgument("output_codes needs the fake quantization (inputs 3, 4) as the only step");
      }
      s.steps.quantize_y = SelectQuantizeF32(
          ctx.has_input(cqd::kZeroPoint) ? ctx.input(cqd::kZeroPoint).dtype : DataType::kUInt8, ctx.isa());
    }
    std::shared_ptr<const QuantGrid> codes_grid;
    if (input_codes) codes_grid = ConstantGrid(ctx, cqd::kCodesScale, ctx.input(cqd::kX).dtype, -1);
    // The first fake quantization's grid, where constant: the int8 paths plan their steps on it.
    std::shared_ptr<const QuantGrid> before_grid;
    if (s.steps.fake_quant_before != nullptr) {
      before_grid = ConstantGrid(
          ctx, cqd::kScale, ctx.has_input(cqd::kZeroPoint) ? ctx.input(cqd::kZeroPoint).dtype : DataType::kUInt8, -1);
    }
    QRT_RETURN_IF_ERROR(
        ChooseInt8(ctx, forced, input_codes ? codes_grid.get() : ctx.input(0).grid.get(), before_grid.get(), s));
    // The output lies on the last fake quantization's grid.
    if (s.steps.fake_quant_after != nullptr) {
      output_grid = ConstantGrid(
          ctx, cqd::kScaleAfter,
          ctx.has_input(cqd::kZeroPointAfter) ? ctx.input(cqd::kZeroPointAfter).dtype : DataType::kUInt8, -1);
    } else if (!s.steps.prelu) {
      output_grid = before_grid;
    }
    if (input_codes && output_codes) {
      QRT_RETURN_IF_ERROR(ChooseDepthwiseInt8(ctx, forced, codes_grid.get(), output_grid.get(), s));
    } else if (forced == ConvAlgorithm::kDepthwiseInt8) {
      return NotApplicable(forced, "it reads and writes codes (input_codes and output_codes)");
    }
  }
  const Dims y_dims = OutputDims(s.g);
  if (output_codes) {
    ctx.SetOutput(0, ctx.has_input(cqd::kZeroPoint) ? ctx.input(cqd::kZeroPoint).dtype : DataType::kUInt8, y_dims);
  } else {
    ctx.SetOutput(0, dt, y_dims);
    ctx.SetOutputGrid(0, std::move(output_grid));
  }
  ctx.SetKernelNote(std::string(ConvAlgorithmName(s.algorithm)));
  ctx.SetKernel<ConvState, RunConv>(std::move(s));
  return Status::Ok();
}

Status PrepareConv(PrepareContext& ctx) { return PrepareConvOrFused(ctx, false); }
Status PrepareConvQuantizeDequantize(PrepareContext& ctx) { return PrepareConvOrFused(ctx, true); }

// ---- ConvInteger and QLinearConv ---------------------------------------------------

struct IntConvState {
  ConvGeometry g;
  DataType x_dtype, w_dtype, y_dtype;  // y: int32 (ConvInteger) or the quantized type
  bool qlinear = false;
  // Input indices; -1 when absent.
  int w = 1, x_zp = -1, w_zp = -1, bias = -1, x_scale = -1, w_scale = -1, y_scale = -1, y_zp = -1;
  ConvAlgorithm path = ConvAlgorithm::kReference;  // or kOnednnInt8, kOnednnF32, kIgemm, kExactF32
  // kExactF32: qrt's float kernels on w - w_zp (wf) and X's codes read as x - x_zp.
  ConvFloatPlan float_plan;
  ConvFloatKernels float_kernels;
  DequantizeRowKernels dequantize_x;
  std::vector<float> wf;
  std::shared_ptr<const onednn::Conv> onednn;
  IgemmKernel igemm;
  std::vector<int16_t> w16;  // kIgemm with constant W: rows of w - w_zp (IgemmRowsToInt16)
  // kIgemm with constant W and AVX-512 VNNI: W as signed bytes for VPDPBUSD (igemm.h), in
  // place of w16.
  std::shared_ptr<const IgemmQuadWeights> quads;
  int threads = 1;
  int32_t out_min = -2147483647 - 1, out_max = 2147483647;  // qrt:QLinearConv's clamp
  RequantizeRowFn requantize = nullptr;                     // QLinearConv's epilogue
  // qrt:ConvIntegerToFloat (conv_integer_to_float.h): float(int32(acc + int_bias)) * scale + fbias.
  bool to_float = false;
  int int_bias = -1, scale = -1, fbias = -1;
  ScaleInt32RowFn scale_row = nullptr;
};

// Element m of a one-per-channel operand, or its one element.
template <class T>
T ChannelValue(const Tensor& t, int64_t m) {
  return t.data<T>()[t.numel() == 1 ? 0 : m];
}

// qrt:ConvIntegerToFloat's epilogue, in the order of the chain it replaces.
void FloatEpilogue(const IntConvState& s, const RunArgs& args, const int32_t* acc) {
  const Tensor* int_bias = s.int_bias >= 0 ? args.input(s.int_bias) : nullptr;
  const Tensor& scale = *args.input(s.scale);
  const Tensor* bias = s.fbias >= 0 ? args.input(s.fbias) : nullptr;
  const int64_t plane = s.g.out_spatial();
  float* out = args.output(0)->data<float>();
  for (int64_t n = 0, i = 0; n < s.g.batch; ++n) {
    for (int64_t m = 0; m < s.g.out_channels; ++m, i += plane) {
      ScaleInt32Params p;  // one value per channel: a plane's scale and biases broadcast
      if (int_bias != nullptr) p.add = ChannelValue<int32_t>(*int_bias, m);
      const int64_t channel = scale.numel() == 1 ? 0 : m;
      p.scale = scale.data<float>() + channel;
      if (bias != nullptr) p.bias = bias->data<float>() + (bias->numel() == 1 ? 0 : m);
      s.scale_row(plane, acc + i, p, out + i);
    }
  }
}

int32_t ZeroPointAt(const Tensor* zp, int64_t i) {
  if (zp == nullptr) return 0;
  return int32_t(zp->GetAsInt64(zp->numel() == 1 ? 0 : i));
}

// Writes the outputs from exact int32 accumulators (plain N x M x spatial layout).
template <class Acc>
void Epilogue(const IntConvState& s, const RunArgs& args, const Acc* acc) {
  if (s.to_float) return FloatEpilogue(s, args, acc);
  const Tensor* bias = s.bias >= 0 ? args.input(s.bias) : nullptr;
  const int64_t plane = s.g.out_spatial();
  const int64_t m_count = s.g.out_channels;
  Tensor& y = *args.output(0);
  auto accum = [&](int64_t i, int64_t m) {
    uint32_t a = uint32_t(int32_t(acc[i]));  // kF32: an exact integer within 2^24
    if (bias != nullptr) a += uint32_t(bias->data<int32_t>()[m]);
    return int32_t(a);
  };
  if (!s.qlinear) {
    int32_t* out = y.data<int32_t>();
    for (int64_t n = 0, i = 0; n < s.g.batch; ++n) {
      for (int64_t m = 0; m < m_count; ++m) {
        for (int64_t p = 0; p < plane; ++p, ++i) out[i] = accum(i, m);
      }
    }
    return;
  }
  const float* xs = args.input(s.x_scale)->data<float>();
  const Tensor& ws = *args.input(s.w_scale);
  const float* ys = args.input(s.y_scale)->data<float>();
  const int32_t* b = bias != nullptr ? bias->data<int32_t>() : nullptr;
  RequantizeParams p;
  p.y_zero_point = ZeroPointAt(s.y_zp >= 0 ? args.input(s.y_zp) : nullptr, 0);
  p.out_min = s.out_min;
  p.out_max = s.out_max;
  char* out = static_cast<char*>(y.raw());  // 8-bit output: element offset == byte offset
  for (int64_t n = 0, i = 0; n < s.g.batch; ++n) {
    for (int64_t m = 0; m < m_count; ++m, i += plane) {
      p.multiplier = QLinearMultiplier(xs[0], ws.data<float>()[ws.numel() == 1 ? 0 : m], ys[0]);
      p.bias = b != nullptr ? b[m] : 0;
      s.requantize(plane, reinterpret_cast<const int32_t*>(acc) + i, p, out + i);
    }
  }
}

template <class Tx, class Tw>
void RunRefTyped(const IntConvState& s, const RunArgs& args, int32_t* acc) {
  const Tensor* wz = s.w_zp >= 0 ? args.input(s.w_zp) : nullptr;
  int32_t* w_zp = static_cast<int32_t*>(ThreadScratch(ScratchSlot::kOp1, size_t(s.g.out_channels) * sizeof(int32_t)));
  for (int64_t m = 0; m < s.g.out_channels; ++m) w_zp[m] = ZeroPointAt(wz, m);
  const int32_t x_zp = ZeroPointAt(s.x_zp >= 0 ? args.input(s.x_zp) : nullptr, 0);
  ref::ConvInteger(s.g, args.input(0)->data<Tx>(), x_zp, args.input(s.w)->data<Tw>(), w_zp, nullptr, acc);
}

// W's zero point for each output channel (one per tensor repeated; none: 0).
std::vector<int32_t> ChannelZeroPoints(const ConvGeometry& g, const Tensor* w_zp) {
  std::vector<int32_t> zp(size_t(g.out_channels));
  for (int64_t m = 0; m < g.out_channels; ++m) zp[size_t(m)] = ZeroPointAt(w_zp, m);
  return zp;
}

// Rows of w - w_zp (one per output channel) for Igemm.
template <class Tw>
void PackIgemmW(const ConvGeometry& g, const Tw* w, const Tensor* w_zp, int16_t* out) {
  const int64_t k = g.reduction_size();
  IgemmRowsToInt16(g.out_channels, k, w, k, 1, ChannelZeroPoints(g, w_zp).data(), 1, out, IgemmRowLength(k));
}

template <class Tx, class Tw>
void RunIgemmTyped(const IntConvState& s, const RunArgs& args, int32_t* acc) {
  const ConvGeometry& g = s.g;
  const int64_t lda = IgemmRowLength(g.reduction_size());
  const int16_t* w16 = s.w16.data();
  if (s.w16.empty() && s.quads == nullptr) {
    int16_t* t = static_cast<int16_t*>(ThreadScratch(ScratchSlot::kOp1, size_t(g.out_channels * lda) * 2));
    PackIgemmW(g, args.input(s.w)->data<Tw>(), s.w_zp >= 0 ? args.input(s.w_zp) : nullptr, t);
    w16 = t;
  }
  const int32_t x_zp = ZeroPointAt(s.x_zp >= 0 ? args.input(s.x_zp) : nullptr, 0);
  if (s.quads != nullptr) return IgemmConvQuads(*s.quads, g, args.input(0)->data<Tx>(), x_zp, acc, s.threads);
  IgemmConv(s.igemm, g, args.input(0)->data<Tx>(), x_zp, w16, acc, s.threads);
}

// f(Tx{}, Tw{}) for the 8-bit types of X and W.
template <class F>
void WithConvTypes(const IntConvState& s, F f) {
  Dispatch8BitPair(s.x_dtype, s.w_dtype, f);
}

Status RunIntConv(const IntConvState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  const int64_t out_count = s.g.output_count();
  // ConvInteger writes its accumulators straight into y.
  void* acc = s.qlinear || s.to_float ? ThreadScratch(ScratchSlot::kOp0, size_t(out_count) * 4) : args.output(0)->raw();
  switch (s.path) {
    case ConvAlgorithm::kOnednnInt8: {
      QRT_RETURN_IF_ERROR(s.onednn->Run(x.raw(), acc));
      break;
    }
    case ConvAlgorithm::kOnednnF32: {
      const int32_t x_zp = ZeroPointAt(s.x_zp >= 0 ? args.input(s.x_zp) : nullptr, 0);
      const int64_t x_count = x.numel();
      float* xf = static_cast<float*>(ThreadScratch(ScratchSlot::kOp1, size_t(x_count) * sizeof(float)));
      if (s.x_dtype == DataType::kUInt8) {
        const uint8_t* xu = x.data<uint8_t>();
        for (int64_t i = 0; i < x_count; ++i) xf[i] = float(int32_t(xu[i]) - x_zp);
      } else {
        const int8_t* xs = x.data<int8_t>();
        for (int64_t i = 0; i < x_count; ++i) xf[i] = float(int32_t(xs[i]) - x_zp);
      }
      // The f32 accumulators are exact integers: convert in place to int32.
      QRT_RETURN_IF_ERROR(s.onednn->Run(xf, acc));
      float* af = static_cast<float*>(acc);
      int32_t* ai = static_cast<int32_t*>(acc);
      for (int64_t i = 0; i < out_count; ++i) ai[i] = int32_t(af[i]);
      break;
    }
    case ConvAlgorithm::kIgemm: {
      int32_t* a = static_cast<int32_t*>(acc);
      WithConvTypes(s, [&](auto tx, auto tw) { RunIgemmTyped<decltype(tx), decltype(tw)>(s, args, a); });
      break;
    }
    case ConvAlgorithm::kExactF32: {
      // X's codes read as float(q) - float(x_zp), times 1: the exact x - x_zp. Every partial sum
      // is an integer below 2^24 (checked at prepare), so any summation order gives the exact
      // sum, and the float accumulators convert to int32 without loss.
      const int32_t x_zp = ZeroPointAt(s.x_zp >= 0 ? args.input(s.x_zp) : nullptr, 0);
      const ConvInputCodes codes{x.raw(), s.dequantize_x, 1.f, x_zp, s.x_dtype == DataType::kInt8};
      const float* xf = nullptr;
      if (!s.float_plan.handles_codes()) {
        float* t = ThreadScratchFloats(ScratchSlot::kOp1, size_t(x.numel()));
        s.dequantize_x.row(x.numel(), x.raw(), 1.f, x_zp, t);
        xf = t;
      }
      float* scratch =
          ThreadScratchFloats(ScratchSlot::kOp2, size_t(std::max<int64_t>(1, s.float_plan.scratch_floats)));
      float* af = static_cast<float*>(acc);
      ConvFloatOrdered(s.float_plan, s.g, xf, s.wf.data(), nullptr, af, s.float_kernels, scratch, s.threads, nullptr,
                       xf == nullptr ? &codes : nullptr);
      int32_t* ai = static_cast<int32_t*>(acc);
      for (int64_t i = 0; i < out_count; ++i) ai[i] = int32_t(af[i]);
      break;
    }
    default: {  // kReference
      int32_t* a = static_cast<int32_t*>(acc);
      WithConvTypes(s, [&](auto tx, auto tw) { RunRefTyped<decltype(tx), decltype(tw)>(s, args, a); });
      break;
    }
  }
  Epilogue(s, args, static_cast<const int32_t*>(acc));
  return Status::Ok();
}

// Checks a scale or zero point: scalar (any rank, one element) or, if per_channel_ok,
// 1-D of size m.
Status CheckParam(const PrepareContext& ctx, int i, const char* what, DataType dtype, bool per_channel_ok, int64_t m) {
  const TensorInfo& t = ctx.input(i);
  if (t.dtype != dtype) {
    return InvalidArgument(what, " has dtype ", DataTypeName(t.dtype), ", expected ", DataTypeName(dtype));
  }
  if (ElementCount(t.dims) == 1) return Status::Ok();
  if (per_channel_ok && t.dims == Dims{m}) return Status::Ok();
  return Unsupported(what, " of shape ", DimsToString(t.dims));
}

// Picks the fastest exact path (see the file comment).
Status ChoosePath(PrepareContext& ctx, IntConvState& s) {
  QRT_ASSIGN_OR_RETURN(ConvAlgorithm forced, ForcedAlgorithm(ctx));
  if (!IsIntegerAlgorithm(forced) && forced != ConvAlgorithm::kReference) forced = ConvAlgorithm::kAuto;  // floats'
  if (forced == ConvAlgorithm::kReference || s.g.output_count() == 0) {
    return forced == ConvAlgorithm::kAuto || forced == ConvAlgorithm::kReference
               ? Status::Ok()
               : NotApplicable(forced, "empty outputs run the reference");
  }
  const Tensor* w = ctx.input(s.w).value;
  const Tensor* w_zp = s.w_zp >= 0 ? ctx.input(s.w_zp).value : nullptr;
  const bool igemm_ok = CanUseAvx2(ctx.isa());
  if (forced == ConvAlgorithm::kIgemm && !igemm_ok) return NotApplicable(forced, "it needs the AVX2 tier");
  if (forced == ConvAlgorithm::kIgemm || (forced == ConvAlgorithm::kAuto && igemm_ok && IgemmConvPays(s.g))) {
    s.path = ConvAlgorithm::kIgemm;
    s.igemm = SelectIgemmKernel(ctx.isa());
    s.threads = ctx.threads();
    if (w != nullptr && (s.w_zp < 0 || w_zp != nullptr)) {
      // Bytes: four products per lane instead of two (VPDPBUSD; at AVX2 VPMADDUBSW on split
      // pairs, where the sums are long enough and few pairs need splitting).
      const bool split = IgemmQuadsSplitPairs(ctx.isa());
      if (IgemmQuadsAvailable(ctx.isa()) && (!split || IgemmQuadsPay(s.g))) {
        const std::vector<int32_t> zp = ChannelZeroPoints(s.g, w_zp);
        WithConvTypes(s, [&](auto, auto tw) {
          s.quads = std::make_shared<const IgemmQuadWeights>(
              IgemmPackQuadWeights(s.g.out_channels, s.g.reduction_size(), w->data<decltype(tw)>(), zp.data(), split));
        });
        if (!split || ByteFormPays(s.quads->corrections, s.g.out_channels, s.g.reduction_size())) {
          NoteKernelIsa(split ? Isa::kAvx2 : Isa::kAvx512Vnni);
          return Status::Ok();
        }
        s.quads.reset();
      }
      s.w16.resize(size_t(s.g.out_channels * IgemmRowLength(s.g.reduction_size())));
      WithConvTypes(s, [&](auto, auto tw) { PackIgemmW(s.g, w->data<decltype(tw)>(), w_zp, s.w16.data()); });
    }
    return Status::Ok();
  }
  const bool onednn_ok = onednn::UsableUnder(ctx.isa());
  if (!onednn_ok && forced != ConvAlgorithm::kExactF32) {
    return forced == ConvAlgorithm::kAuto ? Status::Ok()
                                          : NotApplicable(forced, "ISA ceilings below oneDNN's tier run the reference");
  }
  const Tensor* x_zp = s.x_zp >= 0 ? ctx.input(s.x_zp).value : nullptr;
  if (w == nullptr || (s.w_zp >= 0 && w_zp == nullptr)) {
    if (forced != ConvAlgorithm::kAuto) return NotApplicable(forced, "W or its zero point is not constant");
    return Status::Ok();
  }
  // w' = w - w_zp per output channel, and its largest per-channel sum of magnitudes.
  const int64_t m_count = s.g.out_channels;
  const int64_t red = s.g.reduction_size();
  std::vector<int32_t> wq(size_t(s.g.weight_count()));
  int64_t max_abs_sum = 0;
  bool seven_bit = true;
  for (int64_t m = 0; m < m_count; ++m) {
    const int32_t z = ZeroPointAt(w_zp, m);
    int64_t sum = 0;
    for (int64_t k = 0; k < red; ++k) {
      const int64_t i = m * red + k;
      const int32_t v = int32_t(w->GetAsInt64(i)) - z;
      wq[size_t(i)] = v;
      sum += v < 0 ? -v : v;
      seven_bit = seven_bit && v >= -64 && v <= 63;
    }
    max_abs_sum = std::max(max_abs_sum, sum);
  }
  const bool x_u8 = s.x_dtype == DataType::kUInt8;
  int64_t x_max = 255;  // |x - x_zp| for any 8-bit x and zero point
  if (s.x_zp < 0) x_max = x_u8 ? 255 : 128;
  if (x_zp != nullptr) {
    const int64_t z = x_zp->GetAsInt64(0), lo = x_u8 ? 0 : -128, hi = x_u8 ? 255 : 127;
    x_max = std::max(z - lo, hi - z);
  }
  constexpr int64_t kExactF32 = int64_t(1) << 24;
  const bool int8_ok = x_u8 && (s.x_zp < 0 || x_zp != nullptr) && seven_bit && 255 * max_abs_sum <= kExactF32;
  const bool f32_ok = x_max * max_abs_sum <= kExactF32;

  auto try_int8 = [&]() -> bool {
    std::vector<int8_t> w8(wq.begin(), wq.end());
    auto conv = onednn::Conv::Create(s.g, onednn::ConvKind::kU8S8S32, w8.data(), nullptr,
                                     x_zp ? int32_t(x_zp->GetAsInt64(0)) : 0);
    if (!conv.ok()) return false;
    s.onednn = *conv;
    s.path = ConvAlgorithm::kOnednnInt8;
    return true;
  };
  auto try_f32 = [&]() -> bool {
    std::vector<float> wf(wq.begin(), wq.end());
    auto conv = onednn::Conv::Create(s.g, onednn::ConvKind::kF32, wf.data(), nullptr, 0);
    if (!conv.ok()) return false;
    s.onednn = *conv;
    s.path = ConvAlgorithm::kOnednnF32;
    return true;
  };
  // qrt's float kernels where they are fast for g (3x3 depthwise: lanes or rows) and exact.
  auto try_exact_f32 = [&](bool forcing) -> bool {
    if (!f32_ok || s.g.batch == 0) return false;
    s.float_kernels = SelectConvFloatKernels(ctx.isa());
    std::optional<ConvFloatPlan> plan = PlanConvFloat(s.g, AvailableIn(s.float_kernels));
    if (!plan) return false;
    const bool fast =
        plan->algorithm == ConvAlgorithm::kDepthwiseLanes || plan->algorithm == ConvAlgorithm::kDepthwiseRows;
    if (!forcing && !fast) return false;
    s.float_plan = *plan;
    s.dequantize_x = SelectDequantizeRows(s.x_dtype, ctx.isa());
    s.wf.assign(wq.begin(), wq.end());
    s.threads = ctx.threads();
    s.path = ConvAlgorithm::kExactF32;
    return true;
  };
  if (forced == ConvAlgorithm::kExactF32) {
    return try_exact_f32(true) ? Status::Ok() : NotApplicable(forced, "not provably exact here");
  }
  if (forced == ConvAlgorithm::kAuto && igemm_ok && try_exact_f32(false)) return Status::Ok();
  if (!onednn_ok) return Status::Ok();
  if (forced == ConvAlgorithm::kOnednnInt8) {
    if (!int8_ok) return NotApplicable(forced, "not provably exact here");
    // oneDNN 2.6 has no u8 x s8 convolution for some grouped and dilated geometries without AVX-512.
    return try_int8() ? Status::Ok()
                      : NotApplicable(forced, "oneDNN has no int8 convolution for this geometry on this CPU");
  }
  if (forced == ConvAlgorithm::kOnednnF32) {
    return f32_ok && try_f32() ? Status::Ok() : NotApplicable(forced, "not provably exact here");
  }
  if (int8_ok && OnednnInt8Pays(s.g) && try_int8()) return Status::Ok();
  if (f32_ok && try_f32()) return Status::Ok();
  return Status::Ok();
}

// A one-element or one-per-channel operand of qrt:ConvIntegerToFloat that broadcasts against
// Y (rank `rank`, M channels) without changing its shape.
Status CheckChannelOperand(const PrepareContext& ctx, int i, const char* what, DataType dtype, int64_t m, size_t rank) {
  const TensorInfo& t = ctx.input(i);
  if (t.dtype != dtype) {
    return InvalidArgument(what, " has dtype ", DataTypeName(t.dtype), ", expected ", DataTypeName(dtype));
  }
  if (!citf::PerChannel(t.dims, rank, m))
    return InvalidArgument(what, " of shape ", DimsToString(t.dims), " is not per tensor or per channel");
  return Status::Ok();
}

enum class IntConvKind { kConvInteger, kQLinearConv, kToFloat };

Status PrepareIntConv(PrepareContext& ctx, IntConvKind kind) {
  IntConvState s;
  const bool qlinear = kind == IntConvKind::kQLinearConv;
  s.qlinear = qlinear;
  s.to_float = kind == IntConvKind::kToFloat;
  const int w_in = s.w = qlinear ? qlconv::kW : 1;
  if (s.to_float) {
    if (ctx.has_input(citf::kXZeroPoint)) s.x_zp = citf::kXZeroPoint;
    if (ctx.has_input(citf::kWZeroPoint)) s.w_zp = citf::kWZeroPoint;
    if (ctx.has_input(citf::kIntBias)) s.int_bias = citf::kIntBias;
    s.scale = citf::kScale;
    if (ctx.has_input(citf::kBias)) s.fbias = citf::kBias;
    s.scale_row = SelectScaleInt32Row(ctx.isa());
  } else if (qlinear) {
    s.x_scale = qlconv::kXScale, s.x_zp = qlconv::kXZeroPoint, s.w_scale = qlconv::kWScale;
    s.w_zp = qlconv::kWZeroPoint, s.y_scale = qlconv::kYScale, s.y_zp = qlconv::kYZeroPoint;
    if (ctx.has_input(qlconv::kB)) s.bias = qlconv::kB;
  } else {
    if (ctx.has_input(2)) s.x_zp = 2;
    if (ctx.has_input(3)) s.w_zp = 3;
  }
  s.x_dtype = ctx.input(0).dtype;
  s.w_dtype = ctx.input(w_in).dtype;
  for (DataType t : {s.x_dtype, s.w_dtype}) {
    if (t != DataType::kUInt8 && t != DataType::kInt8) return Unsupported("integer convolution on ", DataTypeName(t));
  }
  QRT_ASSIGN_OR_RETURN(s.g, MakeGeometry(ctx, ctx.input(0).dims, ctx.input(w_in).dims));
  const int64_t m = s.g.out_channels;
  if (s.x_zp >= 0) QRT_RETURN_IF_ERROR(CheckParam(ctx, s.x_zp, "x_zero_point", s.x_dtype, false, m));
  if (s.w_zp >= 0) QRT_RETURN_IF_ERROR(CheckParam(ctx, s.w_zp, "w_zero_point", s.w_dtype, true, m));
  s.y_dtype = DataType::kInt32;
  if (s.to_float) {
    const size_t rank = ctx.input(0).dims.size();
    if (s.int_bias >= 0)
      QRT_RETURN_IF_ERROR(CheckChannelOperand(ctx, s.int_bias, "IntBias", DataType::kInt32, m, rank));
    QRT_RETURN_IF_ERROR(CheckChannelOperand(ctx, s.scale, "Scale", DataType::kFloat32, m, rank));
    if (s.fbias >= 0) QRT_RETURN_IF_ERROR(CheckChannelOperand(ctx, s.fbias, "Bias", DataType::kFloat32, m, rank));
    s.y_dtype = DataType::kFloat32;
  }
  if (qlinear) {
    s.y_dtype = ctx.input(s.y_zp).dtype;
    if (s.y_dtype != DataType::kUInt8 && s.y_dtype != DataType::kInt8) {
      return Unsupported("y_zero_point dtype ", DataTypeName(s.y_dtype));
    }
    QRT_RETURN_IF_ERROR(CheckParam(ctx, s.x_scale, "x_scale", DataType::kFloat32, false, m));
    QRT_RETURN_IF_ERROR(CheckParam(ctx, s.w_scale, "w_scale", DataType::kFloat32, true, m));
    QRT_RETURN_IF_ERROR(CheckParam(ctx, s.y_scale, "y_scale", DataType::kFloat32, false, m));
    QRT_RETURN_IF_ERROR(CheckParam(ctx, s.y_zp, "y_zero_point", s.y_dtype, false, m));
    if (s.bias >= 0 && (ctx.input(s.bias).dtype != DataType::kInt32 || ctx.input(s.bias).dims != Dims{m})) {
      return InvalidArgument("B must be int32 of shape [", m, "]");
    }
  }
  if (qlinear && ctx.node().def == &kQrtQLinearConvOp) {
    QRT_ASSIGN_OR_RETURN(QLinearConvClamp clamp, QLinearConvClamp::From(ctx.attrs()));
    // Kept within the output type, so the clamp never produces an unrepresentable value.
    const int64_t t_min = s.y_dtype == DataType::kUInt8 ? 0 : -128, t_max = s.y_dtype == DataType::kUInt8 ? 255 : 127;
    if (clamp.output_max < t_min || clamp.output_min > t_max) {
      return InvalidArgument("output_min..output_max ", clamp.output_min, "..", clamp.output_max, " is outside ",
                             DataTypeName(s.y_dtype));
    }
    s.out_min = int32_t(std::max(clamp.output_min, t_min));
    s.out_max = int32_t(std::min(clamp.output_max, t_max));
  }
  if (qlinear) s.requantize = SelectRequantizeRowKernel(s.y_dtype, ctx.isa());
  QRT_RETURN_IF_ERROR(ChoosePath(ctx, s));
  ctx.SetKernelNote(std::string(ConvAlgorithmName(s.path)));
  ctx.SetOutput(0, s.y_dtype, OutputDims(s.g));
  ctx.SetKernel<IntConvState, RunIntConv>(std::move(s));
  return Status::Ok();
}

Status PrepareConvInteger(PrepareContext& ctx) { return PrepareIntConv(ctx, IntConvKind::kConvInteger); }
Status PrepareQLinearConv(PrepareContext& ctx) { return PrepareIntConv(ctx, IntConvKind::kQLinearConv); }
Status PrepareConvIntegerToFloat(PrepareContext& ctx) { return PrepareIntConv(ctx, IntConvKind::kToFloat); }

}  // namespace

const OpDef kConvOp{"", "Conv", 2, 3, 1, 1, PrepareConv};
const OpDef kQrtConvQuantizeDequantizeOp{"qrt", "ConvQuantizeDequantize",     cqd::kScale + 1, cqd::kInputCount, 1,
                                         1,     PrepareConvQuantizeDequantize};
const OpDef kConvIntegerOp{"", "ConvInteger", 2, 4, 1, 1, PrepareConvInteger};
const OpDef kQrtConvIntegerToFloatOp{"qrt", "ConvIntegerToFloat",     citf::kScale + 1, citf::kInputCount, 1,
                                     1,     PrepareConvIntegerToFloat};
const OpDef kQLinearConvOp{"", "QLinearConv", qlconv::kYZeroPoint + 1, qlconv::kInputCount, 1, 1, PrepareQLinearConv};
const OpDef kQrtQLinearConvOp{"qrt", "QLinearConv",     qlconv::kYZeroPoint + 1, qlconv::kInputCount, 1,
                              1,     PrepareQLinearConv};

}  // namespace qrt
