// Matching a user pattern at an anchor: a backtracking search from the output node towards the
// inputs, in the order the parser fixed (every node after all its readers, so each node is bound
// through a reader before it is visited). Commutative nodes try their operands in both orders.
// Variables bind on first use and must see the same value at every other use. Nothing here
// mutates the graph; a failure returns the reason of the branch that got furthest.
#include <algorithm>
#include <cmath>

#include "ops/ops.h"
#include "passes/match_util.h"
#include "passes/user_pattern_spec.h"

namespace qrt {
namespace {

std::string OpText(const Node& n) { return n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type; }
std::string OpText(const OpDef* d) {
  return d->domain.empty() ? std::string(d->op_type) : StrCat(d->domain, ":", d->op_type);
}

bool AttrEquals(const AttrValue& got, const AttrValue& want) {
  auto as_doubles = [](const AttrValue& v, std::vector<double>* out) {
    if (const int64_t* i = std::get_if<int64_t>(&v)) return out->push_back(double(*i)), true;
    if (const float* f = std::get_if<float>(&v)) return out->push_back(double(*f)), true;
    if (const auto* is = std::get_if<std::vector<int64_t>>(&v)) {
      for (int64_t i : *is) out->push_back(double(i));
      return true;
    }
    if (const auto* fs = std::get_if<std::vector<float>>(&v)) {
      for (float f : *fs) out->push_back(double(f));
      return true;
    }
    return false;
  };
  std::vector<double> a, b;
  if (as_doubles(got, &a) && as_doubles(want, &b)) {
    const bool got_list = TypeOf(got) == AttrType::kInts || TypeOf(got) == AttrType::kFloats;
    const bool want_list = TypeOf(want) == AttrType::kInts || TypeOf(want) == AttrType::kFloats;
    // A float attribute equals the literal rounded to float, as the loader stores it.
    for (size_t i = 0; i < b.size(); ++i)
      b[i] = TypeOf(got) == AttrType::kFloat || TypeOf(got) == AttrType::kFloats ? double(float(b[i])) : b[i];
    return got_list == want_list && a == b;
  }
  if (const auto* s = std::get_if<std::string>(&got)) {
    const auto* w = std::get_if<std::string>(&want);
    return w != nullptr && *s == *w;
  }
  if (const auto* s = std::get_if<std::vector<std::string>>(&got)) {
    const auto* w = std::get_if<std::vector<std::string>>(&want);
    return w != nullptr && *s == *w;
  }
  return false;
}

std::string AttrText(const AttrValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return StrCat(*i);
  if (const float* f = std::get_if<float>(&v)) return StrCat(*f);
  if (const std::string* s = std::get_if<std::string>(&v)) return StrCat("'", *s, "'");
  return "a list";
}

constexpr int64_t kMaxSearchSteps = 1 << 14;

class Matcher {
 public:
  Matcher(const Graph& g, const UserPattern& p) : g_(g), p_(p) {}

  std::string Run(NodeId anchor, PatternMatch* out) {
    State s;
    s.m.nodes.assign(p_.nodes.size(), NodeId{});
    s.m.vars.assign(p_.vars.size(), ValueId{});
    s.var_bound.assign(p_.vars.size(), false);
    s.m.nodes[size_t(p_.output)] = anchor;
    if (Step(s, 0, out)) return "";
    return reason_.empty() ? "no match" : reason_;
  }

 private:
  struct State {
    PatternMatch m;
    std::vector<bool> var_bound;
  };

  bool Fail(int depth, std::string why) {
    if (depth >= depth_) {
      depth_ = depth;
      reason_ = std::move(why);
    }
    return false;
  }

  std::string Label(int pn) const { return StrCat("'", p_.nodes[size_t(pn)].id, "'"); }

  // Why `v` breaks `c`, or "".
  std::string CheckConstraint(ValueId v, const ValueConstraint& c, const std::string& what) const {
    const Tensor* t = g_.ConstantOf(v);
    if (c.constant >= 0 && (c.constant == 1) != (t != nullptr)) {
      return StrCat(what, c.constant == 1 ? " is not a constant" : " is a constant");
    }
    if (c.graph_input >= 0) {
      const bool is_input = std::find(g_.inputs.begin(), g_.inputs.end(), v) != g_.inputs.end();
      if ((c.graph_input == 1) != is_input) {
        return StrCat(what, c.graph_input == 1 ? " is not a graph input" : " is a graph input");
      }
    }
    if (!c.dtypes.empty()) {
      const DataType dt = KnownDtype(g_, v);
      if (dt == DataType::kUndefined) return StrCat("the dtype of ", what, " is not known before planning");
      if (std::find(c.dtypes.begin(), c.dtypes.end(), dt) == c.dtypes.end()) {
        std::string allowed;
        for (DataType d : c.dtypes) allowed += (allowed.empty() ? "" : " or ") + std::string(DataTypeName(d));
        return StrCat(what, " is ", DataTypeName(dt), ", not ", allowed);
      }
    }
    if (c.scalar) {
      bool one = false;
      if (t != nullptr) {
        one = t->numel() == 1 && t->rank() <= 1;
      } else if (const std::optional<Shape>& s = g_.value(v).shape) {
        std::optional<Dims> d = StaticDims(*s);
        one = d && d->size() <= 1 && ElementCount(*d) == 1;
      }
      if (!one) return StrCat(what, " is not known to hold one element (shape [] or [1])");
    }
    if (c.scale && !IsUsableScale(g_, v)) {
      return StrCat(what, " is not a constant float32 scale, non-zero and at most 1e30 in magnitude");
    }
    if (c.value) {
      if (t == nullptr || t->numel() != 1) return StrCat(what, " is not a one-element constant");
      const double got = t->GetAsDouble(0);
      if (!(std::fabs(got - *c.value) <= c.tolerance)) {
        return StrCat(what, " is ", got, ", not ", *c.value, " (tolerance ", c.tolerance, ")");
      }
    }
    return "";
  }

  bool BindVar(State& s, const PatternRef& r, ValueId v, int depth, const std::string& where) {
    const VarSpec& var = p_.vars[size_t(r.index)];
    if (!v.valid() && !r.optional) return Fail(depth, StrCat(where, " is omitted, where $", var.name, " is required"));
    if (s.var_bound[size_t(r.index)]) {
      const ValueId had = s.m.vars[size_t(r.index)];
      if (had == v) return true;
      return Fail(depth,
                  StrCat("$", var.name, " would be both ", had.valid() ? "'" + g_.value(had).name + "'" : "omitted",
                         " and ", v.valid() ? "'" + g_.value(v).name + "'" : "omitted"));
    }
    if (v.valid()) {
      std::string why = CheckConstraint(v, var.constraint, StrCat("$", var.name, " ('", g_.value(v).name, "')"));
      if (!why.empty()) return Fail(depth, std::move(why));
    }
    s.var_bound[size_t(r.index)] = true;
    s.m.vars[size_t(r.index)] = v;
    return true;
  }

  bool BindNode(State& s, const PatternRef& r, ValueId v, int depth, const std::string& where) {
    const MatchNodeSpec& spec = p_.nodes[size_t(r.index)];
    if (!v.valid()) return Fail(depth, StrCat(where, " is omitted, where ", Label(r.index), " is expected"));
    const NodeId id = g_.value(v).producer;
    if (!id.valid() || g_.node(id).dead) {
      return Fail(depth, StrCat(where, " ('", g_.value(v).name, "') is not made by a node, where ", Label(r.index),
                                " (", OpText(spec.def), ") is expected"));
    }
    const Node& n = g_.node(id);
    if (size_t(r.output) >= n.outputs.size() || n.outputs[size_t(r.output)] != v) {
      return Fail(depth, StrCat(where, " is not output ", r.output, " of its node"));
    }
    NodeId& slot = s.m.nodes[size_t(r.index)];
    if (slot.valid()) {
      if (slot == id) return true;
      return Fail(depth, StrCat(Label(r.index), " would be two nodes ('", g_.node(slot).name, "' and '", n.name, "')"));
    }
    if (n.def != spec.def) {
      return Fail(depth, StrCat(where, " is made by ", OpText(n), " '", n.name, "', not ", OpText(spec.def), " (",
                                Label(r.index), ")"));
    }
    for (size_t i = 0; i < s.m.nodes.size(); ++i) {
      if (s.m.nodes[i] == id) {
        return Fail(depth, StrCat("'", n.name, "' would be both ", Label(int(i)), " and ", Label(r.index)));
      }
    }
    slot = id;
    return true;
  }

  // The node's checks once it is bound: attributes, output constraints and inputs.
  bool Step(const State& s, size_t k, PatternMatch* out) {
    // Two operand orders per commutative node make the search exponential in the worst case
    // (a symmetric tree of Adds): past the budget the anchor is refused, not searched for hours.
    if (++steps_ > kMaxSearchSteps) {
      return Fail(1 << 30, StrCat("the match search took more than ", kMaxSearchSteps, " steps at this node"));
    }
    if (k == p_.order.size()) return Finish(s, out);
    const int pn = p_.order[k];
    const MatchNodeSpec& spec = p_.nodes[size_t(pn)];
    const NodeId id = s.m.nodes[size_t(pn)];
    const Node& n = g_.node(id);
    const int depth = int(k) * 256;
    for (const auto& [name, want] : spec.attrs) {
      const AttrValue* got = n.attrs.Find(name);
      if (!want) {
        if (got != nullptr) return Fail(depth, StrCat(Label(pn), " ('", n.name, "') has attribute '", name, "'"));
        continue;
      }
      if (got == nullptr) return Fail(depth, StrCat(Label(pn), " ('", n.name, "') has no attribute '", name, "'"));
      if (!AttrEquals(*got, *want)) {
        return Fail(depth, StrCat(Label(pn), " ('", n.name, "'): attribute '", name, "' is ", AttrText(*got), ", not ",
                                  AttrText(*want)));
      }
    }
    for (const auto& [o, c] : spec.output_constraints) {
      const ValueId v = size_t(o) < n.outputs.size() ? n.outputs[size_t(o)] : ValueId{};
      if (!v.valid()) return Fail(depth, StrCat(Label(pn), " has no output ", o));
      std::string why = CheckConstraint(v, c, StrCat("the output ", o, " of ", Label(pn)));
      if (!why.empty()) return Fail(depth, std::move(why));
    }
    std::vector<ValueId> ins(n.inputs.begin(), n.inputs.end() - ptrdiff_t(NumImplicitInputs(n)));
    while (!ins.empty() && !ins.back().valid()) ins.pop_back();
    size_t required = spec.inputs.size();
    while (required > 0 &&
           (spec.inputs[required - 1].kind == PatternRef::Kind::kAbsent ||
            (spec.inputs[required - 1].kind == PatternRef::Kind::kVar && spec.inputs[required - 1].optional))) {
      --required;
    }
    if (ins.size() < required || ins.size() > spec.inputs.size()) {
      return Fail(depth, StrCat(Label(pn), " ('", n.name, "') has ", ins.size(), " inputs; the pattern gives it ",
                                required == spec.inputs.size() ? StrCat(required)
                                                               : StrCat(required, " to ", spec.inputs.size())));
    }
    std::vector<std::vector<size_t>> orders = {{0, 1}};
    if (spec.commutative) orders.push_back({1, 0});
    for (const std::vector<size_t>& order : orders) {
      State t = s;
      bool ok = true;
      for (size_t i = 0; i < spec.inputs.size() && ok; ++i) {
        const PatternRef& r = spec.inputs[i];
        const size_t slot = spec.commutative ? order[i] : i;
        const ValueId v = slot < ins.size() ? ins[slot] : ValueId{};
        const std::string where = StrCat("input ", slot, " of ", Label(pn), " ('", n.name, "')");
        const int d = depth + 1 + int(i);
        switch (r.kind) {
          case PatternRef::Kind::kAbsent:
            if (v.valid()) ok = Fail(d, StrCat(where, " is given, where the pattern omits it"));
            break;
          case PatternRef::Kind::kVar:
            ok = BindVar(t, r, v, d, where);
            break;
          case PatternRef::Kind::kNode:
            ok = BindNode(t, r, v, d, where);
            break;
          case PatternRef::Kind::kConstant:
            ok = false;
            break;
        }
      }
      if (ok && Step(t, k + 1, out)) return true;
    }
    return false;
  }

  // Legality: what the rewrite erases is read only inside the match and is no graph output.
  bool Finish(const State& s, PatternMatch* out) {
    const int depth = int(p_.order.size()) * 256;
    const Node& last = g_.node(s.m.nodes[size_t(p_.output)]);
    if (last.outputs.empty() || !last.outputs[0].valid()) return Fail(depth, "the output node has no output 0");
    for (size_t pn = 0; pn < p_.nodes.size(); ++pn) {
      if (p_.nodes[pn].shared) continue;
      const Node& n = g_.node(s.m.nodes[pn]);
      for (size_t o = 0; o < n.outputs.size(); ++o) {
        const ValueId v = n.outputs[o];
        if (!v.valid() || (int(pn) == p_.output && o == 0)) continue;
        if (g_.IsGraphOutput(v)) {
          return Fail(depth, StrCat("'", g_.value(v).name, "' (of ", Label(int(pn)), ") is a graph output"));
        }
        for (NodeId user : g_.Consumers(v)) {
          if (std::find(s.m.nodes.begin(), s.m.nodes.end(), user) == s.m.nodes.end()) {
            return Fail(depth, StrCat("'", g_.value(v).name, "' (of ", Label(int(pn)),
                                      ") is read outside the match, by '", g_.node(user).name, "'"));
          }
        }
      }
    }
    *out = s.m;
    return true;
  }

  const Graph& g_;
  const UserPattern& p_;
  int depth_ = -1;
  int64_t steps_ = 0;
  std::string reason_;
};

}  // namespace

DataType KnownDtype(const Graph& g, ValueId v) {
  if (!v.valid()) return DataType::kUndefined;
  const DataType implied = ImpliedDtype(g, v);
  if (implied != DataType::kUndefined) return implied;
  const NodeId p = g.value(v).producer;
  if (p.valid() && IsOp(g.node(p), kQuantizeLinearOp)) {
    const Node& q = g.node(p);
    if (const Tensor* zp = g.ConstantOf(InputOr(q, 2))) return zp->dtype();
    if (const AttrValue* a = q.attrs.Find("output_dtype")) {
      const int64_t* code = std::get_if<int64_t>(a);
      return code != nullptr ? DataTypeFromOnnx(int(*code)).value_or(DataType::kUndefined) : DataType::kUndefined;
    }
    return InputOr(q, 2).valid() ? DataType::kUndefined : DataType::kUInt8;
  }
  for (NodeId user : g.Consumers(v)) {
    const Node& dq = g.node(user);
    if (IsOp(dq, kDequantizeLinearOp) && dq.inputs[0] == v) {
      if (const Tensor* zp = g.ConstantOf(InputOr(dq, 2))) return zp->dtype();
    }
  }
  return DataType::kUndefined;
}

std::string MatchUserPattern(const Graph& g, const UserPattern& p, NodeId anchor, PatternMatch* m) {
  return Matcher(g, p).Run(anchor, m);
}

}  // namespace qrt
