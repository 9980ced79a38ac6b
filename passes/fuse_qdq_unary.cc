// Q(f(DQ(x))) -> LookupTable(x, table)                          (fuse-qdq-unary)
//
//   x --DQ--> f --Q--> y      =>      x --LookupTable(table[256])--> y
//
// For an element-wise unary float op f and per-tensor 8-bit quantization, y depends only
// on the 256 possible codes of x. The table is made now by running the unfused DQ -> f ->
// Q chain itself on every code, so the fused op is exact by construction. Legality:
// x is int8/uint8; DQ and Q have constant per-tensor scales and zero points; f's other
// inputs (Clip's bounds) are constants; f's output is read only by this Q and is not a
// graph output. A DQ read elsewhere stays for its other readers.
#include <algorithm>

#include "ops/registry.h"
#include "passes/evaluate.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {
namespace {

constexpr std::string_view kUnaryOps[] = {"Sigmoid", "Tanh", "Relu", "Clip", "LeakyRelu", "HardSigmoid",
                                          "Exp", "Neg", "Abs", "Sqrt"};

bool IsUnary(const Node& n) {
  return n.domain.empty() && std::find(std::begin(kUnaryOps), std::end(kUnaryOps), n.op_type) != std::end(kUnaryOps);
}

// The 8-bit dtype of a DQ's data, if the graph states it (zero point or declared dtype).
DataType DqDataType(const Graph& g, const Node& dq) {
  if (dq.inputs.size() > 2 && g.IsConstant(dq.inputs[2])) return g.ConstantOf(dq.inputs[2])->dtype();
  if (g.IsConstant(dq.inputs[0])) return g.ConstantOf(dq.inputs[0])->dtype();
  return g.value(dq.inputs[0]).dtype;
}

}  // namespace

StatusOr<int> FuseQdqUnary(Graph& g) {
  const OpDef* def = FindOp("qrt", "LookupTable");
  if (def == nullptr) return Internal("op qrt:LookupTable is not registered");
  int rewrites = 0;
  const size_t n_nodes = g.num_nodes();
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& q = g.node(NodeId{i});
    if (q.dead || !q.domain.empty() || q.op_type != "QuantizeLinear" || q.inputs.size() < 2) continue;
    if (!IsConstScalar(g, q.inputs[1])) continue;
    const bool q_has_zp = q.inputs.size() > 2 && q.inputs[2].valid();
    if (q_has_zp && !(IsConstScalar(g, q.inputs[2]) && Is8Bit(g.ConstantOf(q.inputs[2])->dtype()))) continue;
    if (!q_has_zp && q.attrs.Has("output_dtype")) continue;
    NodeId f_id = q.inputs[0].valid() ? g.value(q.inputs[0]).producer : NodeId{};
    if (!f_id.valid() || !IsUnary(g.node(f_id)) || !HasSingleUse(g, q.inputs[0])) continue;
    const Node& f = g.node(f_id);
    bool others_const = true;
    for (size_t k = 1; k < f.inputs.size(); ++k) others_const &= !f.inputs[k].valid() || g.IsConstant(f.inputs[k]);
    if (!others_const || f.inputs.empty()) continue;
    NodeId dq_id = ProducerIs(g, f.inputs[0], "DequantizeLinear");
    if (!dq_id.valid()) continue;
    const Node& dq = g.node(dq_id);
    if (dq.inputs.size() < 2 || !dq.inputs[0].valid() || !IsConstScalar(g, dq.inputs[1])) continue;
    if (dq.inputs.size() > 2 && dq.inputs[2].valid() && !IsConstScalar(g, dq.inputs[2])) continue;
    const DataType x_type = DqDataType(g, dq);
    if (!Is8Bit(x_type)) continue;

    // Every code, as its byte pattern: table[k] is the output for the code whose byte is k.
    Tensor codes = Tensor::Allocate(x_type, {256}).value();
    for (int k = 0; k < 256; ++k) static_cast<uint8_t*>(codes.raw())[k] = uint8_t(k);
    StatusOr<std::vector<Tensor>> table =
        EvaluateNodes(g, {dq_id, f_id, NodeId{i}}, {{dq.inputs[0], codes}}, {q.outputs[0]});
    if (!table.ok()) continue;  // the chain is invalid; compiling the graph reports why

    const ValueId table_id = g.AddUniqueValue(f.name + "_table", (*table)[0].dtype());
    g.value(table_id).shape = ShapeFromDims({256});
    g.value(table_id).constant = std::move((*table)[0]);
    Node lut = MakeNode(def, f.name, {dq.inputs[0], table_id}, {q.outputs[0]});
    const ValueId dq_out = f.inputs[0];
    g.EraseNode(NodeId{i});
    g.EraseNode(f_id);
    g.AddNode(std::move(lut));
    if (g.Consumers(dq_out).empty() && !g.IsGraphOutput(dq_out)) g.EraseNode(dq_id);
    ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
