// Q([Relu|Clip](Conv(DQ(x), DQ(w), DQ(b)))) -> qrt:QLinearConv(x, w, b)     (fuse-qdq-conv)
//
//   x --DQ--.
//   w --DQ---Conv--[Relu|Clip]--Q--> y     =>     x, w, b --QLinearConv[clamp]--> y
//   b --DQ--'
//
// Not bit-exact, by nature: the unfused graph sums float products in some order and
// rounds, the fused node sums exact int32 products and requantizes once (ONNX
// QLinearConv). The two differ only where the float graph is itself inexact, by at most
// one quantization step (tested). Relu/Clip become a clamp of the quantized output, which
// is exact because quantization is monotonic. Legality:
// - Conv (and the activation) outputs are read only by the next node and are not graph outputs;
// - x: 8-bit DQ with constant per-tensor scale and zero point;
// - w: a constant 8-bit DQ with a per-tensor scale or a per-output-channel one (axis 0);
// - b (optional): a DQ of constant int32 data, zero point 0, whose scale is exactly the f32
//   product x_scale * w_scale[m] (the QDQ convention), so the int32 bias is the same number;
// - y: per-tensor 8-bit QuantizeLinear with a constant scale and zero point;
// - every scale is a usable non-zero constant.
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/qlinear_conv.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

// ONNX QuantizeLinear of one float, as the fused clamp bound.
int64_t QuantizeBound(float v, float scale, int64_t zp, int64_t lo, int64_t hi) {
  float r = std::nearbyint(v / scale);
  double q = std::isnan(r) ? double(zp) : double(r) + double(zp);
  return q < double(lo) ? lo : (q > double(hi) ? hi : int64_t(q));
}

StatusOr<Verdict> FuseChain(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (q.inputs.size() < 3 || !q.inputs[0].valid()) return Refuse("no zero point input");
  if (!IsConstScalar(g, q.inputs[1]) || !IsUsableScale(g, q.inputs[1])) {
    return Refuse("the output scale is not one constant, non-zero float32");
  }
  if (!IsConstScalar(g, q.inputs[2]) || !Is8Bit(g.ConstantOf(q.inputs[2])->dtype())) {
    return Refuse("the output zero point is not one constant 8-bit value");
  }
  const DataType y_type = g.ConstantOf(q.inputs[2])->dtype();
  const int64_t t_lo = y_type == DataType::kUInt8 ? 0 : -128, t_hi = y_type == DataType::kUInt8 ? 255 : 127;
  const float y_scale = g.ConstantOf(q.inputs[1])->data<float>()[0];
  const int64_t y_zp = g.ConstantOf(q.inputs[2])->GetAsInt64(0);

  // Optional activation between Conv and Q.
  NodeId act_id;
  ValueId conv_out = q.inputs[0];
  int64_t out_min = t_lo, out_max = t_hi;
  NodeId p = g.value(conv_out).producer;
  if (!p.valid() || !HasSingleUse(g, conv_out)) return Refuse("its input has no producer or other readers");
  if (IsOp(g.node(p), kReluOp) || IsOp(g.node(p), kClipOp)) {
    const Node& act = g.node(p);
    float lo, hi;
    if (!ReluOrClipBounds(g, act, &lo, &hi)) return Refuse("the activation's bounds are not float32 constants");
    if (std::isnan(lo) || std::isnan(hi)) return Refuse("a Clip bound is NaN");
    out_min = std::max(t_lo, QuantizeBound(lo, y_scale, y_zp, t_lo, t_hi));
    out_max = std::min(t_hi, QuantizeBound(hi, y_scale, y_zp, t_lo, t_hi));
    act_id = p;
    conv_out = act.inputs[0];
    p = g.value(conv_out).producer;
    if (!p.valid() || !HasSingleUse(g, conv_out))
      return Refuse("the activation's input has no producer or other readers");
  }
  const Node& conv = g.node(p);
  if (!IsOp(conv, kConvOp) || conv.inputs.size() < 2) return Refuse("not made by a Conv");

  DqInfo x, w, b;
  if (!MatchDq(g, conv.inputs[0], &x) || !MatchDq(g, conv.inputs[1], &w)) {
    return Refuse("the Conv's X or W is not made by a DequantizeLinear with constants");
  }
  const DataType x_type = DqDataType(g, x), w_type = DqDataType(g, w);
  if (!Is8Bit(x_type) || !Is8Bit(w_type)) return Refuse("X or W is not 8-bit");
  if (!g.IsConstant(w.data)) return Refuse("W is not a constant");
  if (!IsConstScalar(g, x.scale) || !IsUsableScale(g, x.scale)) return Refuse("X's scale is not one usable constant");
  if (x.zero_point.valid() && !IsConstScalar(g, x.zero_point)) return Refuse("X's zero point is not one constant");
  const Tensor& wt = *g.ConstantOf(w.data);
  if (wt.rank() < 3) return Refuse("W has rank < 3");
  const int64_t m = wt.dims()[0];
  const Tensor& ws = *g.ConstantOf(w.scale);
  if (!IsUsableScale(g, w.scale)) return Refuse("W's scale is not usable (zero, NaN or above 1e30)");
  const bool w_per_channel = ws.numel() != 1;
  if (w_per_channel) {
    auto axis = g.node(w.node).attrs.GetInt("axis", 1);
    if (!axis.ok() || (*axis != 0 && *axis != -wt.rank()) || ws.dims() != Dims{m}) {
      return Refuse("W's scale is not per tensor or per output channel");
    }
  }
  if (w.zero_point.valid() && g.ConstantOf(w.zero_point)->dims() != ws.dims()) {
    return Refuse("W's zero point is not of its scale's shape");
  }

  // The bias: int32 data whose DQ scale is exactly x_scale * w_scale[m] in f32.
  ValueId bias;
  if (conv.inputs.size() > 2 && conv.inputs[2].valid()) {
    if (!MatchDq(g, conv.inputs[2], &b) || !g.IsConstant(b.data))
      return Refuse("the bias is not a dequantized constant");
    const Tensor& bt = *g.ConstantOf(b.data);
    const Tensor& bs = *g.ConstantOf(b.scale);
    if (bt.dtype() != DataType::kInt32 || bt.dims() != Dims{m} || bs.dtype() != DataType::kFloat32 ||
        (bs.numel() != 1 && bs.numel() != m)) {
      return Refuse("the bias is not int32 [M] with a float32 scale per tensor or channel");
    }
    if (b.zero_point.valid()) {
      const Tensor& bz = *g.ConstantOf(b.zero_point);
      for (int64_t k = 0; k < bz.numel(); ++k) {
        if (bz.GetAsInt64(k) != 0) return Refuse("the bias's zero point is not 0");
      }
    }
    const float sx = g.ConstantOf(x.scale)->data<float>()[0];
    for (int64_t k = 0; k < m; ++k) {
      const float want = sx * ws.data<float>()[w_per_channel ? k : 0];
      const float got = bs.data<float>()[bs.numel() == 1 ? 0 : k];
      if (std::memcmp(&want, &got, sizeof(float)) != 0) return Refuse("the bias's scale is not X's times W's");
    }
    bias = b.data;
  }

  Node fused = MakeNode(kQrtQLinearConvOp, conv.name, {}, q.outputs, conv.attrs);
  if (act_id.valid()) QLinearConvClamp{out_min, out_max}.SetOn(fused.attrs);
  const std::string name = conv.name;
  const Dims w_scale_dims = ws.dims();
  std::vector<ValueId> dq_outputs = {conv.inputs[0], conv.inputs[1]};
  if (bias.valid()) dq_outputs.push_back(conv.inputs[2]);
  const ValueId q_scale = q.inputs[1], q_zp = q.inputs[2];
  const ValueId x_zp =
      x.zero_point.valid() ? x.zero_point : rw.AddConstant(name + "_x_zp", Tensor::Allocate(x_type, {}).value());
  const ValueId w_zp = w.zero_point.valid()
                           ? w.zero_point
                           : rw.AddConstant(name + "_w_zp", Tensor::Allocate(w_type, w_scale_dims).value());
  fused.inputs.resize(bias.valid() ? qlconv::kInputCount : qlconv::kB);
  fused.inputs[qlconv::kX] = x.data;
  fused.inputs[qlconv::kXScale] = x.scale;
  fused.inputs[qlconv::kXZeroPoint] = x_zp;
  fused.inputs[qlconv::kW] = w.data;
  fused.inputs[qlconv::kWScale] = w.scale;
  fused.inputs[qlconv::kWZeroPoint] = w_zp;
  fused.inputs[qlconv::kYScale] = q_scale;
  fused.inputs[qlconv::kYZeroPoint] = q_zp;
  if (bias.valid()) fused.inputs[qlconv::kB] = bias;
  rw.EraseNode(q_id);
  if (act_id.valid()) rw.EraseNode(act_id);
  rw.EraseNode(p);
  rw.AddNode(std::move(fused));
  for (ValueId v : dq_outputs) {
    NodeId dq = g.value(v).producer;
    if (dq.valid() && !g.node(dq).dead && g.Consumers(v).empty() && !g.IsGraphOutput(v)) rw.EraseNode(dq);
  }
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseQdqConv(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-qdq-conv", {{"dq-conv-q", &kQuantizeLinearOp, FuseChain}}, explain);
}

}  // namespace qrt
