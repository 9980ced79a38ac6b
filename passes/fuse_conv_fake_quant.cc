// Conv -> [Relu | Clip ->] [QuantizeDequantize ->] [PRelu ->] QuantizeDequantize
//   => qrt:ConvQuantizeDequantize                                          (fuse-conv-fake-quant)
//
//   x --Conv(w, b)--> y --QuantizeDequantize(s, z)--> f
//     =>   x --ConvQuantizeDequantize(w, b, s, z)--> f
//   x --Conv(w, b)--> y [--QuantizeDequantize(s0, z0)--> f0] --PRelu(slope)--> p --QuantizeDequantize(s1, z1)--> f
//     =>   x --ConvQuantizeDequantize(w, b, [s0, z0], slope, s1, z1)--> f
//
// In a QDQ graph most float convolutions feed a Q/DQ pair, which fuse-q-dq has made one
// QuantizeDequantize; with a PRelu after the convolution (MobileFaceNet) the quantizer puts a
// pair before and after it. Fused into the convolution, these steps run on each block of
// outputs as soon as it is final, while it is still in cache, instead of as passes over the
// whole tensor; the operations and the floats they take are the same, so the result is
// bit-identical. A Relu or Clip with constant bounds right after the convolution (ReLU6 before a
// quantizer, as Vitis AI and tf2onnx leave it) becomes the epilogue's first step, the clamp
// (attributes clamp_min, clamp_max), computed as ops/unary.cc computes Clip.
// And, for one-group convolutions whose output only a QuantizeLinear reads (MobileNetV2's
// projections, whose 8-bit output feeds a QuantizedAdd; YOLOv8n's 3x3 convolutions, whose codes
// feed its SiLU):
//   x --Conv(w, b)--> y --QuantizeLinear(s, z)--> q
//     =>   x --ConvQuantizeDequantize(w, b, s, z)--> y' --QuantizeLinear(s, z)--> q
// Q(DQ(Q(y))) = Q(y) for every y: DQ(Q(y)) = fl(d * s) with |d| <= 255, and fl(fl(d * s) / s)
// is within 2^-14 of d, so it rounds back to d (s a positive normal float32 constant at most
// FLT_MAX / 256, so that fl(d * s) neither overflows nor loses bits below the normal range).
// The fused convolution's output then lies on an 8-bit grid, and from the AVX2 tier on it sums in
// int8 (ops/kernels/pwconv/conv_pointwise_int8.h, over patches where the kernel is not 1x1);
// elsewhere the added step costs one pass over the output, so only one-group convolutions, where
// the integer path applies, are taken.
// Legality: a default-domain Conv; every value of the chain but the last is read only by the
// next node and is not a graph output; the PRelu's slope is a float32 constant with one value,
// or one per output channel (which needs W's shape: a constant, or the DQ of one). The fused
// op checks dtypes, scales and zero points as the unfused ops would (a chain that would not
// compile does not compile fused either). Runs after fuse-q-dq.
#include <string_view>
#include <utility>
#include <vector>

#include "ops/conv_quantize_dequantize.h"
#include "ops/op_util.h"
#include "ops/quantize_dequantize.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

// A PRelu reading only `conv`'s output whose slope is one float32 constant value per channel.
bool IsChannelPRelu(const Graph& g, const Node& prelu, const Node& conv) {
  if (prelu.inputs.size() != 2 || prelu.outputs.size() != 1) return false;
  const Tensor* slope = g.ConstantOf(prelu.inputs[1]);
  const Dims* w = WeightDims(g, conv.inputs[1]);
  return slope != nullptr && slope->dtype() == DataType::kFloat32 && w != nullptr && !w->empty() &&
         IsPerChannel(slope->dims(), (*w)[0], w->size());
}

// QuantizeLinear(v, s, z) with what Q(DQ(Q(y))) = Q(y) needs: s one positive normal float32
// constant at most FLT_MAX / 256; z an 8-bit constant, or absent with the default uint8 output.
bool IsRequantizableQuantize(const Graph& g, const Node& q) {
  if (q.inputs.size() < 2 || q.outputs.size() != 1 || !IsConstScalar(g, q.inputs[1])) return false;
  const Tensor* s = g.ConstantOf(q.inputs[1]);
  if (s->dtype() != DataType::kFloat32) return false;
  const float scale = s->data<float>()[0];
  if (!CodesRoundTrip(scale)) return false;
  const ValueId z = InputOr(q, 2);
  if (z.valid()) return IsConstScalar(g, z) && Is8Bit(g.ConstantOf(z)->dtype());
  return !q.attrs.Has("output_dtype");
}

// The Conv's X, W and B (B possibly absent) at the fused node's slots.
void SetConvInputs(const Node& conv, Node& fused) {
  fused.inputs[cqd::kX] = conv.inputs[0];
  fused.inputs[cqd::kW] = conv.inputs[1];
  fused.inputs[cqd::kB] = InputOr(conv, 2);
}

// The live qrt:QuantizeDequantize producing v, if any.
NodeId FakeQuant(const Graph& g, ValueId v) {
  const NodeId id = ProducerIs(g, v, kQuantizeDequantizeOp);
  return id.valid() && g.node(id).inputs.size() >= 2 && g.node(id).outputs.size() == 1 ? id : NodeId{};
}

std::pair<ValueId, ValueId> ScaleAndZeroPoint(const Node& fq) {
  return {fq.inputs[qdq::kScale], InputOr(fq, qdq::kZeroPoint)};
}

// Anchored at the chain's last fake quantization (visited consumers first, so that the
// whole chain is taken from its end).
StatusOr<Verdict> FuseChain(Rewriter& rw, NodeId last_id) {
  const Graph& g = rw.graph();
  if (FakeQuant(g, g.node(last_id).outputs.empty() ? ValueId{} : g.node(last_id).outputs[0]) != last_id) {
    return Refuse("malformed QuantizeDequantize");
  }
  const Node& last = g.node(last_id);
  // Conv -> last; or Conv [-> before] -> PRelu -> last.
  ValueId v = last.inputs[qdq::kX];
  if (!HasSingleUse(g, v)) return Refuse("its input has other readers or is a graph output");
  const NodeId prelu_id = ProducerIs(g, v, kPReluOp);
  NodeId before_id;
  if (prelu_id.valid()) {
    v = g.node(prelu_id).inputs[0];
    if (!HasSingleUse(g, v)) return Refuse("the PRelu's input has other readers");
    before_id = FakeQuant(g, v);
    if (before_id.valid()) {
      v = g.node(before_id).inputs[qdq::kX];
      if (!HasSingleUse(g, v)) return Refuse("the first fake quantization's input has other readers");
    }
  }
  NodeId clamp_id = ProducerIs(g, v, kClipOp);
  if (!clamp_id.valid()) clamp_id = ProducerIs(g, v, kReluOp);
  float clamp_lo = 0.f, clamp_hi = 0.f;
  if (clamp_id.valid()) {
    if (!ReluOrClipBounds(g, g.node(clamp_id), &clamp_lo, &clamp_hi)) {
      return Refuse("the Relu's or Clip's bounds are not float32 constants");
    }
    v = g.node(clamp_id).inputs[0];
    if (!HasSingleUse(g, v)) return Refuse("the Relu's or Clip's input has other readers");
  }
  const NodeId conv_id = ProducerIs(g, v, kConvOp);
  if (!conv_id.valid()) return Refuse("the chain does not start at a Conv");
  const Node& conv = g.node(conv_id);
  if (conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.inputs.size() > 3) return Refuse("malformed Conv");
  if (prelu_id.valid() && !IsChannelPRelu(g, g.node(prelu_id), conv)) {
    return Refuse("the PRelu's slope is not one float32 constant per channel");
  }

  Node fused = MakeNode(kQrtConvQuantizeDequantizeOp, conv.name, {}, {}, conv.attrs);
  if (clamp_id.valid()) {
    fused.attrs.Set(cqd::kClampMin, clamp_lo);
    fused.attrs.Set(cqd::kClampMax, clamp_hi);
  }
  // The fake quantization before the PRelu (or the only one); the slope and the fake
  // quantization after it.
  const auto [s0, z0] = prelu_id.valid()
                            ? (before_id.valid() ? ScaleAndZeroPoint(g.node(before_id)) : std::pair<ValueId, ValueId>{})
                            : ScaleAndZeroPoint(last);
  fused.inputs.resize(prelu_id.valid() ? cqd::kZeroPointAfter + 1 : cqd::kZeroPoint + 1);
  SetConvInputs(conv, fused);
  fused.inputs[cqd::kScale] = s0;
  fused.inputs[cqd::kZeroPoint] = z0;
  if (prelu_id.valid()) {
    const auto [s1, z1] = ScaleAndZeroPoint(last);
    fused.inputs[cqd::kSlope] = g.node(prelu_id).inputs[1];
    fused.inputs[cqd::kScaleAfter] = s1;
    fused.inputs[cqd::kZeroPointAfter] = z1;
  }
  fused.outputs = {last.outputs[0]};
  for (NodeId id : {last_id, prelu_id, before_id, clamp_id, conv_id}) {
    if (id.valid()) rw.EraseNode(id);
  }
  rw.AddNode(std::move(fused));
  return Rewrote();
}

// Conv -> QuantizeLinear (one group): the convolution takes the fake quantization, the
// QuantizeLinear stays and reads the same value name.
StatusOr<Verdict> FusePointwiseBeforeQuantize(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (q.inputs.empty()) return Refuse("no input");
  const ValueId y = q.inputs[0];
  const NodeId conv_id = ProducerIs(g, y, kConvOp);
  if (!conv_id.valid()) return Refuse("its input is not made by a Conv");
  if (!HasSingleUse(g, y)) return Refuse("the Conv's output has other readers");
  if (!IsRequantizableQuantize(g, q)) return Refuse("the scale or zero point does not make Q(DQ(Q(y))) = Q(y)");
  const Node& conv = g.node(conv_id);
  if (conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.inputs.size() > 3) return Refuse("malformed Conv");
  if (!IsGroupOneConv(g, conv)) return Refuse("the Conv has groups (the int8 path takes one group only)");
  Node fused = MakeNode(kQrtConvQuantizeDequantizeOp, conv.name, {}, {y}, conv.attrs);
  fused.inputs.resize(cqd::kZeroPoint + 1);
  SetConvInputs(conv, fused);
  fused.inputs[cqd::kScale] = q.inputs[1];
  fused.inputs[cqd::kZeroPoint] = InputOr(q, 2);
  rw.EraseNode(conv_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseConvFakeQuant(Graph& g, Explanations* explain) {
  QRT_ASSIGN_OR_RETURN(int chains,
                       RunPatterns(g, "fuse-conv-fake-quant", {{"conv-fake-quant", &kQuantizeDequantizeOp, FuseChain}},
                                   explain, VisitOrder::kConsumersFirst));
  QRT_ASSIGN_OR_RETURN(int pointwise,
                       RunPatterns(g, "fuse-conv-fake-quant",
                                   {{"pointwise-conv-quantize", &kQuantizeLinearOp, FusePointwiseBeforeQuantize}},
                                   explain, VisitOrder::kProducersFirst));
  return chains + pointwise;
}

}  // namespace qrt
