// Conv -> [QuantizeDequantize ->] [PRelu ->] QuantizeDequantize
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
// bit-identical.
// And, for 1x1 convolutions whose output only a QuantizeLinear reads (MobileNetV2's projections,
// whose 8-bit output feeds a QuantizedAdd):
//   x --Conv(w, b)--> y --QuantizeLinear(s, z)--> q
//     =>   x --ConvQuantizeDequantize(w, b, s, z)--> y' --QuantizeLinear(s, z)--> q
// Q(DQ(Q(y))) = Q(y) for every y: DQ(Q(y)) = fl(d * s) with |d| <= 255, and fl(fl(d * s) / s)
// is within 2^-14 of d, so it rounds back to d (s a positive normal float32 constant at most
// FLT_MAX / 256, so that fl(d * s) neither overflows nor loses bits below the normal range).
// The fused convolution's output then lies on an 8-bit grid, and on CPUs with AVX-512 VNNI it
// sums in int8 (ops/kernels/pwconv/conv_pointwise_int8.h); elsewhere the added step costs one pass
// over the (small) output, so only 1x1 convolutions, where the integer path applies, are taken.
// Legality: a default-domain Conv; every value of the chain but the last is read only by the
// next node and is not a graph output; the PRelu's slope is a float32 constant with one value,
// or one per output channel (which needs W's shape: a constant, or the DQ of one). The fused
// op checks dtypes, scales and zero points as the unfused ops would (a chain that would not
// compile does not compile fused either). Runs after fuse-q-dq.
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/op_util.h"
#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

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
  if (!std::isnormal(scale) || !(scale > 0.f) || !(scale <= std::numeric_limits<float>::max() / 256)) return false;
  const ValueId z = InputOr(q, 2);
  if (z.valid()) return IsConstScalar(g, z) && Is8Bit(g.ConstantOf(z)->dtype());
  return !q.attrs.Has("output_dtype");
}

}  // namespace

StatusOr<int> FuseConvFakeQuant(Graph& g) {
  const OpDef* def = FindOp("qrt", "ConvQuantizeDequantize");
  if (def == nullptr) return Internal("op qrt:ConvQuantizeDequantize is not registered");
  auto fake_quant = [&](ValueId v) {  // the live qrt:QuantizeDequantize producing v, if any
    const NodeId id = ProducerIs(g, v, "QuantizeDequantize", "qrt");
    return id.valid() && g.node(id).inputs.size() >= 2 && g.node(id).outputs.size() == 1 ? id : NodeId{};
  };
  auto scale_and_zero_point = [](const Node& fq) { return std::pair<ValueId, ValueId>{fq.inputs[1], InputOr(fq, 2)}; };
  int rewrites = 0;
  // Consumers first, so that a chain is taken whole from its last fake quantization.
  QRT_ASSIGN_OR_RETURN(std::vector<NodeId> order, g.TopologicalOrder());
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& node = g.node(*it);
    if (node.dead || node.outputs.empty()) continue;
    const NodeId last_id = fake_quant(node.outputs[0]);
    if (last_id != *it) continue;
    const Node& last = g.node(last_id);
    // Conv -> last; or Conv [-> before] -> PRelu -> last.
    ValueId v = last.inputs[0];
    if (!HasSingleUse(g, v)) continue;
    const NodeId prelu_id = ProducerIs(g, v, "PRelu");
    NodeId before_id;
    if (prelu_id.valid()) {
      v = g.node(prelu_id).inputs[0];
      if (!HasSingleUse(g, v)) continue;
      before_id = fake_quant(v);
      if (before_id.valid()) {
        v = g.node(before_id).inputs[0];
        if (!HasSingleUse(g, v)) continue;
      }
    }
    const NodeId conv_id = ProducerIs(g, v, "Conv");
    if (!conv_id.valid()) continue;
    const Node& conv = g.node(conv_id);
    if (conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.inputs.size() > 3) continue;
    if (prelu_id.valid() && !IsChannelPRelu(g, g.node(prelu_id), conv)) continue;

    Node fused = MakeNode(def, conv.name, {conv.inputs[0], conv.inputs[1], InputOr(conv, 2)}, {}, conv.attrs);
    // Inputs 3, 4: the fake quantization before the PRelu (or the only one); 5: the slope;
    // 6, 7: the fake quantization after it.
    const auto [s0, z0] = prelu_id.valid() ? (before_id.valid() ? scale_and_zero_point(g.node(before_id))
                                                                 : std::pair<ValueId, ValueId>{})
                                           : scale_and_zero_point(last);
    fused.inputs.insert(fused.inputs.end(), {s0, z0});
    if (prelu_id.valid()) {
      const auto [s1, z1] = scale_and_zero_point(last);
      fused.inputs.insert(fused.inputs.end(), {g.node(prelu_id).inputs[1], s1, z1});
    }
    fused.outputs = {last.outputs[0]};
    for (NodeId id : {last_id, prelu_id, before_id, conv_id}) {
      if (id.valid()) g.EraseNode(id);
    }
    g.AddNode(std::move(fused));
    ++rewrites;
  }
  // Conv -> QuantizeLinear (1x1): the convolution takes the fake quantization, the
  // QuantizeLinear stays and reads the same value name.
  QRT_ASSIGN_OR_RETURN(order, g.TopologicalOrder());
  for (NodeId q_id : order) {
    const Node& q = g.node(q_id);
    if (q.dead || q.domain != "" || q.op_type != "QuantizeLinear" || q.inputs.empty()) continue;
    const ValueId y = q.inputs[0];
    const NodeId conv_id = ProducerIs(g, y, "Conv");
    if (!conv_id.valid() || !HasSingleUse(g, y) || !IsRequantizableQuantize(g, q)) continue;
    const Node& conv = g.node(conv_id);
    if (conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.inputs.size() > 3 || !IsPointwise(g, conv)) continue;
    Node fused = MakeNode(def, conv.name, {conv.inputs[0], conv.inputs[1], InputOr(conv, 2), q.inputs[1], InputOr(q, 2)},
                          {y}, conv.attrs);
    g.EraseNode(conv_id);
    g.AddNode(std::move(fused));
    ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
