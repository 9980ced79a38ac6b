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

#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {
namespace {

// ONNX QuantizeLinear of one float, as the fused clamp bound.
int64_t QuantizeBound(float v, float scale, int64_t zp, int64_t lo, int64_t hi) {
  float r = std::nearbyint(v / scale);
  double q = std::isnan(r) ? double(zp) : double(r) + double(zp);
  return q < double(lo) ? lo : (q > double(hi) ? hi : int64_t(q));
}

}  // namespace

StatusOr<int> FuseQdqConv(Graph& g, Explanations* /*explain: not yet written as patterns*/) {
  const OpDef* def = FindOp("qrt", "QLinearConv");
  if (def == nullptr) return Internal("op qrt:QLinearConv is not registered");
  int rewrites = 0;
  const size_t n_nodes = g.num_nodes();
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& q = g.node(NodeId{i});
    if (q.dead || !q.domain.empty() || q.op_type != "QuantizeLinear" || q.inputs.size() < 3) continue;
    if (!q.inputs[0].valid() || !IsConstScalar(g, q.inputs[1]) || !IsUsableScale(g, q.inputs[1])) continue;
    if (!IsConstScalar(g, q.inputs[2]) || !Is8Bit(g.ConstantOf(q.inputs[2])->dtype())) continue;
    const DataType y_type = g.ConstantOf(q.inputs[2])->dtype();
    const int64_t t_lo = y_type == DataType::kUInt8 ? 0 : -128, t_hi = y_type == DataType::kUInt8 ? 255 : 127;
    const float y_scale = g.ConstantOf(q.inputs[1])->data<float>()[0];
    const int64_t y_zp = g.ConstantOf(q.inputs[2])->GetAsInt64(0);

    // Optional activation between Conv and Q.
    NodeId act_id;
    ValueId conv_out = q.inputs[0];
    int64_t out_min = t_lo, out_max = t_hi;
    NodeId p = g.value(conv_out).producer;
    if (!p.valid() || !HasSingleUse(g, conv_out)) continue;
    if (g.node(p).domain.empty() && (g.node(p).op_type == "Relu" || g.node(p).op_type == "Clip")) {
      const Node& act = g.node(p);
      if (act.inputs.empty() || !act.inputs[0].valid()) continue;
      float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
      if (act.op_type == "Relu") {
        lo = 0.f;
      } else if (act.opset < 11) {
        auto a = act.attrs.GetFloat("min", lo), b = act.attrs.GetFloat("max", hi);
        if (!a.ok() || !b.ok()) continue;
        lo = *a;
        hi = *b;
      } else {
        bool ok = true;
        for (size_t k = 1; k < act.inputs.size() && k <= 2; ++k) {
          if (!act.inputs[k].valid()) continue;
          const Tensor* t = g.ConstantOf(act.inputs[k]);
          if (t == nullptr || t->numel() != 1 || t->dtype() != DataType::kFloat32) {
            ok = false;
            break;
          }
          (k == 1 ? lo : hi) = t->data<float>()[0];
        }
        if (!ok || std::isnan(lo) || std::isnan(hi)) continue;
      }
      out_min = std::max(t_lo, QuantizeBound(lo, y_scale, y_zp, t_lo, t_hi));
      out_max = std::min(t_hi, QuantizeBound(hi, y_scale, y_zp, t_lo, t_hi));
      act_id = p;
      conv_out = act.inputs[0];
      p = g.value(conv_out).producer;
      if (!p.valid() || !HasSingleUse(g, conv_out)) continue;
    }
    const Node& conv = g.node(p);
    if (!conv.domain.empty() || conv.op_type != "Conv" || conv.inputs.size() < 2) continue;

    DqInfo x, w, b;
    if (!MatchDq(g, conv.inputs[0], &x) || !MatchDq(g, conv.inputs[1], &w)) continue;
    const DataType x_type = DqDataType(g, x), w_type = DqDataType(g, w);
    if (!Is8Bit(x_type) || !Is8Bit(w_type) || !g.IsConstant(w.data)) continue;
    if (!IsConstScalar(g, x.scale) || !IsUsableScale(g, x.scale)) continue;
    if (x.zero_point.valid() && !IsConstScalar(g, x.zero_point)) continue;
    const Tensor& wt = *g.ConstantOf(w.data);
    if (wt.rank() < 3) continue;
    const int64_t m = wt.dims()[0];
    const Tensor& ws = *g.ConstantOf(w.scale);
    if (!IsUsableScale(g, w.scale)) continue;
    const bool w_per_channel = ws.numel() != 1;
    if (w_per_channel) {
      auto axis = g.node(w.node).attrs.GetInt("axis", 1);
      if (!axis.ok() || (*axis != 0 && *axis != -wt.rank()) || ws.dims() != Dims{m}) continue;
    }
    if (w.zero_point.valid() && g.ConstantOf(w.zero_point)->dims() != ws.dims()) continue;

    // The bias: int32 data whose DQ scale is exactly x_scale * w_scale[m] in f32.
    ValueId bias;
    if (conv.inputs.size() > 2 && conv.inputs[2].valid()) {
      if (!MatchDq(g, conv.inputs[2], &b) || !g.IsConstant(b.data)) continue;
      const Tensor& bt = *g.ConstantOf(b.data);
      const Tensor& bs = *g.ConstantOf(b.scale);
      if (bt.dtype() != DataType::kInt32 || bt.dims() != Dims{m} || bs.dtype() != DataType::kFloat32) continue;
      if (bs.numel() != 1 && bs.numel() != m) continue;
      if (b.zero_point.valid()) {
        const Tensor& bz = *g.ConstantOf(b.zero_point);
        bool zero = true;
        for (int64_t k = 0; k < bz.numel(); ++k) zero = zero && bz.GetAsInt64(k) == 0;
        if (!zero) continue;
      }
      const float sx = g.ConstantOf(x.scale)->data<float>()[0];
      bool same = true;
      for (int64_t k = 0; k < m && same; ++k) {
        const float want = sx * ws.data<float>()[w_per_channel ? k : 0];
        const float got = bs.data<float>()[bs.numel() == 1 ? 0 : k];
        same = std::memcmp(&want, &got, sizeof(float)) == 0;
      }
      if (!same) continue;
      bias = b.data;
    }

    Node fused = MakeNode(def, conv.name, {}, q.outputs, conv.attrs);
    if (act_id.valid()) {
      fused.attrs.Set("output_min", out_min);
      fused.attrs.Set("output_max", out_max);
    }
    const ValueId x_zp = x.zero_point.valid() ? x.zero_point : ZeroConstant(g, conv.name + "_x_zp", x_type, {});
    const ValueId w_zp = w.zero_point.valid() ? w.zero_point : ZeroConstant(g, conv.name + "_w_zp", w_type, ws.dims());
    fused.inputs = {x.data, x.scale, x_zp, w.data, w.scale, w_zp, q.inputs[1], q.inputs[2]};
    if (bias.valid()) fused.inputs.push_back(bias);

    std::vector<ValueId> dq_outputs = {conv.inputs[0], conv.inputs[1]};
    if (bias.valid()) dq_outputs.push_back(conv.inputs[2]);
    g.EraseNode(NodeId{i});
    if (act_id.valid()) g.EraseNode(act_id);
    g.EraseNode(p);
    g.AddNode(std::move(fused));
    for (ValueId v : dq_outputs) {
      NodeId dq = g.value(v).producer;
      if (dq.valid() && !g.node(dq).dead && g.Consumers(v).empty() && !g.IsGraphOutput(v)) g.EraseNode(dq);
    }
    ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
