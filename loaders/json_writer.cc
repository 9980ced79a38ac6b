// Graph -> qrt JSON. Tensors are written as base64 of their little-endian bytes, so
// every bit (NaN payloads, -0.0) survives a round trip.
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "loaders/base64.h"
#include "loaders/model_io.h"

namespace qrt {
namespace {

using json = nlohmann::json;

json ShapeJson(const Shape& s) {
  json a = json::array();
  for (const Dim& d : s) {
    if (d.is_static())
      a.push_back(d.value);
    else
      a.push_back(d.symbol.empty() ? json(-1) : json(d.symbol));
  }
  return a;
}

json TensorJson(const Tensor& t) {
  json j;
  j["dtype"] = std::string(DataTypeName(t.dtype()));
  j["shape"] = ShapeJson(ShapeFromDims(t.dims()));
  j["data_base64"] = Base64Encode(t.raw(), t.nbytes());
  return j;
}

StatusOr<json> GraphJson(const Graph& g, const Plan* plan, bool top);

json FloatJson(float f) {
  if (std::isnan(f)) return "nan";
  if (std::isinf(f)) return f > 0 ? "inf" : "-inf";
  return double(f);
}

StatusOr<json> AttrJson(const AttrValue& v) {
  switch (TypeOf(v)) {
    case AttrType::kInt:
      return json(std::get<int64_t>(v));
    case AttrType::kFloat:
      return FloatJson(std::get<float>(v));
    case AttrType::kString:
      return json(std::get<std::string>(v));
    case AttrType::kInts:
      return json(std::get<std::vector<int64_t>>(v));
    case AttrType::kFloats: {
      json a = json::array();
      for (float f : std::get<std::vector<float>>(v)) a.push_back(FloatJson(f));
      return a;
    }
    case AttrType::kStrings:
      return json(std::get<std::vector<std::string>>(v));
    case AttrType::kTensor:
      return json{{"tensor", TensorJson(std::get<Tensor>(v))}};
    case AttrType::kGraph: {
      QRT_ASSIGN_OR_RETURN(json g, GraphJson(*std::get<std::shared_ptr<Graph>>(v), nullptr, false));
      return json{{"graph", std::move(g)}};
    }
  }
  return json(nullptr);
}

StatusOr<json> GraphJson(const Graph& g, const Plan* plan, bool top) {
  json root;
  if (top) {
    root["format"] = "qrt.graph";
    root["version"] = 1;
    json opsets = json::object();
    for (const auto& [domain, v] : g.opsets) opsets[domain] = v;
    if (!g.opsets.empty()) root["opsets"] = opsets;
  }
  if (!g.name.empty()) root["name"] = g.name;
  json inputs = json::array();
  for (ValueId id : g.inputs) {
    const Value& v = g.value(id);
    json j{{"name", v.name}};
    if (v.kind != DeclaredKind::kTensor) j["kind"] = DeclaredKindName(v.kind);
    if (v.dtype != DataType::kUndefined) j["dtype"] = std::string(DataTypeName(v.dtype));
    if (v.shape) j["shape"] = ShapeJson(*v.shape);
    inputs.push_back(j);
  }
  json inits = json::array();
  for (uint32_t i = 0; i < g.num_values(); ++i) {
    const Value& v = g.value(ValueId{i});
    if (!v.constant) continue;
    json j = TensorJson(*v.constant);
    j["name"] = v.name;
    inits.push_back(j);
  }
  json nodes = json::array();
  auto order = g.TopologicalOrder();
  std::vector<NodeId> ids;
  if (order.ok()) ids = *order;
  std::set<std::string> rebound;  // capture names already defined by an Identity
  for (NodeId id : ids) {
    const Node& n = g.node(id);
    QRT_ASSIGN_OR_RETURN(auto renamed, RenamedCaptures(g, n));
    for (const auto& [capture, outer] : renamed) {
      if (!rebound.insert(capture).second) continue;
      nodes.push_back(json{{"name", capture + "_capture"},
                           {"op", "Identity"},
                           {"domain", ""},
                           {"inputs", json::array({outer})},
                           {"outputs", json::array({capture})}});
    }
    json j{{"name", n.name}, {"op", n.op_type}, {"domain", n.domain}};
    json ins = json::array(), outs = json::array();
    const size_t num_declared = n.inputs.size() - NumImplicitInputs(n);  // implicit inputs are not written
    for (size_t k = 0; k < num_declared; ++k) ins.push_back(n.inputs[k].valid() ? g.value(n.inputs[k]).name : "");
    for (ValueId v : n.outputs) outs.push_back(v.valid() ? g.value(v).name : "");
    j["inputs"] = ins;
    j["outputs"] = outs;
    json attrs = json::object();
    for (const auto& [name, a] : n.attrs.all()) {
      QRT_ASSIGN_OR_RETURN(attrs[name], AttrJson(a));
    }
    if (!attrs.empty()) j["attrs"] = attrs;
    nodes.push_back(j);
  }
  json outputs = json::array();
  for (ValueId id : g.outputs) {
    const Value& v = g.value(id);
    json j{{"name", v.name}};
    if (v.kind != DeclaredKind::kTensor) j["kind"] = DeclaredKindName(v.kind);
    if (plan && plan->values[id.index].dtype != DataType::kUndefined) {
      j["dtype"] = std::string(DataTypeName(plan->values[id.index].dtype));
    } else if (v.dtype != DataType::kUndefined) {
      j["dtype"] = std::string(DataTypeName(v.dtype));
    }
    outputs.push_back(j);
  }
  root["inputs"] = inputs;
  root["outputs"] = outputs;
  root["initializers"] = inits;
  root["nodes"] = nodes;
  return root;
}

}  // namespace

StatusOr<std::string> GraphToJson(const Graph& graph, const Plan* plan) {
  QRT_ASSIGN_OR_RETURN(json root, GraphJson(graph, plan, true));
  // ONNX names are bytes (onnx.proto is proto2: protobuf does not check UTF-8) but JSON
  // text is UTF-8. dump() throws on anything else; refuse rather than alter a name.
  try {
    return root.dump(1) + "\n";
  } catch (const json::type_error& e) {
    return InvalidArgument(graph.source.empty() ? "graph" : graph.source,
                           ": cannot write JSON: a name or string is not valid UTF-8 (", e.what(), ")");
  }
}

StatusOr<std::string> AttributesToJson(const Attributes& attrs) {
  json j = json::object();
  for (const auto& [name, a] : attrs.all()) {
    QRT_ASSIGN_OR_RETURN(j[name], AttrJson(a));
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);  // names from a model may not be UTF-8
}

}  // namespace qrt
