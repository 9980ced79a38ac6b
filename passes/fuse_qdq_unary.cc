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
//   its inputs is the DQ's output, another node of f, a one-element constant, or a constant with
//   one value per channel of one axis of x (PRelu's slope [C, 1, 1] on NCHW): then y depends on
//   the code and the channel, and the table has a row of 256 per channel (LookupTable's axis),
//   made by running the chain on every code in every channel. Other constants would make y
//   depend on the position; x's rank and its size on that axis must be known, and every
//   per-channel constant must name the same axis and count;
// - a lone PRelu after a Conv's Q/DQ pair is left to fuse-conv-fake-quant, which takes all
//   three into the convolution;
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
constexpr int64_t kMaxChannels = 4096;  // a table of 1 MiB

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

// A value's rank and its size on one axis (counted from the last: 1 is the last), where the graph
// fixes them; -1 where it does not. Passes run before shapes are inferred, so this follows the
// ops CNNs put before a per-channel activation: convolutions (NCHW: their channel count is
// their weight's), ops that keep their input's shape, pools (they keep its channels) and
// broadcasting element-wise ops.
struct AxisSize {
  int64_t rank = -1, size = -1;
};

AxisSize AxisSizeOf(const Graph& g, ValueId v, int64_t from_end, int depth = 0) {
  if (!v.valid() || depth > 64) return {};
  if (const Tensor* t = g.ConstantOf(v)) {
    return {t->rank(), t->rank() >= from_end ? t->dims()[size_t(t->rank() - from_end)] : -1};
  }
  if (const std::optional<Shape>& shape = g.value(v).shape) {
    const int64_t rank = int64_t(shape->size());
    if (rank >= from_end && (*shape)[size_t(rank - from_end)].is_static()) {
      return {rank, (*shape)[size_t(rank - from_end)].value};
    }
  }
  const NodeId p = g.value(v).producer;
  if (!p.valid() || g.node(p).dead || g.node(p).outputs.empty() || g.node(p).outputs[0] != v) return {};
  const Node& n = g.node(p);
  const int weight = IsOp(n, kConvOp) || IsOp(n, kConvIntegerOp) ? 1 : (IsOp(n, kQLinearConvOp) ? 3 : -1);
  if (weight >= 0) {
    const Tensor* w = g.ConstantOf(InputOr(n, weight));
    if (w == nullptr || w->rank() < 3) return {};
    return {w->rank(), w->rank() - from_end == 1 ? w->dims()[0] : -1};
  }
  const bool keeps_shape = IsOp(n, kDequantizeLinearOp) || IsOp(n, kQuantizeLinearOp) || IsOp(n, kQLinearSigmoidOp) ||
                           IsOp(n, kQLinearLeakyReluOp) || IsOp(n, kBatchNormalizationOp);
  if (keeps_shape) return AxisSizeOf(g, InputOr(n, 0), from_end, depth + 1);
  if (IsOp(n, kMaxPoolOp) || IsOp(n, kAveragePoolOp)) {  // NCHW: the channels stay, the planes change
    AxisSize in = AxisSizeOf(g, InputOr(n, 0), from_end, depth + 1);
    if (in.rank - from_end != 1) in.size = -1;
    return in;
  }
  // Broadcasting element-wise ops (QLinearAdd/Mul: A at 0, B at 3): the largest rank, and on the
  // axis the one size other than 1, if every operand's is known.
  std::vector<ValueId> operands;
  if (IsOp(n, kQLinearAddOp) || IsOp(n, kQLinearMulOp)) {
    operands = {InputOr(n, 0), InputOr(n, 3)};
  } else if (IsElementwise(n)) {
    operands.assign(n.inputs.begin(), n.inputs.end());
  } else {
    return {};
  }
  AxisSize out{0, 1};
  for (ValueId in : operands) {
    if (!in.valid()) continue;
    const AxisSize a = AxisSizeOf(g, in, from_end, depth + 1);
    if (a.rank < 0) return {};
    out.rank = std::max(out.rank, a.rank);
    if (a.rank < from_end || a.size == 1) continue;
    if (a.size < 0 || (out.size != 1 && out.size != a.size)) return {out.rank, -1};
    out.size = a.size;
  }
  if (out.rank < from_end) out.size = -1;
  return out;
}

// Whether x is a QuantizeLinear's output whose input is a default-domain Conv's, the pair
// before a PRelu that fuse-conv-fake-quant fuses with the PRelu into the convolution.
bool PairAfterConv(const Graph& g, ValueId x) {
  const NodeId q = g.value(x).producer;
  if (!q.valid() || !IsOp(g.node(q), kQuantizeLinearOp)) return false;
  const ValueId y = InputOr(g.node(q), 0);
  const NodeId conv = y.valid() ? g.value(y).producer : NodeId{};
  return conv.valid() && IsOp(g.node(conv), kConvOp);
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
  // Set by a per-channel constant: its axis counted from the last (1: the last axis), and the
  // channel count; 0 and 1 when every constant has one element.
  int64_t axis_from_end = 0, channels = 1;
  int64_t constant_rank = 0;  // the largest rank of the region's constants
};

// A constant with one element per channel of one axis: every dim 1 but one.
bool PerChannelConstant(const Tensor& t, int64_t* axis_from_end, int64_t* channels) {
  int64_t found = -1;
  for (int64_t d = 0; d < t.rank(); ++d) {
    if (t.dims()[size_t(d)] == 1) continue;
    if (found >= 0) return false;
    found = d;
  }
  if (found < 0) return false;
  *axis_from_end = t.rank() - found;
  *channels = t.dims()[size_t(found)];
  return true;
}

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
        region->constant_rank = std::max(region->constant_rank, g.ConstantOf(in)->rank());
        if (IsConstScalar(g, in)) continue;
        int64_t axis_from_end = 0, channels = 1;
        if (!PerChannelConstant(*g.ConstantOf(in), &axis_from_end, &channels)) {
          return StrCat("'", n.name, "' reads a constant that is neither one element nor one per channel");
        }
        if (region->channels > 1 && (axis_from_end != region->axis_from_end || channels != region->channels)) {
          return StrCat("'", n.name, "' reads a per-channel constant of another axis or channel count");
        }
        region->axis_from_end = axis_from_end, region->channels = channels;
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

  if (region.nodes.size() == 1 && IsOp(g.node(region.nodes[0]), kPReluOp) && PairAfterConv(g, dq.inputs[0])) {
    return Refuse("a PRelu after a convolution's Q/DQ pair: fuse-conv-fake-quant takes it into the convolution");
  }
  // The channel axis of x that per-channel constants name.
  int64_t axis = -1;
  int64_t x_rank = -1;
  if (region.channels > 1) {
    const AxisSize at = AxisSizeOf(g, dq.inputs[0], region.axis_from_end);
    if (at.rank < 0) return Refuse("a per-channel constant on an input of unknown rank");
    if (at.rank < 2) return Refuse("a per-channel constant on an input of rank 1");
    x_rank = at.rank;
    axis = x_rank - region.axis_from_end;
    if (region.constant_rank > x_rank) return Refuse("a constant of higher rank than the input");
    if (at.size != region.channels) {
      return Refuse(StrCat("a constant with ", region.channels, " channels on an axis of ",
                           at.size < 0 ? std::string("unknown size") : StrCat("size ", at.size)));
    }
    if (region.channels > kMaxChannels) return Refuse(StrCat("more than ", kMaxChannels, " channels"));
  }

  // Every code, as its byte pattern, in every channel: the chain's input is all ones but the
  // channel axis (C) and a neighbouring one (256 codes), so constants broadcast as they do on x;
  // table[c][k] is the output for the code whose byte is k in channel c.
  const int64_t channels = region.channels;
  Dims code_dims = {256};
  int64_t channel_stride = 0, code_stride = 1;  // in the chain's input and output
  if (axis >= 0) {
    const int64_t rank = x_rank, code_axis = axis + 1 < rank ? axis + 1 : axis - 1;
    code_dims.assign(size_t(rank), 1);
    code_dims[size_t(axis)] = channels;
    code_dims[size_t(code_axis)] = 256;
    channel_stride = code_axis > axis ? 256 : 1;
    code_stride = code_axis > axis ? 1 : channels;
  }
  Tensor codes = Tensor::Allocate(x_type, code_dims).value();
  for (int64_t c = 0; c < channels; ++c) {
    for (int k = 0; k < 256; ++k) static_cast<uint8_t*>(codes.raw())[c * channel_stride + k * code_stride] = uint8_t(k);
  }
  std::vector<NodeId> chain = {region.dq};
  chain.insert(chain.end(), region.nodes.begin(), region.nodes.end());
  chain.push_back(q_id);
  StatusOr<std::vector<Tensor>> out = EvaluateNodes(g, chain, {{dq.inputs[0], codes}}, {q.outputs[0]});
  // An invalid chain: compiling the graph reports why.
  if (!out.ok()) return Refuse(StrCat("the chain does not evaluate: ", out.status().message()));
  if ((*out)[0].dims() != code_dims) return Refuse("the chain does not keep the shape of its input");
  Tensor table = std::move((*out)[0]);
  if (axis >= 0) {  // rows of 256 per channel
    Tensor rows = Tensor::Allocate(table.dtype(), {channels, 256}).value();
    const auto* from = static_cast<const uint8_t*>(table.raw());
    auto* to = static_cast<uint8_t*>(rows.raw());
    for (int64_t c = 0; c < channels; ++c) {
      for (int k = 0; k < 256; ++k) to[c * 256 + k] = from[c * channel_stride + k * code_stride];
    }
    table = std::move(rows);
  }

  const std::string f_name = g.node(f_id).name;
  const ValueId x = dq.inputs[0], y = q.outputs[0], dq_out = dq.outputs[0];
  const NodeId dq_id = region.dq;
  const ValueId table_id = rw.AddConstant(f_name + "_table", std::move(table));
  rw.EraseNode(q_id);
  for (NodeId id : region.nodes) rw.EraseNode(id);
  Attributes attrs;
  if (axis >= 0) attrs.Set("axis", axis);
  Node fused = MakeNode(kLookupTableOp, f_name, std::vector<ValueId>(lut::kInputCount), {y}, std::move(attrs));
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
