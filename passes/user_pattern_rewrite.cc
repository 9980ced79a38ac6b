// Applying a matched user pattern. Two kinds of replacement:
//
//   lookup_table:  x --[matched element-wise region, per-tensor 8-bit Q/DQ]--> y
//                  =>  x --qrt:LookupTable(table[256])--> y
//     the table is made by running the matched nodes themselves on all 256 codes, as
//     fuse-qdq-unary does, so it is exact by construction;
//   nodes (or one op): the matched nodes are erased and the replacement's nodes, wired from the
//     match's variables and literal constants, write the matched output value itself.
//
// Before anything changes, the matched nodes and the replacement are both prepared (each op's own
// prepare, on the inputs' dtypes and shapes as far as the graph knows them): a replacement that
// would give the output another dtype, or another shape where the shapes are known, is an error
// naming the pattern, never a silently different graph.
#include <algorithm>
#include <map>

#include "ops/lookup_table.h"
#include "ops/ops.h"
#include "passes/evaluate.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/user_pattern_spec.h"
#include "passes/user_patterns.h"

namespace qrt {
namespace {

std::string Quote(const Graph& g, ValueId v) { return StrCat("'", g.value(v).name, "'"); }

// Why the matched nodes cannot become one lookup table, or "".
std::string TableRefusal(const Graph& g, const UserPattern& p, const PatternMatch& m, ValueId x) {
  const DataType x_type = KnownDtype(g, x);
  if (!Is8Bit(x_type)) {
    return x_type == DataType::kUndefined
               ? StrCat("the dtype of the input ", Quote(g, x), " is not known")
               : StrCat("the input ", Quote(g, x), " is ", DataTypeName(x_type), ", not 8-bit");
  }
  if (g.IsConstant(x)) return "the input is a constant";
  const std::optional<Shape>& x_shape = g.value(x).shape;
  for (size_t pn = 0; pn < p.nodes.size(); ++pn) {
    const Node& n = g.node(m.nodes[pn]);
    const std::string label = StrCat("'", p.nodes[pn].id, "' ('", n.name, "')");
    const bool quantizer = n.def == &kQuantizeLinearOp || n.def == &kDequantizeLinearOp;
    if (quantizer) {
      if (!IsConstScalar(g, InputOr(n, 1)) || (InputOr(n, 2).valid() && !IsConstScalar(g, InputOr(n, 2))) ||
          n.attrs.Has("block_size")) {
        return StrCat(label,
                      " is not quantized per tensor by constants (a lookup table needs one scale and zero point)");
      }
    } else if (!IsElementwiseRegionOp(n.def)) {
      return StrCat(label, " (", n.op_type, ") is not an element-wise op a lookup table can hold");
    }
    for (ValueId in : n.inputs) {
      if (!in.valid() || in == x) continue;
      const NodeId prod = g.value(in).producer;
      if (prod.valid() && std::find(m.nodes.begin(), m.nodes.end(), prod) != m.nodes.end()) continue;
      if (!g.IsConstant(in)) {
        return StrCat(label, " reads ", Quote(g, in), ", which is neither the input nor a constant");
      }
      if (!IsConstScalar(g, in)) return StrCat(label, " reads a constant of more than one element");
      // A one-element constant of rank 1 turns a rank-0 x into [1]; the table cannot.
      if (g.ConstantOf(in)->rank() == 1 && !(x_shape && !x_shape->empty())) {
        return "a constant of rank 1 may change the shape of an input of unknown rank";
      }
    }
  }
  return "";
}

// The match's nodes, producers first.
std::vector<NodeId> ProducersFirst(const UserPattern& p, const PatternMatch& m) {
  std::vector<NodeId> nodes;
  for (auto it = p.order.rbegin(); it != p.order.rend(); ++it) nodes.push_back(m.nodes[size_t(*it)]);
  return nodes;
}

// Erases the match's nodes but the shared ones (`shared` false), or the shared ones nothing reads
// any more (`shared` true: readers first, so a chain of them goes at once).
void EraseMatch(Rewriter& rw, const UserPattern& p, const PatternMatch& m, bool shared) {
  const Graph& g = rw.graph();
  for (const int index : p.order) {
    const size_t pn = size_t(index);
    if (p.nodes[pn].shared != shared) continue;
    const Node& n = g.node(m.nodes[pn]);
    if (n.dead) continue;
    bool read = false;
    for (ValueId v : n.outputs) read |= v.valid() && (g.IsGraphOutput(v) || !g.Consumers(v).empty());
    if (!shared || !read) rw.EraseNode(m.nodes[pn]);
  }
}

StatusOr<Verdict> ApplyTable(const UserPattern& p, Rewriter& rw, NodeId anchor, const PatternMatch& m) {
  const Graph& g = rw.graph();
  const ValueId x = m.vars[size_t(p.table_input)];
  if (!x.valid()) return Refuse("the table's input is omitted");
  if (std::string why = TableRefusal(g, p, m, x); !why.empty()) return Refuse(why);
  const ValueId y = g.node(anchor).outputs[0];
  Tensor codes = Tensor::Allocate(KnownDtype(g, x), {256}).value();
  for (int k = 0; k < 256; ++k) static_cast<uint8_t*>(codes.raw())[k] = uint8_t(k);
  StatusOr<std::vector<Tensor>> table = EvaluateNodes(g, ProducersFirst(p, m), {{x, codes}}, {y});
  if (!table.ok()) return Refuse(StrCat("the matched nodes do not evaluate: ", table.status().message()));
  if ((*table)[0].numel() != 256) return Refuse("the matched nodes do not keep the shape of their input");
  if (!Is8Bit((*table)[0].dtype())) {
    return Refuse(StrCat("the match's output is ", DataTypeName((*table)[0].dtype()), ", not 8-bit"));
  }
  const std::string name = g.node(anchor).name;
  const ValueId table_id = rw.AddConstant(name + "_table", std::move((*table)[0]));
  EraseMatch(rw, p, m, false);
  Node lut = MakeNode(kLookupTableOp, name, std::vector<ValueId>(lut::kInputCount), {y});
  lut.inputs[lut::kX] = x;
  lut.inputs[lut::kTable] = table_id;
  rw.AddNode(std::move(lut));
  EraseMatch(rw, p, m, true);
  return Rewrote();
}

// A value's dtype and dims for the type check; `known` false where the dims are a stand-in.
struct Info {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  const Tensor* value = nullptr;
  bool known = true;
};

std::string DimsText(const Dims& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

// The graph's knowledge of `v`; a value of unknown dtype takes `assumed`, of unknown shape [1].
Info GraphInfo(const Graph& g, ValueId v, DataType assumed, bool* assumed_any) {
  Info info;
  if (const Tensor* t = g.ConstantOf(v)) {
    info.dtype = t->dtype();
    info.dims = t->dims();
    info.value = t;
    return info;
  }
  info.dtype = KnownDtype(g, v);
  if (info.dtype == DataType::kUndefined) {
    info.dtype = assumed;
    *assumed_any = true;
  }
  const std::optional<Shape>& s = g.value(v).shape;
  std::optional<Dims> d = s ? StaticDims(*s) : std::nullopt;
  if (d) {
    info.dims = *d;
  } else {
    info.dims = {1};
    info.known = false;
  }
  return info;
}

// Runs one op's prepare on `inputs` (nullopt: omitted) and returns its outputs' infos.
StatusOr<std::vector<Info>> Prepare(const OpDef* def, const std::string& domain, int64_t opset, const Attributes& attrs,
                                    const std::vector<std::optional<Info>>& inputs, const std::vector<bool>& outputs) {
  Node n;
  n.name = "pattern-check";
  n.domain = domain;
  n.op_type = std::string(def->op_type);
  n.opset = opset;
  n.def = def;
  n.attrs = attrs;
  std::vector<TensorInfo> infos;
  bool known = true;
  for (const std::optional<Info>& in : inputs) {
    n.inputs.push_back(in ? ValueId{0} : ValueId{});
    TensorInfo t;
    if (in) {
      t.dtype = in->dtype;
      t.dims = in->dims;
      t.value = in->value;
      known &= in->known;
    }
    infos.push_back(std::move(t));
  }
  for (bool o : outputs) n.outputs.push_back(o ? ValueId{0} : ValueId{});
  PlanOptions options;
  options.isa = Isa::kScalar;
  PrepareContext ctx(n, std::move(infos), options);
  QRT_RETURN_IF_ERROR(def->prepare(ctx));
  std::vector<Info> out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    out[i].dtype = ctx.output(int(i)).dtype;
    out[i].dims = ctx.output(int(i)).dims;
    out[i].known = known;
  }
  return out;
}

int64_t OpsetFor(const Graph& g, const OpDef* def, const Node& anchor) {
  if (def->domain == "qrt") return 1;
  auto it = g.opsets.find(std::string(def->domain));
  if (it != g.opsets.end()) return it->second;
  return anchor.domain == def->domain ? anchor.opset : 1;
}

// The replacement's attributes, reading the variables' constants.
StatusOr<std::vector<Attributes>> ReplaceAttrs(const Graph& g, const UserPattern& p, const PatternMatch& m,
                                               std::string* refusal) {
  std::vector<Attributes> out(p.replace.size());
  for (size_t i = 0; i < p.replace.size(); ++i) {
    for (const ReplaceAttr& a : p.replace[i].attrs) {
      if (a.literal) {
        out[i].Set(a.name, *a.literal);
        continue;
      }
      const ValueId v = m.vars[size_t(a.var)];
      const Tensor* t = g.ConstantOf(v);
      const std::string what =
          StrCat("attribute '", a.name, "' of '", p.replace[i].id, "' reads $", p.vars[size_t(a.var)].name);
      if (t == nullptr || t->rank() > 1 || t->numel() == 0) {
        *refusal = StrCat(what, ", which is not a constant scalar or list");
        return out;
      }
      const bool is_float = IsFloatType(t->dtype());
      if (!is_float && !IsIntegerType(t->dtype()) && t->dtype() != DataType::kBool) {
        *refusal = StrCat(what, ", a constant of dtype ", DataTypeName(t->dtype()));
        return out;
      }
      if (t->numel() == 1) {  // a number; a longer 1-D constant gives a list
        out[i].Set(a.name, is_float ? AttrValue(float(t->GetAsDouble(0))) : AttrValue(t->GetAsInt64(0)));
      } else if (is_float) {
        std::vector<float> f;
        for (int64_t k = 0; k < t->numel(); ++k) f.push_back(float(t->GetAsDouble(k)));
        out[i].Set(a.name, AttrValue(std::move(f)));
      } else {
        std::vector<int64_t> n;
        for (int64_t k = 0; k < t->numel(); ++k) n.push_back(t->GetAsInt64(k));
        out[i].Set(a.name, AttrValue(std::move(n)));
      }
    }
  }
  return out;
}

StatusOr<Verdict> ApplyNodes(const UserPattern& p, Rewriter& rw, NodeId anchor, const PatternMatch& m) {
  const Graph& g = rw.graph();
  const Node& last = g.node(anchor);
  const ValueId out = last.outputs[0];
  std::string refusal;
  QRT_ASSIGN_OR_RETURN(std::vector<Attributes> attrs, ReplaceAttrs(g, p, m, &refusal));
  if (!refusal.empty()) return Refuse(refusal);
  if (p.replace_output.kind == PatternRef::Kind::kVar) {
    if (!m.vars[size_t(p.replace_output.index)].valid()) return Refuse("the replacement's output variable is omitted");
    if (g.IsGraphOutput(out)) {
      return Refuse("the output is a graph output and the replacement gives an existing value (end it with a node)");
    }
  }

  // The type check: the matched nodes, then the replacement, on the same stand-ins.
  bool assumed = false;
  std::map<uint32_t, Info> known;  // values the matched nodes make
  auto info_of = [&](ValueId v) -> Info {
    auto it = known.find(v.index);
    return it != known.end() ? it->second : GraphInfo(g, v, DataType::kFloat32, &assumed);
  };
  for (NodeId id : ProducersFirst(p, m)) {
    const Node& n = g.node(id);
    std::vector<std::optional<Info>> ins;
    for (ValueId v : n.inputs) ins.push_back(v.valid() ? std::optional<Info>(info_of(v)) : std::nullopt);
    std::vector<bool> outs;
    for (ValueId v : n.outputs) outs.push_back(v.valid());
    StatusOr<std::vector<Info>> r = Prepare(n.def, n.domain, n.opset, n.attrs, ins, outs);
    if (!r.ok()) {
      return Refuse(StrCat(
          "cannot check that the replacement keeps the output's dtype: the matched '", n.name, "' does not prepare",
          assumed ? " (some dtypes or shapes are not known before planning)" : "", ": ", r.status().message()));
    }
    for (size_t o = 0; o < n.outputs.size(); ++o) {
      if (n.outputs[o].valid()) known[n.outputs[o].index] = (*r)[o];
    }
  }
  const Info matched = known.at(out.index);
  std::vector<std::vector<Info>> made(p.replace.size());
  std::vector<Info> const_infos;
  for (const Tensor& t : p.constants) const_infos.push_back(Info{t.dtype(), t.dims(), &t, true});
  auto resolve_info = [&](const PatternRef& r) -> std::optional<Info> {
    switch (r.kind) {
      case PatternRef::Kind::kAbsent:
        return std::nullopt;
      case PatternRef::Kind::kVar: {
        const ValueId v = m.vars[size_t(r.index)];
        return v.valid() ? std::optional<Info>(info_of(v)) : std::nullopt;
      }
      case PatternRef::Kind::kConstant:
        return const_infos[size_t(r.index)];
      case PatternRef::Kind::kNode:
        if (r.match_node) return info_of(g.node(m.nodes[size_t(r.index)]).outputs[size_t(r.output)]);
        return made[size_t(r.index)][size_t(r.output)];
    }
    return std::nullopt;
  };
  for (size_t i = 0; i < p.replace.size(); ++i) {
    const ReplaceNodeSpec& spec = p.replace[i];
    std::vector<std::optional<Info>> ins;
    for (const PatternRef& r : spec.inputs) ins.push_back(resolve_info(r));
    StatusOr<std::vector<Info>> r = Prepare(spec.def, std::string(spec.def->domain), OpsetFor(g, spec.def, last),
                                            attrs[i], ins, std::vector<bool>(size_t(spec.num_outputs), true));
    if (!r.ok()) return Refuse(StrCat("replacement node '", spec.id, "' does not prepare: ", r.status().message()));
    made[i] = std::move(r).value();
  }
  const std::optional<Info> replaced = resolve_info(p.replace_output);
  if (!replaced) return Refuse("the replacement's output is omitted");
  // Under a stand-in dtype the disagreement may not be real: refuse rather than fail the compile.
  if (assumed && replaced->dtype != matched.dtype) {
    return Refuse(
        StrCat("cannot check that the replacement keeps the output's dtype: some input's dtype is not known "
               "before planning, and with float32 it would make ",
               DataTypeName(replaced->dtype), " where the match makes ", DataTypeName(matched.dtype)));
  }
  if (replaced->dtype != matched.dtype) {
    return InvalidArgument(p.Where(), ": at '", last.name, "': the replacement makes ", DataTypeName(replaced->dtype),
                           " where the match makes ", DataTypeName(matched.dtype), ": it would change the dtype of ",
                           Quote(g, out));
  }
  if (replaced->known && matched.known && replaced->dims != matched.dims) {
    return InvalidArgument(p.Where(), ": at '", last.name, "': the replacement makes shape ", DimsText(replaced->dims),
                           " where the match makes ", DimsText(matched.dims), ": it would change the shape of ",
                           Quote(g, out));
  }

  // The rewrite.
  std::vector<ValueId> constants;
  for (size_t i = 0; i < p.constants.size(); ++i) {
    constants.push_back(rw.AddConstant(StrCat(last.name, "_", p.name, "_const"), p.constants[i]));
  }
  std::vector<std::vector<ValueId>> outputs(p.replace.size());
  const std::string name = last.name;
  const Node anchor_copy = last;
  auto value_of = [&](const PatternRef& r) -> ValueId {
    switch (r.kind) {
      case PatternRef::Kind::kAbsent:
        return ValueId{};
      case PatternRef::Kind::kVar:
        return m.vars[size_t(r.index)];
      case PatternRef::Kind::kConstant:
        return constants[size_t(r.index)];
      case PatternRef::Kind::kNode:
        if (r.match_node) return g.node(m.nodes[size_t(r.index)]).outputs[size_t(r.output)];
        return outputs[size_t(r.index)][size_t(r.output)];
    }
    return ValueId{};
  };
  EraseMatch(rw, p, m, false);
  for (size_t i = 0; i < p.replace.size(); ++i) {
    const ReplaceNodeSpec& spec = p.replace[i];
    const bool is_output_node = p.replace_output.kind == PatternRef::Kind::kNode && !p.replace_output.match_node &&
                                p.replace_output.index == int(i);
    for (int o = 0; o < spec.num_outputs; ++o) {
      outputs[i].push_back(
          is_output_node && p.replace_output.output == o
              ? out
              : rw.AddUniqueValue(StrCat(name, "_", spec.id, o ? StrCat("_", o) : ""), DataType::kUndefined));
    }
    std::vector<ValueId> ins;
    for (const PatternRef& r : spec.inputs) ins.push_back(value_of(r));
    Node n = MakeNode(*spec.def, is_output_node ? name : StrCat(name, "/", spec.id), std::move(ins), outputs[i],
                      std::move(attrs[i]));
    n.opset = OpsetFor(g, spec.def, anchor_copy);
    rw.AddNode(std::move(n));
  }
  if (p.replace_output.kind == PatternRef::Kind::kVar) rw.ReplaceAllUses(out, m.vars[size_t(p.replace_output.index)]);
  EraseMatch(rw, p, m, true);
  return Rewrote();
}

}  // namespace

StatusOr<Verdict> ApplyUserPattern(const UserPattern& p, Rewriter& rw, NodeId anchor) {
  PatternMatch m;
  if (std::string why = MatchUserPattern(rw.graph(), p, anchor, &m); !why.empty()) return Refuse(why);
  return p.kind == UserPattern::Kind::kLookupTable ? ApplyTable(p, rw, anchor, m) : ApplyNodes(p, rw, anchor, m);
}

StatusOr<int> UserPatternSet::Run(size_t i, Graph& graph, Explanations* explain) const {
  std::shared_ptr<const UserPattern> p = patterns_.at(i);
  Pattern pattern{p->name, p->nodes[size_t(p->output)].def,
                  [p](Rewriter& rw, NodeId anchor) { return ApplyUserPattern(*p, rw, anchor); }};
  return RunPatterns(graph, p->name, {pattern}, explain);
}

}  // namespace qrt
