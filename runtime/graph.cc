#include "runtime/graph.h"

#include <algorithm>

namespace qrt {

namespace {
constexpr std::pair<DeclaredKind, const char*> kKindNames[] = {{DeclaredKind::kTensor, "tensor"},
                                                               {DeclaredKind::kSequence, "sequence"},
                                                               {DeclaredKind::kOptionalTensor, "optional"},
                                                               {DeclaredKind::kOptionalSequence, "optional_sequence"}};
}  // namespace

const char* DeclaredKindName(DeclaredKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<DeclaredKind> DeclaredKindFromName(const std::string& name) {
  for (const auto& [k, n] : kKindNames) {
    if (name == n) return k;
  }
  return std::nullopt;
}

std::optional<Dims> StaticDims(const Shape& shape) {
  Dims d;
  d.reserve(shape.size());
  for (const Dim& x : shape) {
    if (!x.is_static()) return std::nullopt;
    d.push_back(x.value);
  }
  return d;
}

Shape ShapeFromDims(const Dims& dims) {
  Shape s;
  s.reserve(dims.size());
  for (int64_t d : dims) s.push_back(Dim::Static(d));
  return s;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += shape[i].is_static() ? std::to_string(shape[i].value) : (shape[i].symbol.empty() ? "?" : shape[i].symbol);
  }
  return s + "]";
}

std::vector<std::string> ImplicitInputNames(const Node& node) {
  std::vector<std::string> names;
  for (const auto& [attr_name, attr] : node.attrs.all()) {
    if (TypeOf(attr) != AttrType::kGraph) continue;
    const std::shared_ptr<Graph>& g = std::get<std::shared_ptr<Graph>>(attr);
    if (g == nullptr) continue;
    for (ValueId c : g->captures) {
      const std::string& name = g->value(c).name;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

size_t NumImplicitInputs(const Node& node) {
  bool has_graph = false;
  for (const auto& entry : node.attrs.all()) has_graph |= TypeOf(entry.second) == AttrType::kGraph;
  return has_graph ? ImplicitInputNames(node).size() : 0;
}

StatusOr<ValueId> Graph::AddValue(Value v) {
  if (!v.name.empty() && by_name_.count(v.name)) {
    return InvalidArgument("value '", v.name, "' is defined more than once");
  }
  ValueId id{uint32_t(values_.size())};
  if (!v.name.empty()) by_name_[v.name] = id.index;
  values_.push_back(std::move(v));
  return id;
}

ValueId Graph::AddUniqueValue(const std::string& base, DataType dtype) {
  std::string name = base;
  for (int i = 1; by_name_.count(name); ++i) name = base + "_" + std::to_string(i);
  Value v;
  v.name = name;
  v.dtype = dtype;
  return AddValue(std::move(v)).value();
}

NodeId Graph::AddNode(Node n) {
  NodeId id{uint32_t(nodes_.size())};
  for (ValueId out : n.outputs) {
    if (out.valid() && !values_[out.index].producer.valid()) values_[out.index].producer = id;
  }
  nodes_.push_back(std::move(n));
  return id;
}

ValueId Graph::FindValue(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? ValueId{} : ValueId{it->second};
}

size_t Graph::num_live_nodes() const {
  return size_t(std::count_if(nodes_.begin(), nodes_.end(), [](const Node& n) { return !n.dead; }));
}

std::vector<NodeId> Graph::Consumers(ValueId v) const {
  std::vector<NodeId> out;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.dead) continue;
    if (std::find(n.inputs.begin(), n.inputs.end(), v) != n.inputs.end()) out.push_back(NodeId{i});
  }
  return out;
}

bool Graph::IsGraphOutput(ValueId v) const { return std::find(outputs.begin(), outputs.end(), v) != outputs.end(); }

void Graph::EraseNode(NodeId id) {
  Node& n = nodes_[id.index];
  n.dead = true;
  for (ValueId out : n.outputs) {
    if (out.valid() && values_[out.index].producer == id) values_[out.index].producer = NodeId{};
  }
}

void Graph::ReplaceAllUses(ValueId from, ValueId to) {
  for (Node& n : nodes_) {
    if (n.dead) continue;
    for (ValueId& in : n.inputs) {
      if (in == from) in = to;
    }
  }
}

void Graph::Compact() {
  std::vector<char> used(values_.size(), 0);
  for (ValueId v : inputs) used[v.index] = 1;
  for (ValueId v : outputs) used[v.index] = 1;
  for (ValueId v : captures) used[v.index] = 1;
  for (const Node& n : nodes_) {
    if (n.dead) continue;
    for (ValueId v : n.inputs)
      if (v.valid()) used[v.index] = 1;
    for (ValueId v : n.outputs)
      if (v.valid()) used[v.index] = 1;
  }
  // Nothing erased and every value in use (a pass that rewrote nothing): keep everything,
  // the name index included (rebuilding it was most of a pass over a 10^6-node graph).
  if (num_live_nodes() == nodes_.size() && std::all_of(used.begin(), used.end(), [](char u) { return u != 0; })) {
    return;
  }
  std::vector<uint32_t> value_map(values_.size(), ValueId::kInvalid);
  std::vector<Value> values;
  for (uint32_t i = 0; i < values_.size(); ++i) {
    if (!used[i]) continue;
    value_map[i] = uint32_t(values.size());
    values.push_back(std::move(values_[i]));
  }
  std::vector<uint32_t> node_map(nodes_.size(), NodeId::kInvalid);
  std::vector<Node> nodes;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].dead) continue;
    node_map[i] = uint32_t(nodes.size());
    nodes.push_back(std::move(nodes_[i]));
  }
  auto remap_value = [&](ValueId& v) {
    if (v.valid()) v.index = value_map[v.index];
  };
  for (Node& n : nodes) {
    for (ValueId& v : n.inputs) remap_value(v);
    for (ValueId& v : n.outputs) remap_value(v);
  }
  for (ValueId& v : inputs) remap_value(v);
  for (ValueId& v : outputs) remap_value(v);
  for (ValueId& v : captures) remap_value(v);
  for (Value& v : values) {
    if (v.producer.valid()) v.producer.index = node_map[v.producer.index];
  }
  values_ = std::move(values);
  nodes_ = std::move(nodes);
  by_name_.clear();
  by_name_.reserve(values_.size());
  for (uint32_t i = 0; i < values_.size(); ++i) {
    if (!values_[i].name.empty()) by_name_[values_[i].name] = i;
  }
}

Status Graph::Validate() const {
  std::vector<int> defined(values_.size(), 0);
  for (ValueId v : inputs) {
    if (!v.valid() || v.index >= values_.size()) return Internal("graph input handle out of range");
    if (values_[v.index].constant) {
      return InvalidArgument("graph input '", values_[v.index].name, "' is also an initializer");
    }
    ++defined[v.index];
  }
  for (uint32_t i = 0; i < values_.size(); ++i) {
    if (values_[i].constant) ++defined[i];
  }
  for (ValueId v : captures) ++defined[v.index];
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.dead) continue;
    for (ValueId v : n.outputs) {
      if (!v.valid()) continue;
      if (++defined[v.index] > 1) {
        return NodeError(NodeId{i},
                         InvalidArgument("output '", values_[v.index].name, "' is already defined elsewhere"));
      }
    }
  }
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const Node& n = nodes_[i];
    if (n.dead) continue;
    for (ValueId v : n.inputs) {
      if (v.valid() && defined[v.index] == 0) {
        return NodeError(NodeId{i}, InvalidArgument("input '", values_[v.index].name,
                                                    "' is not defined by any node, input or initializer"));
      }
    }
  }
  for (ValueId v : outputs) {
    if (!v.valid() || defined[v.index] == 0) {
      return InvalidArgument("graph output '", v.valid() ? values_[v.index].name : "",
                             "' is not produced by any node, input or initializer");
    }
  }
  return TopologicalOrder().status();
}

StatusOr<std::vector<NodeId>> Graph::TopologicalOrder() const {
  // Kahn's algorithm; stable: among ready nodes, file order wins. The users of each value are
  // one flat array (offsets per value), built in two passes: a vector per value cost most of
  // the time on a 10^6-node graph, in allocations.
  const uint32_t n = uint32_t(nodes_.size());
  std::vector<uint32_t> pending(n, 0);
  std::vector<uint32_t> user_start(values_.size() + 1, 0);
  auto each_counted_input = [&](uint32_t i, auto&& f) {
    for (ValueId v : nodes_[i].inputs) {
      if (!v.valid()) continue;
      const NodeId p = values_[v.index].producer;
      if (p.valid() && !nodes_[p.index].dead) f(v.index);
    }
  };
  for (uint32_t i = 0; i < n; ++i) {
    if (!nodes_[i].dead) each_counted_input(i, [&](uint32_t v) { ++user_start[v + 1]; });
  }
  for (size_t v = 0; v < values_.size(); ++v) user_start[v + 1] += user_start[v];
  std::vector<uint32_t> users(user_start.back());
  std::vector<uint32_t> fill(user_start.begin(), user_start.end() - 1);
  for (uint32_t i = 0; i < n; ++i) {
    if (nodes_[i].dead) continue;
    each_counted_input(i, [&](uint32_t v) {
      ++pending[i];
      users[fill[v]++] = i;
    });
  }
  std::vector<NodeId> order;
  order.reserve(n);
  std::vector<uint32_t> ready, next;
  for (uint32_t i = 0; i < n; ++i) {
    if (!nodes_[i].dead && pending[i] == 0) ready.push_back(i);
  }
  std::reverse(ready.begin(), ready.end());
  while (!ready.empty()) {
    uint32_t i = ready.back();
    ready.pop_back();
    order.push_back(NodeId{i});
    next.clear();
    for (ValueId v : nodes_[i].outputs) {
      if (!v.valid()) continue;
      for (uint32_t k = user_start[v.index]; k < user_start[v.index + 1]; ++k) {
        if (--pending[users[k]] == 0) next.push_back(users[k]);
      }
    }
    std::sort(next.rbegin(), next.rend());
    ready.insert(ready.end(), next.begin(), next.end());
  }
  if (order.size() != num_live_nodes()) {
    for (uint32_t i = 0; i < n; ++i) {
      if (!nodes_[i].dead && pending[i] != 0) {
        return NodeError(NodeId{i}, InvalidArgument("the graph has a cycle through this node"));
      }
    }
  }
  return order;
}

std::string Graph::NodeLabel(NodeId id) const {
  const Node& n = nodes_[id.index];
  std::string op = n.domain.empty() ? n.op_type : n.domain + ":" + n.op_type;
  return StrCat("node '", n.name, "' (#", id.index, ", ", op, ")");
}

Status Graph::NodeError(NodeId id, const Status& s) const {
  std::string prefix = source.empty() ? NodeLabel(id) : source + ": " + NodeLabel(id);
  return s.WithContext(prefix);
}

}  // namespace qrt
