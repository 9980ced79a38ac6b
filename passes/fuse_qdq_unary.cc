// Q(f(DQ(x))) -> LookupTable(x, table)                          (fuse-qdq-unary)
//
//   x --DQ--> f --Q--> y      =>      x --LookupTable(table[256])--> y
//
// f is any region of element-wise float ops whose only non-constant source is that one
// DequantizeLinear: a single Sigmoid, or a chain, or a small DAG that reads the DQ's output
// more than once (the expanded Gelu x * 0.5 * (1 + Erf(x / sqrt2)), x * Sigmoid(x),
// HardSigmoid -> Mul, Softplus -> Tanh -> Mul). With per-tensor 8-bit quantization y depends
// only on the 256 codes of x, so the table is made now by running the unfused DQ -> f -> Q
// nodes themselves on every code: the fused op is exact by construction, whatever f is.
// Legality:
// - x is int8/uint8; DQ and Q have constant per-tensor scales and zero points (Q's 8-bit);
// - every node of f is an element-wise op of the list below with one output, and each of
//   its inputs is the DQ's output, another node of f, or a one-element constant (a larger
//   constant would make y depend on the position, not only on the code);
// - every output of f's nodes is read only inside f (the last only by this Q) and none is a
//   graph output, so erasing f loses nothing;
// - f has at most kMaxRegion nodes.
// A DQ read elsewhere stays for its other readers. The two-operand DQ(a) * DQ(b) chains are
// fuse-dq-mul-q's and fuse-dq-add-q's (two DQs, so never a region here).
#include <algorithm>
#include <unordered_set>

#include "ops/lookup_table.h"
#include "passes/evaluate.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

constexpr size_t kMaxRegion = 64;

// Element-wise ops whose output at an index depends only on their inputs at that index.
const OpDef* const kElementwiseOps[] = {
    &kSigmoidOp,
    &kTanhOp,
    &kReluOp,
    &kClipOp,
    &kLeakyReluOp,
    &kHardSigmoidOp,
    &kHardSwishOp,
    &kExpOp,
    &kLogOp,
    &kNegOp,
    &kAbsOp,
    &kSqrtOp,
    &kErfOp,
    &kSoftplusOp,
    &kSoftsignOp,
    &kEluOp,
    &kSeluOp,
    &kCeluOp,
    &kMishOp,
    &kGeluOp,
    &kReciprocalOp,
    &kFloorOp,
    &kCeilOp,
    &kRoundOp,
    &kSinOp,
    &kCosOp,
    &kTanOp,
    &kSignOp,
    &kThresholdedReluOp,
    &kShrinkOp,
    &kSinhOp,
    &kCoshOp,
    &kAsinOp,
    &kAcosOp,
    &kAtanOp,
    &kAsinhOp,
    &kAcoshOp,
    &kAtanhOp,
    &kAddOp,
    &kSubOp,
    &kMulOp,
    &kDivOp,
    &kPowOp,
    &kMaxOp,
    &kMinOp,
    &kSumOp,
    &kMeanOp,
    &kPReluOp,
    &kCastOp,
    &kIdentityOp,
    &kMsGeluOp,
    &kMsQuickGeluOp,
    &kQrtSiluOp,
};

bool IsElementwise(const Node& n) {
  return std::find(std::begin(kElementwiseOps), std::end(kElementwiseOps), n.def) != std::end(kElementwiseOps);
}

// The 8-bit dtype of a DQ's data, if the graph states it (zero point or declared dtype).
DataType DqDataType(const Graph& g, const Node& dq) {
  if (dq.inputs.size() > 2 && g.IsConstant(dq.inputs[2])) return g.ConstantOf(dq.inputs[2])->dtype();
  if (g.IsConstant(dq.inputs[0])) return g.ConstantOf(dq.inputs[0])->dtype();
  return g.value(dq.inputs[0]).dtype;
}

struct Region {
  NodeId dq;
  std::vector<NodeId> nodes;  // producers before consumers
};

// Collects the element-wise region that ends at `last` (the node feeding Q), or says why
// there is none.
std::string CollectRegion(const Graph& g, NodeId last, Region* region) {
  std::unordered_set<uint32_t> in_region;
  std::vector<NodeId> pending = {last};
  while (!pending.empty()) {
    const NodeId id = pending.back();
    pending.pop_back();
    if (!in_region.insert(id.index).second) continue;
    if (in_region.size() > kMaxRegion) return "the element-wise region has more than 64 nodes";
    const Node& n = g.node(id);
    if (!IsElementwise(n)) return StrCat("'", n.name, "' (", n.op_type, ") is not an element-wise op the pass covers");
    if (n.outputs.size() != 1) return StrCat("'", n.name, "' has more than one output");
    for (ValueId in : n.inputs) {
      if (!in.valid()) continue;
      if (g.IsConstant(in)) {
        if (!IsConstScalar(g, in)) return StrCat("'", n.name, "' reads a constant of more than one element");
        continue;
      }
      const NodeId p = g.value(in).producer;
      if (!p.valid()) return StrCat("'", n.name, "' reads a graph input");
      if (IsOp(g.node(p), kDequantizeLinearOp)) {
        if (region->dq.valid() && region->dq != p) return "the region reads more than one DequantizeLinear";
        region->dq = p;
        continue;
      }
      pending.push_back(p);
    }
  }
  if (!region->dq.valid()) return "the region reads no DequantizeLinear";
  // Every value the region makes is read only inside it (the last one only by the Q).
  for (uint32_t index : in_region) {
    const ValueId out = g.node(NodeId{index}).outputs[0];
    if (g.IsGraphOutput(out)) return "a value of the region is a graph output";
    if (NodeId{index} == last) continue;
    for (NodeId user : g.Consumers(out)) {
      if (!in_region.count(user.index)) return StrCat("'", g.node(NodeId{index}).name, "' is read outside the region");
    }
  }
  // Producers before consumers: a depth-first post-order from the last node.
  std::unordered_set<uint32_t> placed;
  std::vector<std::pair<NodeId, size_t>> stack = {{last, 0}};
  while (!stack.empty()) {
    auto& [id, next] = stack.back();
    const Node& n = g.node(id);
    if (next < n.inputs.size()) {
      const ValueId in = n.inputs[next++];
      const NodeId p = in.valid() ? g.value(in).producer : NodeId{};
      if (p.valid() && in_region.count(p.index) && !placed.count(p.index)) stack.push_back({p, 0});
      continue;
    }
    if (placed.insert(id.index).second) region->nodes.push_back(id);
    stack.pop_back();
  }
  return "";
}

StatusOr<Verdict> FuseChain(Rewriter& rw, NodeId q_id) {
  const Graph& g = rw.graph();
  const Node& q = g.node(q_id);
  if (q.inputs.size() < 2 || !IsConstScalar(g, q.inputs[1])) return Refuse("the scale is not one constant");
  const bool q_has_zp = q.inputs.size() > 2 && q.inputs[2].valid();
  if (q_has_zp && !(IsConstScalar(g, q.inputs[2]) && Is8Bit(g.ConstantOf(q.inputs[2])->dtype()))) {
    return Refuse("the zero point is not one constant 8-bit value");
  }
  if (!q_has_zp && q.attrs.Has("output_dtype")) return Refuse("no zero point, with output_dtype");
  const NodeId f_id = q.inputs[0].valid() ? g.value(q.inputs[0]).producer : NodeId{};
  if (!f_id.valid() || IsOp(g.node(f_id), kDequantizeLinearOp)) return Refuse("its input is not made by an op");
  if (!HasSingleUse(g, q.inputs[0])) return Refuse("its input has other readers");
  Region region;
  if (std::string why = CollectRegion(g, f_id, &region); !why.empty()) return Refuse(why);
  const Node& dq = g.node(region.dq);
  if (dq.inputs.size() < 2 || !dq.inputs[0].valid() || !IsConstScalar(g, dq.inputs[1])) {
    return Refuse("the DequantizeLinear's scale is not one constant");
  }
  if (dq.inputs.size() > 2 && dq.inputs[2].valid() && !IsConstScalar(g, dq.inputs[2])) {
    return Refuse("the DequantizeLinear's zero point is not one constant");
  }
  const DataType x_type = DqDataType(g, dq);
  if (!Is8Bit(x_type)) return Refuse("the DequantizeLinear's data is not 8-bit");
  // A one-element constant of rank 1 turns a rank-0 x into [1]; the table cannot.
  const std::optional<Shape>& x_shape = g.value(dq.inputs[0]).shape;
  for (NodeId id : region.nodes) {
    for (ValueId in : g.node(id).inputs) {
      if (in.valid() && g.IsConstant(in) && g.ConstantOf(in)->rank() == 1 && !(x_shape && !x_shape->empty())) {
        return Refuse("a constant of rank 1 may change the shape of an input of unknown rank");
      }
    }
  }

  // Every code, as its byte pattern: table[k] is the output for the code whose byte is k.
  Tensor codes = Tensor::Allocate(x_type, {256}).value();
  for (int k = 0; k < 256; ++k) static_cast<uint8_t*>(codes.raw())[k] = uint8_t(k);
  std::vector<NodeId> chain = {region.dq};
  chain.insert(chain.end(), region.nodes.begin(), region.nodes.end());
  chain.push_back(q_id);
  StatusOr<std::vector<Tensor>> table = EvaluateNodes(g, chain, {{dq.inputs[0], codes}}, {q.outputs[0]});
  // An invalid chain: compiling the graph reports why.
  if (!table.ok()) return Refuse(StrCat("the chain does not evaluate: ", table.status().message()));
  if ((*table)[0].numel() != 256) return Refuse("the chain does not keep the shape of its input");

  const std::string f_name = g.node(f_id).name;
  const ValueId x = dq.inputs[0], y = q.outputs[0], dq_out = dq.outputs[0];
  const NodeId dq_id = region.dq;
  const ValueId table_id = rw.AddConstant(f_name + "_table", std::move((*table)[0]));
  rw.EraseNode(q_id);
  for (NodeId id : region.nodes) rw.EraseNode(id);
  Node fused = MakeNode(kLookupTableOp, f_name, std::vector<ValueId>(lut::kInputCount), {y});
  fused.inputs[lut::kX] = x;
  fused.inputs[lut::kTable] = table_id;
  rw.AddNode(std::move(fused));
  if (g.Consumers(dq_out).empty() && !g.IsGraphOutput(dq_out)) rw.EraseNode(dq_id);
  return Rewrote();
}

}  // namespace

bool IsElementwiseRegionOp(const OpDef* def) {
  return std::find(std::begin(kElementwiseOps), std::end(kElementwiseOps), def) != std::end(kElementwiseOps);
}

StatusOr<int> FuseQdqUnary(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-qdq-unary", {{"dq-elementwise-q", &kQuantizeLinearOp, FuseChain}}, explain);
}

}  // namespace qrt
