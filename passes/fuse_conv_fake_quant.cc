// Conv -> qrt:QuantizeDequantize  =>  qrt:ConvQuantizeDequantize       (fuse-conv-fake-quant)
//
//   x --Conv(w, b)--> y --QuantizeDequantize(s, z)--> f   =>   x --ConvQuantizeDequantize(w, b, s, z)--> f
//
// In a QDQ graph most float convolutions feed a Q/DQ pair, which fuse-q-dq has made one
// QuantizeDequantize. Fused into the convolution, the fake quantization runs on each block of
// outputs as soon as it is final, while it is still in cache, instead of as a second pass over
// the whole tensor; the map and the floats it maps are the same, so the result is bit-identical.
// Legality: a default-domain Conv whose output is read only by this QuantizeDequantize and is
// not a graph output. The fused op checks dtypes, scale and zero point as the pair would (a
// pair that would not compile does not compile fused either). Runs after fuse-q-dq.
#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {

StatusOr<int> FuseConvFakeQuant(Graph& g) {
  const OpDef* def = FindOp("qrt", "ConvQuantizeDequantize");
  if (def == nullptr) return Internal("op qrt:ConvQuantizeDequantize is not registered");
  int rewrites = 0;
  const size_t n_nodes = g.num_nodes();
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& fq = g.node(NodeId{i});
    if (fq.dead || fq.domain != "qrt" || fq.op_type != "QuantizeDequantize") continue;
    if (fq.inputs.size() < 2 || fq.outputs.size() != 1 || !fq.outputs[0].valid()) continue;
    const NodeId conv_id = ProducerIs(g, fq.inputs[0], "Conv");
    if (!conv_id.valid() || !HasSingleUse(g, fq.inputs[0])) continue;
    const Node& conv = g.node(conv_id);
    if (conv.outputs.size() != 1 || conv.inputs.size() < 2 || conv.inputs.size() > 3) continue;

    Node fused;
    fused.name = conv.name;
    fused.domain = "qrt";
    fused.op_type = "ConvQuantizeDequantize";
    fused.opset = 1;
    fused.def = def;
    fused.attrs = conv.attrs;
    fused.inputs = {conv.inputs[0], conv.inputs[1], conv.inputs.size() > 2 ? conv.inputs[2] : ValueId{}};
    fused.inputs.insert(fused.inputs.end(), fq.inputs.begin() + 1, fq.inputs.end());
    fused.outputs = {fq.outputs[0]};
    g.EraseNode(NodeId{i});
    g.EraseNode(conv_id);
    g.AddNode(std::move(fused));
    ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
