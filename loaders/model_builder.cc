#include "loaders/model_builder.h"

#include "ops/registry.h"

namespace qrt {

Status CheckAttributeSize(const std::string& name, size_t count, const char* what) {
  if (count <= kMaxAttributeElements) return Status::Ok();
  return ResourceExhausted("attribute '", name, "' has ", count, " ", what, ", over the limit of ",
                           kMaxAttributeElements);
}

ModelBuilder::ModelBuilder(std::string source, std::map<std::string, int64_t> opsets, bool is_subgraph,
                           BuilderLimits limits)
    : source_(std::move(source)), opsets_(std::move(opsets)), is_subgraph_(is_subgraph), limits_(limits) {
  graph_.source = source_;
  graph_.opsets = opsets_;
}

Status ModelBuilder::AddInitializer(const std::string& name, Tensor t) {
  if (name.empty()) return InvalidArgument(source_, ": an initializer has no name");
  QRT_RETURN_IF_ERROR(CheckValueCount().WithContext(StrCat(source_, ": initializer '", name, "'")));
  Value v;
  v.name = name;
  v.dtype = t.dtype();
  v.shape = ShapeFromDims(t.dims());
  v.constant = std::move(t);
  StatusOr<ValueId> id = graph_.AddValue(std::move(v));
  return id.status().WithContext(source_);
}

bool ModelBuilder::HasInitializer(const std::string& name) const {
  ValueId id = graph_.FindValue(name);
  return id.valid() && graph_.IsConstant(id);
}

Status ModelBuilder::AddInput(const std::string& name, DataType dtype, std::optional<Shape> shape, DeclaredKind kind) {
  if (name.empty()) return InvalidArgument(source_, ": a graph input has no name");
  if (!is_subgraph_ && dtype == DataType::kUndefined) {
    return InvalidArgument(source_, ": graph input '", name, "' has no element type");
  }
  QRT_RETURN_IF_ERROR(CheckValueCount().WithContext(StrCat(source_, ": graph input '", name, "'")));
  if (shape && int64_t(shape->size()) > kMaxRank) {
    return ResourceExhausted(source_, ": graph input '", name, "' has rank ", shape->size(), " > ", kMaxRank);
  }
  // Declared sizes that could never be allocated are an error now, not at the first run.
  if (shape) {
    if (std::optional<Dims> dims = StaticDims(*shape)) {
      Status s = CheckedElementCount(*dims, dtype == DataType::kUndefined ? 1 : DataTypeSize(dtype)).status();
      if (!s.ok()) return s.WithContext(StrCat(source_, ": graph input '", name, "'"));
    }
  }
  Value v;
  v.name = name;
  v.kind = kind;
  v.dtype = dtype;
  v.shape = std::move(shape);
  StatusOr<ValueId> id = graph_.AddValue(std::move(v));
  if (!id.ok()) return InvalidArgument(source_, ": graph input '", name, "' is defined more than once");
  graph_.inputs.push_back(*id);
  return Status::Ok();
}

Status ModelBuilder::AddNode(NodeSpec spec) {
  if (nodes_.size() >= limits_.max_nodes) {
    return ResourceExhausted(source_, ": more than ", limits_.max_nodes, " nodes (node '", spec.name, "')");
  }
  nodes_.push_back(std::move(spec));
  return Status::Ok();
}

Status ModelBuilder::AddOutput(const std::string& name, DataType dtype, std::optional<Shape> shape, DeclaredKind kind) {
  outputs_.push_back({name, dtype, std::move(shape), kind});
  return Status::Ok();
}

Status ModelBuilder::CheckValueCount() const {
  if (graph_.num_values() < limits_.max_values) return Status::Ok();
  return ResourceExhausted("more than ", limits_.max_values, " values (inputs, initializers and node outputs)");
}

Status ModelBuilder::Err(const NodeSpec& spec, size_t index, const Status& s) const {
  std::string op = spec.domain && !spec.domain->empty() ? *spec.domain + ":" + spec.op_type : spec.op_type;
  return s.WithContext(StrCat(source_, ": node '", spec.name, "' (#", index, ", ", op, ")"));
}

int64_t ModelBuilder::OpsetOf(const std::string& domain) const {
  auto it = opsets_.find(std::string(CanonicalDomain(domain)));
  if (it == opsets_.end() && domain == "qrt") it = opsets_.find("org.openvinotoolkit");
  if (it != opsets_.end()) return it->second;
  return domain.empty() ? 21 : 1;
}

namespace {

// A Constant node's value as a tensor (ONNX Constant: exactly one value* attribute).
StatusOr<Tensor> ConstantValue(const Attributes& a) {
  if (a.all().size() != 1) return InvalidArgument("Constant needs exactly one value attribute");
  const auto& [name, v] = *a.all().begin();
  if (name == "value") return a.GetTensor("value");
  if (name == "value_float") {
    QRT_ASSIGN_OR_RETURN(float f, a.GetFloat(name));
    return Tensor::FromVector<float>({f}, {});
  }
  if (name == "value_int") {
    QRT_ASSIGN_OR_RETURN(int64_t i, a.GetInt(name));
    return Tensor::FromVector<int64_t>({i}, {});
  }
  if (name == "value_floats") {
    QRT_ASSIGN_OR_RETURN(std::vector<float> f, a.GetFloats(name));
    return Tensor::FromVector<float>(f, {int64_t(f.size())});
  }
  if (name == "value_ints") {
    QRT_ASSIGN_OR_RETURN(std::vector<int64_t> i, a.GetInts(name));
    return Tensor::FromVector<int64_t>(i, {int64_t(i.size())});
  }
  (void)v;
  return Unsupported("Constant attribute '", name, "'");
}

}  // namespace

StatusOr<Graph> ModelBuilder::Finish() {
  // Outputs of every node first, so a node may read a value defined later in the file.
  std::vector<const OpDef*> defs(nodes_.size(), nullptr);
  std::vector<std::string> domains(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    NodeSpec& spec = nodes_[i];
    if (spec.name.empty()) spec.name = StrCat(spec.op_type, "_", i);
    const OpDef* def = nullptr;
    if (spec.domain) {
      def = FindOp(*spec.domain, spec.op_type);
      domains[i] = std::string(CanonicalDomain(*spec.domain));
    } else {
      def = FindOp("", spec.op_type);
      if (def == nullptr) def = FindOp("qrt", spec.op_type);
      domains[i] = def ? std::string(def->domain) : "";
    }
    if (def == nullptr) {
      std::string where = spec.domain && !spec.domain->empty() ? " in domain '" + *spec.domain + "'" : "";
      return Err(spec, i, Unsupported("unknown op '", spec.op_type, "'", where));
    }
    defs[i] = def;
    while (!spec.inputs.empty() && spec.inputs.back().empty()) spec.inputs.pop_back();
    const int n_in = int(spec.inputs.size()), n_out = int(spec.outputs.size());
    if (n_in < def->min_inputs || n_in > def->max_inputs) {
      return Err(spec, i,
                 InvalidArgument("has ", n_in, " inputs; ", spec.op_type, " takes ", def->min_inputs,
                                 def->min_inputs == def->max_inputs ? "" : StrCat(" to ", def->max_inputs)));
    }
    if (n_out < def->min_outputs || n_out > def->max_outputs) {
      return Err(spec, i,
                 InvalidArgument("has ", n_out, " outputs; ", spec.op_type, " gives ", def->min_outputs,
                                 def->min_outputs == def->max_outputs ? "" : StrCat(" to ", def->max_outputs)));
    }
    // Only optional outputs may be omitted (an empty name); kernels write every required one.
    for (int o = 0; o < def->min_outputs; ++o) {
      if (spec.outputs[size_t(o)].empty()) {
        return Err(spec, i, InvalidArgument("output ", o, " of ", spec.op_type, " is required but has no name"));
      }
    }
    for (const std::string& out : spec.outputs) {
      if (out.empty()) continue;
      if (Status s = CheckValueCount(); !s.ok()) return Err(spec, i, s);
      Value v;
      v.name = out;
      StatusOr<ValueId> id = graph_.AddValue(std::move(v));
      if (!id.ok()) return Err(spec, i, id.status());
    }
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    NodeSpec& spec = nodes_[i];
    if (defs[i]->op_type == "Constant" && defs[i]->domain.empty()) {
      StatusOr<Tensor> t = ConstantValue(spec.attrs);
      if (!t.ok()) return Err(spec, i, t.status());
      Value& v = graph_.value(graph_.FindValue(spec.outputs[0]));
      v.dtype = t->dtype();
      v.shape = ShapeFromDims(t->dims());
      v.constant = std::move(t).value();
      continue;
    }
    Node n;
    n.name = spec.name;
    n.domain = domains[i];
    n.op_type = spec.op_type;
    n.opset = OpsetOf(n.domain);
    n.def = defs[i];
    n.attrs = std::move(spec.attrs);
    // Declared inputs, then the captures of the node's subgraphs (see ImplicitInputNames).
    std::vector<std::string> inputs = std::move(spec.inputs);
    const size_t num_declared = inputs.size();
    for (std::string& name : ImplicitInputNames(n)) inputs.push_back(std::move(name));
    for (size_t k = 0; k < inputs.size(); ++k) {
      const std::string& in = inputs[k];
      if (in.empty()) {
        n.inputs.push_back(ValueId{});
        continue;
      }
      ValueId id = graph_.FindValue(in);
      if (!id.valid()) {
        if (!is_subgraph_) {
          const char* what = k < num_declared ? "input '" : "captured value '";
          return Err(spec, i, InvalidArgument(what, in, "' is not defined by any node, input or initializer"));
        }
        if (Status s = CheckValueCount(); !s.ok()) return Err(spec, i, s);
        Value v;
        v.name = in;
        id = graph_.AddValue(std::move(v)).value();
        graph_.captures.push_back(id);
      }
      n.inputs.push_back(id);
    }
    for (const std::string& out : spec.outputs) n.outputs.push_back(out.empty() ? ValueId{} : graph_.FindValue(out));
    graph_.AddNode(std::move(n));
  }
  for (const OutputDecl& o : outputs_) {
    ValueId id = graph_.FindValue(o.name);
    if (!id.valid()) {
      return InvalidArgument(source_, ": graph output '", o.name,
                             "' is not produced by any node, input or initializer");
    }
    Value& v = graph_.value(id);
    if (v.dtype == DataType::kUndefined) v.dtype = o.dtype;
    if (v.kind == DeclaredKind::kTensor) v.kind = o.kind;
    if (!v.shape) v.shape = o.shape;  // checked against the computed shape when planned
    graph_.outputs.push_back(id);
  }
  QRT_RETURN_IF_ERROR(graph_.Validate());
  return std::move(graph_);
}

}  // namespace qrt
