// Helpers shared by the fusion passes: legality checks, and the fused nodes they build.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ops/ops.h"
#include "runtime/graph.h"
#include "runtime/op_def.h"

namespace qrt {

// Whether n is a live node of the registered op `op`. Ops are identified by their OpDef (the
// loader resolves every node's), never by comparing names.
inline bool IsOp(const Node& n, const OpDef& op) { return !n.dead && n.def == &op; }

// The live node producing `v` if it is the op `op`, else an invalid id.
inline NodeId ProducerIs(const Graph& g, ValueId v, const OpDef& op) {
  if (!v.valid()) return NodeId{};
  NodeId p = g.value(v).producer;
  return p.valid() && IsOp(g.node(p), op) ? p : NodeId{};
}

// A node of the registered op `def` (qrt's ops are opset 1), as a rewrite adds it.
inline Node MakeNode(const OpDef& def, std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                     Attributes attrs = {}) {
  Node n;
  n.name = std::move(name);
  n.domain = std::string(def.domain);
  n.op_type = std::string(def.op_type);
  n.opset = 1;
  n.def = &def;
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attrs = std::move(attrs);
  return n;
}

// Input i of n, or an invalid id when n has fewer inputs (an omitted optional input).
inline ValueId InputOr(const Node& n, size_t i) { return n.inputs.size() > i ? n.inputs[i] : ValueId{}; }

// True if exactly one live node reads `v`, and reads it once, and it is not a graph output.
inline bool HasSingleUse(const Graph& g, ValueId v) {
  if (g.IsGraphOutput(v)) return false;
  std::vector<NodeId> users = g.Consumers(v);
  if (users.size() != 1) return false;
  int reads = 0;
  for (ValueId in : g.node(users[0]).inputs) reads += in == v;
  return reads == 1;
}

// A constant with exactly one element (shape [] or [1]).
inline bool IsConstScalar(const Graph& g, ValueId v) {
  const Tensor* t = g.ConstantOf(v);
  return t != nullptr && t->numel() == 1 && t->rank() <= 1;
}

// A constant float32 scale whose every element is non-zero and at most 1e30 in magnitude.
// Then a dequantized 8- or 16-bit value (|q - zp| <= 65535) is finite, a product or sum of two of
// them is finite or +-inf but never NaN, and dividing it by a non-zero finite scale gives
// no NaN either. NaN is the one value on which the fused kernels and QuantizeLinear
// disagree, so excluding it keeps fusion bit-identical.
inline bool IsUsableScale(const Graph& g, ValueId v) {
  const Tensor* t = g.ConstantOf(v);
  if (t == nullptr || t->dtype() != DataType::kFloat32 || t->rank() > 1) return false;
  for (int64_t i = 0; i < t->numel(); ++i) {
    const float s = t->data<float>()[i];
    if (!(std::fabs(s) <= 1e30f) || s == 0.f) return false;
  }
  return true;
}

inline bool Is8Bit(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }
inline bool Is16Bit(DataType t) { return t == DataType::kInt16 || t == DataType::kUInt16; }
// A quantized type a node of this opset may use: 8-bit always, 16-bit from opset 21.
inline bool IsQuantType(DataType t, int64_t opset) { return Is8Bit(t) || (Is16Bit(t) && opset >= 21); }

// A DequantizeLinear producing `v`, with constant scale and zero point (not blocked).
struct DqInfo {
  NodeId node;
  ValueId data, scale, zero_point;
};

inline bool MatchDq(const Graph& g, ValueId v, DqInfo* out) {
  NodeId id = ProducerIs(g, v, kDequantizeLinearOp);
  if (!id.valid()) return false;
  const Node& n = g.node(id);
  if (n.inputs.size() < 2 || !n.inputs[0].valid() || !g.IsConstant(n.inputs[1])) return false;
  out->node = id;
  out->data = n.inputs[0];
  out->scale = n.inputs[1];
  out->zero_point = InputOr(n, 2);
  if (out->zero_point.valid() && !g.IsConstant(out->zero_point)) return false;
  return !n.attrs.Has("block_size");
}

// The quantized dtype a DQ reads: its zero point's, else its data's.
inline DataType DqDataType(const Graph& g, const DqInfo& d) {
  if (d.zero_point.valid()) return g.ConstantOf(d.zero_point)->dtype();
  if (g.IsConstant(d.data)) return g.ConstantOf(d.data)->dtype();
  return g.value(d.data).dtype;
}

// The dtype of `v` where the graph implies it: its declared dtype, a constant's, a
// DequantizeLinear's scale's, a Cast's or a DynamicQuantizeLinear output's, or, through ops whose output has their
// first input's dtype (element-wise arithmetic, fake quantization, normalization, reshaping), that input's; kUndefined
// when none of these reaches a known dtype within a few steps.
inline DataType ImpliedDtype(const Graph& g, ValueId v) {
  static const OpDef* const kSameAsFirstInput[] = {&kQuantizeDequantizeOp,
                                                   &kAddOp,
                                                   &kSubOp,
                                                   &kMulOp,
                                                   &kDivOp,
                                                   &kReluOp,
                                                   &kSigmoidOp,
                                                   &kGeluOp,
                                                   &kIdentityOp,
                                                   &kReshapeOp,
                                                   &kTransposeOp,
                                                   &kSoftmaxOp,
                                                   &kLayerNormalizationOp};
  for (int step = 0; step < 32 && v.valid(); ++step) {
    if (const Tensor* t = g.ConstantOf(v)) return t->dtype();
    if (g.value(v).dtype != DataType::kUndefined) return g.value(v).dtype;
    const NodeId p = g.value(v).producer;
    if (!p.valid() || g.node(p).dead || g.node(p).inputs.empty()) return DataType::kUndefined;
    const Node& n = g.node(p);
    if (n.def == &kDequantizeLinearOp) {
      const Tensor* scale = n.inputs.size() > 1 ? g.ConstantOf(n.inputs[1]) : nullptr;
      return scale != nullptr ? scale->dtype() : DataType::kUndefined;
    }
    if (n.def == &kCastOp) {
      auto to = n.attrs.GetInt("to");
      const std::optional<DataType> t = to.ok() ? DataTypeFromOnnx(int(*to)) : std::nullopt;
      return t.value_or(DataType::kUndefined);
    }
    if (n.def == &kDynamicQuantizeLinearOp) {  // y and y_zero_point uint8, y_scale float32
      return n.outputs.size() > 1 && n.outputs[1] == v ? DataType::kFloat32 : DataType::kUInt8;
    }
    bool same = false;
    for (const OpDef* op : kSameAsFirstInput) same |= n.def == op;
    if (!same) return DataType::kUndefined;
    v = n.inputs[0];
  }
  return DataType::kUndefined;
}

// Why the QuantizeLinear `q` is not one per-tensor 8-bit quantizer (a constant float32 scale
// of one element, a constant 8-bit zero point of one element or none, and then no
// output_dtype), or "" when it is: the output end of the row-by-row fusions.
inline std::string PerTensor8BitQRefusal(const Graph& g, const Node& q) {
  if (q.inputs.size() < 2 || !IsConstScalar(g, q.inputs[1]) ||
      g.ConstantOf(q.inputs[1])->dtype() != DataType::kFloat32) {
    return "the scale is not one float32 constant";
  }
  const ValueId zp = InputOr(q, 2);
  if (zp.valid() && !(IsConstScalar(g, zp) && Is8Bit(g.ConstantOf(zp)->dtype()))) {
    return "the zero point is not one constant 8-bit value";
  }
  if (!zp.valid() && q.attrs.Has("output_dtype")) return "no zero point, with output_dtype";
  return "";
}

// Why the DequantizeLinear `dq` is not one per-tensor 8-bit dequantizer of a value (as
// PerTensor8BitQRefusal), or "" when it is: the input end of the row-by-row fusions.
inline std::string PerTensor8BitDqRefusal(const Graph& g, const Node& dq) {
  if (dq.inputs.size() < 2 || !dq.inputs[0].valid() || !IsConstScalar(g, dq.inputs[1]) ||
      g.ConstantOf(dq.inputs[1])->dtype() != DataType::kFloat32) {
    return "the DequantizeLinear's scale is not one float32 constant";
  }
  const ValueId zp = InputOr(dq, 2);
  if (zp.valid() && !(IsConstScalar(g, zp) && Is8Bit(g.ConstantOf(zp)->dtype()))) {
    return "the DequantizeLinear's zero point is not one constant 8-bit value";
  }
  const DataType data = zp.valid() ? g.ConstantOf(zp)->dtype() : ImpliedDtype(g, dq.inputs[0]);
  if (!Is8Bit(data)) return "the DequantizeLinear's data is not 8-bit";
  return "";
}

// Whether an 8-bit grid of this scale gives its codes back through DequantizeLinear then
// QuantizeLinear, Q(DQ(c)) = c: a positive normal scale at most FLT_MAX / 256, so that
// fl(d * s) neither overflows nor loses bits below the normal range, and fl(fl(d * s) / s) is
// within 2^-14 of d.
inline bool CodesRoundTrip(float scale) {
  return std::isnormal(scale) && scale > 0.f && scale <= std::numeric_limits<float>::max() / 256;
}

// The bounds a float32 Relu or Clip applies, as ops/unary.cc reads them: Relu [0, +inf]; Clip's
// attributes before opset 11 (defaults -FLT_MAX and FLT_MAX), its float32 constant inputs from
// opset 11 (absent: -inf, +inf). False where a bound is not such a constant.
inline bool ReluOrClipBounds(const Graph& g, const Node& act, float* lo, float* hi) {
  if (act.inputs.empty() || !act.inputs[0].valid() || act.outputs.size() != 1) return false;
  if (IsOp(act, kReluOp)) {
    *lo = 0.f, *hi = std::numeric_limits<float>::infinity();
    return act.inputs.size() == 1;
  }
  if (!IsOp(act, kClipOp)) return false;
  if (act.opset < 11) {
    auto a = act.attrs.GetFloat("min", -std::numeric_limits<float>::max());
    auto b = act.attrs.GetFloat("max", std::numeric_limits<float>::max());
    if (!a.ok() || !b.ok()) return false;
    *lo = *a, *hi = *b;
    return true;
  }
  *lo = -std::numeric_limits<float>::infinity(), *hi = std::numeric_limits<float>::infinity();
  for (size_t k = 1; k < act.inputs.size(); ++k) {
    if (!act.inputs[k].valid()) continue;
    const Tensor* t = g.ConstantOf(act.inputs[k]);
    if (k > 2 || t == nullptr || t->numel() != 1 || t->dtype() != DataType::kFloat32) return false;
    (k == 1 ? *lo : *hi) = t->data<float>()[0];
  }
  return true;
}

// Convolutions (fuse-conv-fake-quant, link-conv-codes).

// W's dims, when W is a constant or the DequantizeLinear of one.
inline const Dims* WeightDims(const Graph& g, ValueId w) {
  if (const Tensor* t = g.ConstantOf(w)) return &t->dims();
  const NodeId dq = ProducerIs(g, w, kDequantizeLinearOp);
  if (!dq.valid() || g.node(dq).inputs.empty()) return nullptr;
  const Tensor* q = g.ConstantOf(g.node(dq).inputs[0]);
  return q != nullptr ? &q->dims() : nullptr;
}

// A 1x1 convolution with one group, read from W's dims and the attributes (no strides,
// dilations or pads: the integer path's geometry).
inline bool IsPointwise(const Graph& g, const Node& conv) {
  const Dims* w = WeightDims(g, conv.inputs[1]);
  if (w == nullptr || w->size() != 4 || (*w)[2] != 1 || (*w)[3] != 1) return false;
  for (const char* name : {"strides", "dilations", "pads"}) {
    if (!conv.attrs.Has(name)) continue;
    auto v = conv.attrs.GetInts(name);
    if (!v.ok()) return false;
    for (int64_t i : *v) {
      if (i != (std::string_view(name) == "pads" ? 0 : 1)) return false;
    }
  }
  auto group = conv.attrs.GetInt("group", 1);
  auto auto_pad = conv.attrs.GetString("auto_pad", "NOTSET");
  return group.ok() && *group == 1 && auto_pad.ok() && *auto_pad != "SAME_UPPER" && *auto_pad != "SAME_LOWER";
}

// A convolution with one group and W's dims known (1-D to 3-D): the integer path's, through its
// patches where it is not 1x1 (ops/kernels/pwconv/conv_pointwise_int8.h).
inline bool IsGroupOneConv(const Graph& g, const Node& conv) {
  const Dims* w = WeightDims(g, conv.inputs[1]);
  auto group = conv.attrs.GetInt("group", 1);
  return w != nullptr && w->size() >= 3 && w->size() <= 5 && group.ok() && *group == 1;
}

// A zero-filled constant of the given dtype and dims, for an absent zero point.
inline ValueId ZeroConstant(Graph& g, const std::string& base, DataType t, const Dims& dims) {
  ValueId id = g.AddUniqueValue(base, t);
  g.value(id).shape = ShapeFromDims(dims);
  g.value(id).constant = Tensor::Allocate(t, dims).value();
  return id;
}

}  // namespace qrt
