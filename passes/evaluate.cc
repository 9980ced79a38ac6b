#include "passes/evaluate.h"

#include <map>

#include "runtime/model.h"
#include "runtime/session.h"

namespace qrt {

StatusOr<std::vector<Tensor>> EvaluateNodes(const Graph& graph, const std::vector<NodeId>& nodes,
                                            const std::vector<std::pair<ValueId, Tensor>>& bound,
                                            const std::vector<ValueId>& outputs, Isa isa) {
  Graph sub;
  sub.source = graph.source;
  sub.opsets = graph.opsets;
  std::map<uint32_t, ValueId> mapped;
  std::vector<Tensor> inputs;
  for (const auto& [id, tensor] : bound) {
    Value v;
    v.name = graph.value(id).name;
    v.dtype = tensor.dtype();
    v.shape = ShapeFromDims(tensor.dims());
    QRT_ASSIGN_OR_RETURN(ValueId nid, sub.AddValue(std::move(v)));
    sub.inputs.push_back(nid);
    inputs.push_back(tensor);
    mapped[id.index] = nid;
  }
  auto map_value = [&](ValueId id) -> StatusOr<ValueId> {
    if (!id.valid()) return id;
    auto it = mapped.find(id.index);
    if (it != mapped.end()) return it->second;
    const Value& v = graph.value(id);
    if (!v.constant) return InvalidArgument("value '", v.name, "' is neither bound nor constant");
    Value c;
    c.name = v.name;
    c.dtype = v.dtype;
    c.shape = v.shape;
    c.constant = v.constant;  // shares the bytes
    c.folded = v.folded;
    QRT_ASSIGN_OR_RETURN(ValueId nid, sub.AddValue(std::move(c)));
    mapped[id.index] = nid;
    return nid;
  };
  for (NodeId nid : nodes) {
    const Node& n = graph.node(nid);
    Node copy;
    copy.name = n.name;
    copy.domain = n.domain;
    copy.op_type = n.op_type;
    copy.opset = n.opset;
    copy.def = n.def;
    copy.attrs = n.attrs;
    for (ValueId in : n.inputs) {
      QRT_ASSIGN_OR_RETURN(ValueId m, map_value(in));
      copy.inputs.push_back(m);
    }
    for (ValueId out : n.outputs) {
      if (!out.valid()) {
        copy.outputs.push_back(out);
        continue;
      }
      Value v;
      v.name = graph.value(out).name;
      QRT_ASSIGN_OR_RETURN(ValueId m, sub.AddValue(std::move(v)));
      mapped[out.index] = m;
      copy.outputs.push_back(m);
    }
    sub.AddNode(std::move(copy));
  }
  for (ValueId out : outputs) {
    QRT_ASSIGN_OR_RETURN(ValueId m, map_value(out));
    sub.outputs.push_back(m);
  }
  CompileOptions options;
  options.passes = "none";
  options.max_isa = isa;
  QRT_ASSIGN_OR_RETURN(auto model, Compile(std::move(sub), options));
  Session session(model);
  std::vector<Tensor> results;
  QRT_RETURN_IF_ERROR(session.Run(inputs, &results));
  for (Tensor& t : results) t = t.Clone();  // the session's arena dies with it
  return results;
}

}  // namespace qrt
