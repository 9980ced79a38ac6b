// Graph -> ONNX ModelProto. qrt's own ops are written in domain "qrt".
#include <onnx/onnx_pb.h>

#include <set>

#include "loaders/model_io.h"
#include "loaders/tensor_proto.h"

namespace qrt {
namespace {

void SetType(onnx::ValueInfoProto* vi, DataType dtype, const std::optional<Shape>& shape,
             DeclaredKind kind = DeclaredKind::kTensor) {
  onnx::TypeProto* type = vi->mutable_type();
  if (kind == DeclaredKind::kOptionalTensor || kind == DeclaredKind::kOptionalSequence) {
    type = type->mutable_optional_type()->mutable_elem_type();
  }
  if (kind == DeclaredKind::kSequence || kind == DeclaredKind::kOptionalSequence) {
    type = type->mutable_sequence_type()->mutable_elem_type();
  }
  auto* tt = type->mutable_tensor_type();
  tt->set_elem_type(OnnxCodeFromDataType(dtype));
  if (!shape) return;
  auto* sp = tt->mutable_shape();
  for (const Dim& d : *shape) {
    auto* dim = sp->add_dim();
    if (d.is_static())
      dim->set_dim_value(d.value);
    else if (!d.symbol.empty())
      dim->set_dim_param(d.symbol);
  }
}

Status WriteGraph(const Graph& g, const Plan* plan, onnx::GraphProto* gp);

// onnx_loader.cc's text of a TYPE_PROTO attribute, back as a TypeProto; false if it is not one.
bool TypeFromText(const std::string& text, onnx::TypeProto* t) {
  auto inside = [&](const char* head) -> std::optional<std::string> {
    const std::string h = std::string(head) + "(";
    if (text.rfind(h, 0) != 0 || text.back() != ')') return std::nullopt;
    return text.substr(h.size(), text.size() - h.size() - 1);
  };
  if (auto inner = inside("optional")) return TypeFromText(*inner, t->mutable_optional_type()->mutable_elem_type());
  if (auto item = inside("sequence")) {
    return TypeFromText("tensor(" + *item + ")", t->mutable_sequence_type()->mutable_elem_type());
  }
  if (auto name = inside("tensor")) {
    std::optional<DataType> d = *name == "undefined" ? DataType::kUndefined : ParseDataType(*name);
    if (!d) return false;
    t->mutable_tensor_type()->set_elem_type(*d == DataType::kUndefined ? 0 : OnnxCodeFromDataType(*d));
    return true;
  }
  return false;
}

Status WriteAttr(const std::string& name, const AttrValue& v, onnx::AttributeProto* a) {
  a->set_name(name);
  switch (TypeOf(v)) {
    case AttrType::kInt:
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(std::get<int64_t>(v));
      break;
    case AttrType::kFloat:
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(std::get<float>(v));
      break;
    case AttrType::kString:
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(std::get<std::string>(v));
      break;
    case AttrType::kInts:
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t i : std::get<std::vector<int64_t>>(v)) a->add_ints(i);
      break;
    case AttrType::kFloats:
      a->set_type(onnx::AttributeProto::FLOATS);
      for (float f : std::get<std::vector<float>>(v)) a->add_floats(f);
      break;
    case AttrType::kStrings:
      a->set_type(onnx::AttributeProto::STRINGS);
      for (const std::string& s : std::get<std::vector<std::string>>(v)) a->add_strings(s);
      break;
    case AttrType::kTensor:
      a->set_type(onnx::AttributeProto::TENSOR);
      *a->mutable_t() = TensorToProto(std::get<Tensor>(v), "");
      break;
    case AttrType::kGraph:
      a->set_type(onnx::AttributeProto::GRAPH);
      return WriteGraph(*std::get<std::shared_ptr<Graph>>(v), nullptr, a->mutable_g());
  }
  return Status::Ok();
}

Status WriteGraph(const Graph& g, const Plan* plan, onnx::GraphProto* gp) {
  gp->set_name(g.name.empty() ? "qrt" : g.name);
  for (ValueId id : g.inputs) {
    const Value& v = g.value(id);
    auto* vi = gp->add_input();
    vi->set_name(v.name);
    SetType(vi, v.dtype, v.shape, v.kind);
  }
  for (uint32_t i = 0; i < g.num_values(); ++i) {
    const Value& v = g.value(ValueId{i});
    if (v.constant) *gp->add_initializer() = TensorToProto(*v.constant, v.name);
  }
  QRT_ASSIGN_OR_RETURN(std::vector<NodeId> order, g.TopologicalOrder());
  std::set<std::string> rebound;  // capture names already defined by an Identity
  for (NodeId id : order) {
    const Node& n = g.node(id);
    QRT_ASSIGN_OR_RETURN(auto renamed, RenamedCaptures(g, n));
    for (const auto& [capture, outer] : renamed) {
      if (!rebound.insert(capture).second) continue;
      auto* ip = gp->add_node();
      ip->set_name(capture + "_capture");
      ip->set_op_type("Identity");
      ip->add_input(outer);
      ip->add_output(capture);
    }
    auto* np = gp->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op_type);
    np->set_domain(n.domain);
    const size_t num_declared = n.inputs.size() - NumImplicitInputs(n);  // implicit inputs are not written
    for (size_t k = 0; k < num_declared; ++k) np->add_input(n.inputs[k].valid() ? g.value(n.inputs[k]).name : "");
    for (ValueId v : n.outputs) np->add_output(v.valid() ? g.value(v).name : "");
    for (const auto& [name, a] : n.attrs.all()) {
      onnx::AttributeProto* ap = np->add_attribute();
      QRT_RETURN_IF_ERROR(WriteAttr(name, a, ap));
      if (n.op_type == "Optional" && name == "type" && TypeFromText(ap->s(), ap->mutable_tp())) {
        ap->clear_s();
        ap->set_type(onnx::AttributeProto::TYPE_PROTO);
      }
    }
  }
  for (ValueId id : g.outputs) {
    const Value& v = g.value(id);
    auto* vi = gp->add_output();
    vi->set_name(v.name);
    DataType dt = v.dtype;
    std::optional<Shape> shape;
    if (plan && plan->values[id.index].dtype != DataType::kUndefined &&
        plan->values[id.index].storage != Storage::kDynamic) {
      dt = plan->values[id.index].dtype;
      shape = ShapeFromDims(plan->values[id.index].dims);
    }
    SetType(vi, dt, shape, v.kind);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::string> GraphToOnnx(const Graph& graph, const Plan* plan) {
  onnx::ModelProto m;
  int64_t onnx_opset = 21;
  auto it = graph.opsets.find("");
  if (it != graph.opsets.end()) onnx_opset = it->second;
  m.set_ir_version(onnx_opset >= 21 ? 10 : onnx_opset >= 19 ? 9 : 8);
  m.set_producer_name("qrt");
  std::map<std::string, int64_t> opsets = graph.opsets;
  for (uint32_t i = 0; i < graph.num_nodes(); ++i) {
    const Node& n = graph.node(NodeId{i});
    if (n.dead) continue;
    if (!opsets.count(n.domain)) opsets[n.domain] = n.domain.empty() ? onnx_opset : 1;
  }
  for (const auto& [domain, v] : opsets) {
    auto* op = m.add_opset_import();
    op->set_domain(domain);
    op->set_version(v);
  }
  QRT_RETURN_IF_ERROR(WriteGraph(graph, plan, m.mutable_graph()));
  std::string out;
  if (!m.SerializeToString(&out)) return ResourceExhausted("the model is too large for ONNX's 2 GiB protobuf limit");
  return out;
}

}  // namespace qrt
