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
//   3. q --DequantizeLinear(s, z)--> x --CQD one-group or depthwise--> g
//        =>  q --CQD(..., s, z, input_codes)--> g
//      The int8 path packs the codes for VPDPBUSD without checking or rounding floats; the
//      depthwise rows dequantize as they copy. The DequantizeLinear goes when nothing else reads it.
//   4. x --QuantizeDequantize(s, z)--> f --CQD--> g   (f read by nothing else)
//        =>  x --QuantizeLinear(s, z)--> q --CQD(..., s, z, input_codes)--> g
//      The fake quantization is DequantizeLinear(QuantizeLinear(x)) (fuse-q-dq made it of the
//      pair), and the reader dequantizes the codes as DequantizeLinear does: the same floats,
//      without checking a float tensor against the grid (a network's first convolution).
// Writers and readers are one-group CQDs (the int8 path packs, or builds patches of, and writes
// codes) and depthwise ones
// (one input and one output channel per group, 2-D: the padded-rows kernels dequantize input
// rows as they read them and quantize their outputs); a writer's only step is the fake
// quantization, and a reader's X is what the writer wrote or what a DequantizeLinear with one
// constant scale and zero point gave.
// Runs after fuse-conv-fake-quant.
#include <string>
#include <utility>
#include <vector>

#include "ops/conv_quantize_dequantize.h"
#include "ops/quantize_dequantize.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

bool IsConvFakeQuant(const Node& n) { return IsOp(n, kQrtConvQuantizeDequantizeOp); }

// One input and one output channel per group, 2-D, W's dims known.
bool IsDepthwise2d(const Graph& g, const Node& conv) {
  const Dims* w = WeightDims(g, conv.inputs[1]);
  auto group = conv.attrs.GetInt("group", 1);
  return w != nullptr && w->size() == 4 && (*w)[1] == 1 && group.ok() && *group == (*w)[0];
}

// A one-group or depthwise CQD not yet writing codes whose only step is the fake quantization (X, W,
// B, its scale and zero point; input_codes may follow): no clamp either.
bool IsWriter(const Graph& g, const Node& n) {
  return IsConvFakeQuant(n) && !n.attrs.Has(cqd::kOutputCodes) && !n.attrs.Has(cqd::kClampMin) &&
         !n.attrs.Has(cqd::kClampMax) && n.outputs.size() == 1 && InputOr(n, cqd::kScale).valid() &&
         !InputOr(n, cqd::kSlope).valid() && !InputOr(n, cqd::kScaleAfter).valid() &&
         !InputOr(n, cqd::kZeroPointAfter).valid() && (IsGroupOneConv(g, n) || IsDepthwise2d(g, n));
}

// A CQD not yet reading codes that could read them well, with X as input 0 and at most 8 inputs.
bool IsReader(const Graph& g, const Node& n) {
  return IsConvFakeQuant(n) && !n.attrs.Has(cqd::kInputCodes) && n.inputs.size() <= cqd::kCodesScale &&
         (IsGroupOneConv(g, n) || IsDepthwise2d(g, n));
}

// `reader` with X read as codes q with this scale and zero point.
Node ReadingCodes(const Node& reader, ValueId q, ValueId scale, ValueId zero_point) {
  Node n = reader;
  n.inputs[cqd::kX] = q;
  n.inputs.resize(cqd::kCodesScale);  // the epilogue's slots omitted where absent
  n.inputs.push_back(scale);
  if (zero_point.valid()) n.inputs.push_back(zero_point);
  n.attrs.Set(cqd::kInputCodes, int64_t(1));
  return n;
}

Node WritingCodes(const Node& writer, ValueId q) {
  Node n = writer;
  n.outputs = {q};
  n.attrs.Set(cqd::kOutputCodes, int64_t(1));
  return n;
}

DataType CodeType(const Graph& g, ValueId zero_point) {
  return zero_point.valid() ? g.value(zero_point).dtype : DataType::kUInt8;
}

// Whether `q` is a QuantizeLinear of `writer`'s own scale and zero point, per tensor.
bool QuantizesLike(const Node& q, const Node& writer) {
  return IsOp(q, kQuantizeLinearOp) && q.outputs.size() == 1 && !q.attrs.Has("output_dtype") && !q.attrs.Has("axis") &&
         q.inputs.size() >= 2 && q.inputs[1] == writer.inputs[cqd::kScale] &&
         InputOr(q, 2) == InputOr(writer, cqd::kZeroPoint);
}

// 1 and 2: a writer whose only reader is a reader, or a QuantizeLinear of its own scale.
StatusOr<Verdict> LinkWriter(Rewriter& rw, NodeId writer_id) {
  const Graph& g = rw.graph();
  const Node& writer = g.node(writer_id);
  if (!IsWriter(g, writer)) {
    return Refuse("not a one-group or depthwise fused convolution whose only step is the fake quantization");
  }
  if (!HasSingleUse(g, writer.outputs[0])) return Refuse("its output has other readers or is a graph output");
  const NodeId next_id = g.Consumers(writer.outputs[0])[0];
  const Node& next = g.node(next_id);
  const ValueId scale = writer.inputs[cqd::kScale], zero_point = InputOr(writer, cqd::kZeroPoint);
  std::vector<Node> rewritten;  // the writer, then the reader (rule 1; rule 2 drops the QuantizeLinear)
  if (QuantizesLike(next, writer)) {
    rewritten.push_back(WritingCodes(writer, next.outputs[0]));
  } else if (IsReader(g, next) && next.inputs[cqd::kX] == writer.outputs[0]) {
    const DataType type = CodeType(g, zero_point);
    if (!Is8Bit(type)) return Refuse("its fake quantization is not 8-bit");
    const ValueId q = rw.AddUniqueValue(g.value(writer.outputs[0]).name + "_codes", type);
    rewritten.push_back(WritingCodes(g.node(writer_id), q));
    rewritten.push_back(ReadingCodes(g.node(next_id), q, scale, zero_point));
  } else {
    return Refuse("its reader is neither a fused convolution that can read codes nor its own QuantizeLinear");
  }
  rw.EraseNode(next_id);
  rw.EraseNode(writer_id);
  for (Node& n : rewritten) rw.AddNode(std::move(n));
  return Rewrote();
}

// 4: a reader of a fake quantization (with one constant scale and zero point) that nothing else
// reads: the fake quantization becomes the QuantizeLinear it stands for.
StatusOr<Verdict> ReadFakeQuantizedCodes(Rewriter& rw, NodeId reader_id, NodeId fq_id) {
  const Graph& g = rw.graph();
  const Node& fq = g.node(fq_id);
  if (fq.inputs.size() < 2 || fq.outputs.size() != 1 || !IsConstScalar(g, fq.inputs[qdq::kScale])) {
    return Refuse("X's fake quantization is not per tensor with a constant scale");
  }
  const ValueId zero_point = InputOr(fq, qdq::kZeroPoint);
  if (zero_point.valid() && !IsConstScalar(g, zero_point)) return Refuse("X's zero point is not a constant scalar");
  const DataType type = CodeType(g, zero_point);
  if (!Is8Bit(type)) return Refuse("X's fake quantization is not 8-bit");
  if (!HasSingleUse(g, fq.outputs[0])) return Refuse("X's fake-quantized floats have other readers or are an output");
  const ValueId q = rw.AddUniqueValue(g.value(fq.outputs[0]).name + "_codes", type);
  std::vector<ValueId> q_inputs = {fq.inputs[qdq::kX], fq.inputs[qdq::kScale]};
  if (zero_point.valid()) q_inputs.push_back(zero_point);
  Node quantize = MakeNode(kQuantizeLinearOp, g.node(fq_id).name, q_inputs, {q});
  Node reads = ReadingCodes(g.node(reader_id), q, g.node(fq_id).inputs[qdq::kScale], zero_point);
  rw.EraseNode(reader_id);
  rw.EraseNode(fq_id);
  rw.AddNode(std::move(quantize));
  rw.AddNode(std::move(reads));
  return Rewrote();
}

// 3: readers of a DequantizeLinear with one constant scale and zero point (and 4, of a fake
// quantization).
StatusOr<Verdict> ReadDequantizeLinearCodes(Rewriter& rw, NodeId reader_id) {
  const Graph& g = rw.graph();
  const Node& reader = g.node(reader_id);
  if (reader.attrs.Has(cqd::kInputCodes)) return Refuse("it reads codes already");
  if (!IsReader(g, reader) || reader.inputs.empty()) return Refuse("not a one-group or depthwise fused convolution");
  const NodeId fq_id = ProducerIs(g, reader.inputs[cqd::kX], kQuantizeDequantizeOp);
  if (fq_id.valid()) return ReadFakeQuantizedCodes(rw, reader_id, fq_id);
  DqInfo dq;
  if (!MatchDq(g, reader.inputs[cqd::kX], &dq)) return Refuse("X is not made by a DequantizeLinear");
  if (!IsConstScalar(g, dq.scale) || (dq.zero_point.valid() && !IsConstScalar(g, dq.zero_point)) ||
      g.node(dq.node).attrs.Has("axis")) {
    return Refuse("X's DequantizeLinear is not per tensor with constants");
  }
  // The zero point's type, which DequantizeLinear requires the data's to be (without one, the
  // data's, where known: it may also be int32).
  if (!Is8Bit(DqDataType(g, dq))) return Refuse("X's codes are not 8-bit");
  Node reads = ReadingCodes(reader, dq.data, dq.scale, dq.zero_point);
  rw.EraseNode(reader_id);
  rw.AddNode(std::move(reads));
  return Rewrote();
}

}  // namespace

StatusOr<int> LinkConvCodes(Graph& g, Explanations* explain) {
  // Each rule to its fixed point (a rewritten node is a new one: the reader of one link may be
  // the writer of the next), writers and readers first.
  QRT_ASSIGN_OR_RETURN(int links,
                       RunPatterns(g, "link-conv-codes", {{"link-writer", &kQrtConvQuantizeDequantizeOp, LinkWriter}},
                                   explain, VisitOrder::kProducersFirst));
  QRT_ASSIGN_OR_RETURN(
      int reads, RunPatterns(g, "link-conv-codes",
                             {{"read-dequantized-codes", &kQrtConvQuantizeDequantizeOp, ReadDequantizeLinearCodes}},
                             explain, VisitOrder::kProducersFirst));
  return links + reads;
}

}  // namespace qrt
