// qrt:ConvQuantizeDequantize -> qrt:ConvQuantizeDequantize (depthwise), passing codes (link-conv-codes)
//
//   x --CQD(w, b, s, z)--> f --CQD_dw(w2, b2, ...)--> g
//     =>   x --CQD(w, b, s, z, output_codes=1)--> q --CQD_dw(w2, b2, ..., s, z, input_codes=1)--> g
//
// A fake quantization's output is DequantizeLinear(QuantizeLinear(v)): the producer writes the
// codes q and the consumer dequantizes them as it reads X, which gives it the same floats. What
// moves between the two is a byte per element instead of four: MobileNetV2's expansion
// convolutions write 1.2 MB instead of 4.8 MB at 112 x 112, which went out to L3 and came back
// for the depthwise convolution (ops/conv.cc has the attributes).
// Taken where the producer is a 1x1 convolution (its int8 path writes codes directly) whose only
// step is the fake quantization, and its output is read only by the depthwise convolution (one
// input and one output channel per group, 2-D: its padded rows read codes a row at a time), as
// X. Runs after fuse-conv-fake-quant.
#include <string>
#include <utility>
#include <vector>

#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {
namespace {

bool IsConvFakeQuant(const Node& n) {
  return !n.dead && n.domain == "qrt" && n.op_type == "ConvQuantizeDequantize" && !n.attrs.Has("input_codes") &&
         !n.attrs.Has("output_codes");
}

// One input and one output channel per group, 2-D, W's dims known.
bool IsDepthwise2d(const Graph& g, const Node& conv) {
  const Dims* w = WeightDims(g, conv.inputs[1]);
  auto group = conv.attrs.GetInt("group", 1);
  return w != nullptr && w->size() == 4 && (*w)[1] == 1 && group.ok() && *group == (*w)[0];
}

}  // namespace

StatusOr<int> LinkConvCodes(Graph& g) {
  const OpDef* def = FindOp("qrt", "ConvQuantizeDequantize");
  if (def == nullptr) return Internal("op qrt:ConvQuantizeDequantize is not registered");
  int rewrites = 0;
  QRT_ASSIGN_OR_RETURN(std::vector<NodeId> order, g.TopologicalOrder());
  for (NodeId producer_id : order) {
    const Node& producer = g.node(producer_id);
    // X, W, B, the fake quantization's scale and zero point: nothing after it.
    if (!IsConvFakeQuant(producer) || producer.inputs.size() < 4 || producer.inputs.size() > 5 ||
        !producer.inputs[3].valid() || producer.outputs.size() != 1 || !IsPointwise(g, producer)) {
      continue;
    }
    const ValueId f = producer.outputs[0];
    if (!HasSingleUse(g, f)) continue;
    const NodeId consumer_id = g.Consumers(f)[0];
    const Node& consumer = g.node(consumer_id);
    if (!IsConvFakeQuant(consumer) || consumer.inputs[0] != f || consumer.inputs.size() > 8 ||
        !IsDepthwise2d(g, consumer)) {
      continue;
    }
    const ValueId scale = producer.inputs[3], zero_point = InputOr(producer, 4);
    const DataType type = zero_point.valid() ? g.value(zero_point).dtype : DataType::kUInt8;
    if (type != DataType::kUInt8 && type != DataType::kInt8) continue;
    const ValueId q = g.AddUniqueValue(g.value(f).name + "_codes", type);

    Node writes = producer;
    writes.outputs = {q};
    writes.attrs.Set("output_codes", int64_t(1));
    Node reads = consumer;
    reads.inputs[0] = q;
    reads.inputs.resize(8);  // inputs 5-7 omitted where absent
    reads.inputs.insert(reads.inputs.end(), {scale, zero_point});
    if (!zero_point.valid()) reads.inputs.pop_back();
    reads.attrs.Set("input_codes", int64_t(1));
    g.EraseNode(consumer_id);
    g.EraseNode(producer_id);
    g.AddNode(std::move(writes));
    g.AddNode(std::move(reads));
    ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
