// Runs 2-D convolutions channels-last and keeps activations channels-last between
// them, so oneDNN needs no NCHW <-> NHWC reorder around each convolution.  (nhwc-layout)
//
//   1. Conv(x, W, B) -> Transpose[0,3,1,2](qrt:NhwcConv(Transpose[0,2,3,1](x), W, B))
//   2. A to-NCHW Transpose is sunk below the element-wise ops that read it:
//        f(Transpose(x))                 -> Transpose(f(x))       (Relu, Q, DQ, LookupTable, ...)
//        Transpose(a) + Transpose(b)     -> Transpose(a + b)      (also QuantizedAdd/Mul, ...)
//        Transpose(a) + scalar           -> Transpose(a + scalar)
//        Concat(Transpose(a), ..., axis) -> Transpose(Concat(a, ..., axis'))
//   3. Transpose[0,2,3,1](Transpose[0,3,1,2](x)) -> x.
//
// Exact: transposes move values, the element-wise ops see the same operand pairs, and
// NhwcConv runs the same oneDNN primitive as Conv (only the reorders at its edges go), or
// the reference convolution on an NCHW copy. Only per-tensor parameters and scalar or
// same-layout operands move, so no broadcast changes meaning.
#include <algorithm>
#include <deque>

#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {
namespace {

const std::vector<int64_t> kToNhwc{0, 2, 3, 1};
const std::vector<int64_t> kToNchw{0, 3, 1, 2};

// Unary element-wise ops (input 0 is the data, every other input must be per tensor).
constexpr std::string_view kUnary[] = {"Relu",  "Sigmoid", "Tanh",      "Clip",        "LeakyRelu", "HardSigmoid",
                                       "Exp",   "Neg",     "Abs",       "Sqrt",        "Identity",  "Cast",
                                       "HardSwish", "QuantizeLinear", "DequantizeLinear"};
constexpr std::string_view kBinary[] = {"Add", "Sub", "Mul", "Div", "PRelu"};

// Which inputs of `n` carry the data (laid out like the output); empty if `n` is not an
// op the transpose may move through.
std::vector<size_t> DataInputs(const Node& n) {
  auto in = [&](auto& list) { return std::find(std::begin(list), std::end(list), n.op_type) != std::end(list); };
  if (n.domain.empty() && in(kUnary)) return {0};
  if (n.domain.empty() && in(kBinary)) return {0, 1};
  if (n.domain.empty() && n.op_type == "Split") return {0};
  if (n.domain.empty() && n.op_type == "Concat") {
    std::vector<size_t> all(n.inputs.size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    return all;
  }
  if (n.domain == "qrt" && (n.op_type == "LookupTable" || n.op_type == "QuantizeDequantize")) return {0};
  const bool quantized_binary = (n.domain == "qrt" && (n.op_type == "QuantizedAdd" || n.op_type == "QuantizedMul")) ||
                                (n.domain == "com.microsoft" && (n.op_type == "QLinearAdd" || n.op_type == "QLinearMul"));
  if (quantized_binary) return {0, 3};
  return {};
}

// The value `t` holds if it is the output of a live Transpose with permutation `perm`.
ValueId TransposeSource(const Graph& g, ValueId t, const std::vector<int64_t>& perm) {
  if (!t.valid()) return ValueId{};
  const NodeId p = g.value(t).producer;
  if (!p.valid()) return ValueId{};
  const Node& n = g.node(p);
  if (n.dead || !n.domain.empty() || n.op_type != "Transpose") return ValueId{};
  StatusOr<std::vector<int64_t>> got = n.attrs.GetInts("perm");
  return got.ok() && *got == perm ? n.inputs[0] : ValueId{};
}

// For a constant operand of a per-channel shape ([C,1,1], [1,C,1,1]: every dim 1 but
// the one aligned with NCHW's C), the same values as a [C] constant, which broadcasts
// along NHWC's last dim; a one-element constant as it is. Else an invalid id.
ValueId NhwcConstant(Graph& g, ValueId v) {
  const Tensor* t = g.ConstantOf(v);
  if (t == nullptr || t->rank() > 4) return ValueId{};
  if (t->numel() == 1) return v;
  const Dims& d = t->dims();
  for (size_t k = 0; k < d.size(); ++k) {
    const bool channel_dim = k + 4 - d.size() == 1;
    if (!channel_dim && d[k] != 1) return ValueId{};
  }
  if (d.size() < 3) return ValueId{};  // [C] or [1,C] would broadcast along W, not C
  const ValueId c = g.AddUniqueValue(g.value(v).name + "_nhwc", t->dtype());
  g.value(c).constant = t->Reshaped({t->numel()});
  g.value(c).shape = ShapeFromDims({t->numel()});
  return c;
}

// Adds y = Transpose(x, perm); y is a fresh value named after `name` if not given.
NodeId AddTranspose(Graph& g, ValueId x, const std::vector<int64_t>& perm, const std::string& name,
                    ValueId y = ValueId{}) {
  Node t;
  t.name = name;
  t.op_type = "Transpose";
  t.opset = g.opsets.count("") ? g.opsets.at("") : 13;
  t.def = FindOp("", "Transpose");
  t.attrs.Set("perm", perm);
  t.inputs = {x};
  t.outputs = {y.valid() ? y : g.AddUniqueValue(name, g.value(x).dtype)};
  return g.AddNode(std::move(t));
}

// Rewrites `n` (reading at least one to-NCHW transpose among its data inputs) to work
// on the NHWC sources and transposes its outputs back. Returns the new transposes, or
// nothing if `n` cannot move.
std::vector<NodeId> SinkThrough(Graph& g, NodeId id) {
  const Node& n = g.node(id);
  const bool split = n.domain.empty() && n.op_type == "Split";
  if (n.outputs.empty() || (n.outputs.size() != 1 && !split)) return {};
  for (ValueId o : n.outputs) {
    if (!o.valid()) return {};
  }
  const std::vector<size_t> data = DataInputs(n);
  if (data.empty()) return {};
  std::vector<ValueId> inputs = n.inputs;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const bool is_data = std::find(data.begin(), data.end(), k) != data.end();
    if (!inputs[k].valid()) continue;
    if (!is_data) {
      // Parameters must not depend on the layout: per-tensor constants, the table, or
      // Split's sizes.
      const Tensor* p = g.ConstantOf(inputs[k]);
      const bool any_size = split || (n.domain == "qrt" && n.op_type == "LookupTable");
      if (p == nullptr || (p->numel() != 1 && !any_size)) return {};
      continue;
    }
    const ValueId src = TransposeSource(g, inputs[k], kToNchw);
    if (src.valid()) {
      inputs[k] = src;
      continue;
    }
    // A non-transposed operand: a scalar or per-channel constant can follow; anything
    // else has an unknown layout, and the node stays.
    const ValueId c = n.op_type == "Concat" ? ValueId{} : NhwcConstant(g, inputs[k]);
    if (!c.valid()) return {};
    inputs[k] = c;
  }
  Node moved = n;
  moved.inputs = inputs;
  if (n.op_type == "Concat" || split) {
    StatusOr<int64_t> axis = n.attrs.GetInt("axis", split ? std::optional<int64_t>(0) : std::nullopt);
    if (!axis.ok() || *axis < -4 || *axis > 3) return {};
    moved.attrs.Set("axis", kToNchw[size_t((*axis + 4) % 4)]);
  }
  if (n.domain.empty() && (n.op_type == "QuantizeLinear" || n.op_type == "DequantizeLinear")) {
    if (n.attrs.Has("block_size")) return {};
    moved.attrs.Erase("axis");  // per tensor: the axis means nothing
  }
  const std::vector<ValueId> outs = n.outputs;
  moved.outputs.clear();
  for (ValueId out : outs) moved.outputs.push_back(g.AddUniqueValue(g.value(out).name + "_nhwc", g.value(out).dtype));
  moved.name = n.name + "_nhwc";
  const std::vector<ValueId> nhwc_outs = moved.outputs;
  g.EraseNode(id);
  g.AddNode(std::move(moved));
  // The original outputs keep their names, so graph outputs and later readers see no change.
  std::vector<NodeId> backs;
  for (size_t k = 0; k < outs.size(); ++k) {
    backs.push_back(AddTranspose(g, nhwc_outs[k], kToNchw, g.value(outs[k]).name + "_to_nchw", outs[k]));
  }
  return backs;
}

// Transposes that still run: live, and read by a node or a graph output.
int LiveTransposes(const Graph& g) {
  int n = 0;
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    const Node& t = g.node(NodeId{i});
    if (t.dead || !t.domain.empty() || t.op_type != "Transpose") continue;
    n += !g.Consumers(t.outputs[0]).empty() || g.IsGraphOutput(t.outputs[0]);
  }
  return n;
}

}  // namespace

StatusOr<int> LayoutNhwc(Graph& g) {
  const OpDef* conv_def = FindOp("qrt", "NhwcConv");
  if (conv_def == nullptr) return Internal("op qrt:NhwcConv is not registered");
  const Graph before = g;  // kept in case the layout change does not pay
  const int transposes_before = LiveTransposes(g);
  int rewrites = 0;
  std::deque<NodeId> to_nchw;  // transposes to sink
  const size_t n_nodes = g.num_nodes();
  for (uint32_t i = 0; i < n_nodes; ++i) {
    const Node& c = g.node(NodeId{i});
    if (c.dead || !c.domain.empty() || c.op_type != "Conv" || c.inputs.size() < 2 || !c.inputs[0].valid() ||
        c.outputs.size() != 1 || !c.outputs[0].valid()) {
      continue;
    }
    // 2-D only: W's rank, known when W is a constant or a DequantizeLinear of one.
    ValueId w = c.inputs[1];
    const NodeId w_dq = ProducerIs(g, w, "DequantizeLinear");
    if (w_dq.valid()) w = g.node(w_dq).inputs[0];
    const Tensor* wt = g.ConstantOf(w);
    if (wt == nullptr || wt->rank() != 4 || c.attrs.Has("qrt_path")) continue;

    Node nc = c;  // a copy: adding nodes below may move `c`
    nc.domain = "qrt";
    nc.op_type = "NhwcConv";
    nc.opset = 1;
    nc.def = conv_def;
    const NodeId to_nhwc = AddTranspose(g, nc.inputs[0], kToNhwc, nc.name + "_x_nhwc");
    nc.inputs[0] = g.node(to_nhwc).outputs[0];
    const ValueId y = nc.outputs[0];
    const ValueId y_nhwc = g.AddUniqueValue(g.value(y).name + "_nhwc", g.value(y).dtype);
    nc.outputs = {y_nhwc};
    g.EraseNode(NodeId{i});
    g.AddNode(std::move(nc));
    to_nchw.push_back(AddTranspose(g, y_nhwc, kToNchw, g.value(y).name + "_to_nchw", y));
    if (!g.opsets.count("qrt")) g.opsets["qrt"] = 1;
    ++rewrites;
  }

  // Sink each to-NCHW transpose as far as it goes; cancel it against to-NHWC ones.
  while (!to_nchw.empty()) {
    const NodeId t = to_nchw.front();
    to_nchw.pop_front();
    if (g.node(t).dead) continue;
    const ValueId nchw = g.node(t).outputs[0];
    const ValueId nhwc = g.node(t).inputs[0];
    for (NodeId user : g.Consumers(nchw)) {
      if (g.node(user).dead) continue;
      const Node& u = g.node(user);
      const bool inverse = u.domain.empty() && u.op_type == "Transpose" && u.attrs.GetInts("perm").ok() &&
                           *u.attrs.GetInts("perm") == kToNhwc;
      if (inverse && !g.IsGraphOutput(u.outputs[0])) {
        g.ReplaceAllUses(u.outputs[0], nhwc);  // Transpose[0,2,3,1](Transpose[0,3,1,2](x)) = x
        g.EraseNode(user);
        continue;
      }
      for (NodeId back : SinkThrough(g, user)) to_nchw.push_back(back);
    }
  }
  // Each converted convolution saves two oneDNN reorders; each transpose left costs about
  // one. Those at the graph's inputs and outputs are the price of any layout change; where
  // ops the transposes cannot pass (pools, resizes, reshapes) leave many more, the NCHW
  // graph is faster: keep it. A lone convolution trades its two reorders for two
  // transposes, which gains nothing.
  const int edges = int(g.inputs.size() + g.outputs.size());
  if (rewrites < 2 || LiveTransposes(g) - transposes_before > rewrites / 2 + edges) {
    g = before;
    return 0;
  }
  return rewrites;
}

}  // namespace qrt
