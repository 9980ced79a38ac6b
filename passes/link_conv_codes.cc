// Codes between fused convolutions and their 8-bit neighbours (link-conv-codes)
//
// A fake quantization's output is DequantizeLinear(QuantizeLinear(v)). Where a
// qrt:ConvQuantizeDequantize (CQD) meets another one or the 8-bit side of a graph, it can read
// or write the codes themselves (ops/conv.cc: input_codes, output_codes) and move a byte per
// activation instead of a float:
//   1. x --CQD (w, b, s, z)--> f --CQD--> g
//        =>  x --CQD(output_codes)--> q --CQD(..., s, z, input_codes)--> g
//      MobileNetV2's expansion -> depthwise -> projection chains: 1.2 MB instead of 4.8 MB at
//      112 x 112, which went out to L3 and came back.
//   2. x --CQD (w, b, s, z)--> f --QuantizeLinear(s, z)--> q   (a projection before its Add)
//        =>  x --CQD(output_codes)--> q
//      Q(DQ(Q(y))) = Q(y) (fuse-conv-fake-quant, which made this pair): the codes directly.
//   3. q --DequantizeLinear(s, z)--> x --CQD 1x1 or depthwise--> g
//        =>  q --CQD(..., s, z, input_codes)--> g
//      The int8 path packs the codes for VPDPBUSD without checking or rounding floats; the
//      depthwise rows dequantize as they copy. The DequantizeLinear goes when nothing else reads it.
// Writers and readers are 1x1 CQDs (the int8 path packs and writes codes) and depthwise ones
// (one input and one output channel per group, 2-D: the padded-rows kernels dequantize input
// rows as they read them and quantize their outputs); a writer's only step is the fake
// quantization, and a reader's X is what the writer wrote or what a DequantizeLinear with one
// constant scale and zero point gave.
// Runs after fuse-conv-fake-quant.
#include <string>
#include <utility>
#include <vector>

#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {
namespace {

bool IsConvFakeQuant(const Node& n) {
  return !n.dead && n.domain == "qrt" && n.op_type == "ConvQuantizeDequantize";
}

// One input and one output channel per group, 2-D, W's dims known.
bool IsDepthwise2d(const Graph& g, const Node& conv) {
  const Dims* w = WeightDims(g, conv.inputs[1]);
  auto group = conv.attrs.GetInt("group", 1);
  return w != nullptr && w->size() == 4 && (*w)[1] == 1 && group.ok() && *group == (*w)[0];
}

// A 1x1 or depthwise CQD not yet writing codes whose only step is the fake quantization (X, W,
// B, its scale and zero point; input_codes may follow).
bool IsWriter(const Graph& g, const Node& n) {
  return IsConvFakeQuant(n) && !n.attrs.Has("output_codes") && n.outputs.size() == 1 && InputOr(n, 3).valid() &&
         !InputOr(n, 5).valid() && !InputOr(n, 6).valid() && !InputOr(n, 7).valid() &&
         (IsPointwise(g, n) || IsDepthwise2d(g, n));
}

// A CQD not yet reading codes that could read them well, with X as input 0 and at most 8 inputs.
bool IsReader(const Graph& g, const Node& n) {
  return IsConvFakeQuant(n) && !n.attrs.Has("input_codes") && n.inputs.size() <= 8 &&
         (IsPointwise(g, n) || IsDepthwise2d(g, n));
}

// `reader` with X read as codes q with this scale and zero point.
Node ReadingCodes(const Node& reader, ValueId q, ValueId scale, ValueId zero_point) {
  Node n = reader;
  n.inputs[0] = q;
  n.inputs.resize(8);  // inputs 5-7 omitted where absent
  n.inputs.push_back(scale);
  if (zero_point.valid()) n.inputs.push_back(zero_point);
  n.attrs.Set("input_codes", int64_t(1));
  return n;
}

Node WritingCodes(const Node& writer, ValueId q) {
  Node n = writer;
  n.outputs = {q};
  n.attrs.Set("output_codes", int64_t(1));
  return n;
}

DataType CodeType(const Graph& g, ValueId zero_point) {
  return zero_point.valid() ? g.value(zero_point).dtype : DataType::kUInt8;
}

// Whether `q` is a QuantizeLinear of `writer`'s own scale and zero point, per tensor.
bool QuantizesLike(const Node& q, const Node& writer) {
  return !q.dead && q.domain.empty() && q.op_type == "QuantizeLinear" && q.outputs.size() == 1 &&
         !q.attrs.Has("output_dtype") && !q.attrs.Has("axis") && q.inputs.size() >= 2 && q.inputs[1] == writer.inputs[3] &&
         InputOr(q, 2) == InputOr(writer, 4);
}

// 1 and 2: a writer whose only reader is a reader, or a QuantizeLinear of its own scale.
int LinkWriters(Graph& g, const std::vector<NodeId>& order) {
  int rewrites = 0;
  for (NodeId writer_id : order) {
    const Node& writer = g.node(writer_id);
    if (!IsWriter(g, writer) || !HasSingleUse(g, writer.outputs[0])) continue;
    const NodeId next_id = g.Consumers(writer.outputs[0])[0];
    const Node& next = g.node(next_id);
    const ValueId scale = writer.inputs[3], zero_point = InputOr(writer, 4);
    std::vector<Node> rewritten;  // the writer, then the reader (rule 1; rule 2 drops the QuantizeLinear)
    if (QuantizesLike(next, writer)) {
      rewritten.push_back(WritingCodes(writer, next.outputs[0]));
    } else if (IsReader(g, next) && next.inputs[0] == writer.outputs[0]) {
      const DataType type = CodeType(g, zero_point);
      if (!Is8Bit(type)) continue;
      const ValueId q = g.AddUniqueValue(g.value(writer.outputs[0]).name + "_codes", type);
      rewritten.push_back(WritingCodes(writer, q));
      rewritten.push_back(ReadingCodes(next, q, scale, zero_point));
    } else {
      continue;
    }
    g.EraseNode(next_id);
    g.EraseNode(writer_id);
    for (Node& n : rewritten) g.AddNode(std::move(n));
    ++rewrites;
  }
  return rewrites;
}

// 3: readers of a DequantizeLinear with one constant scale and zero point.
int ReadDequantizeLinearsCodes(Graph& g, const std::vector<NodeId>& order) {
  int rewrites = 0;
  for (NodeId reader_id : order) {
    const Node& reader = g.node(reader_id);
    if (!IsReader(g, reader) || reader.inputs.empty()) continue;
    DqInfo dq;
    if (!MatchDq(g, reader.inputs[0], &dq) || !IsConstScalar(g, dq.scale) ||
        (dq.zero_point.valid() && !IsConstScalar(g, dq.zero_point)) || g.node(dq.node).attrs.Has("axis")) {
      continue;
    }
    // The zero point's type, which DequantizeLinear requires the data's to be (without one, the
    // data's, where known: it may also be int32).
    if (!Is8Bit(DqDataType(g, dq))) continue;
    Node reads = ReadingCodes(reader, dq.data, dq.scale, dq.zero_point);
    g.EraseNode(reader_id);
    g.AddNode(std::move(reads));
    ++rewrites;
  }
  return rewrites;
}

}  // namespace

StatusOr<int> LinkConvCodes(Graph& g) {
  if (FindOp("qrt", "ConvQuantizeDequantize") == nullptr) {
    return Internal("op qrt:ConvQuantizeDequantize is not registered");
  }
  int rewrites = 0;
  // Each rule until it finds nothing more, over the nodes the last round left (a rewritten node
  // is a new one: the reader of one link may be the writer of the next).
  for (auto rule : {LinkWriters, ReadDequantizeLinearsCodes}) {
    for (int found = 1; found > 0; rewrites += found) {
      QRT_ASSIGN_OR_RETURN(std::vector<NodeId> order, g.TopologicalOrder());
      found = rule(g, order);
    }
  }
  return rewrites;
}

}  // namespace qrt
