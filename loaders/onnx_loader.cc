#include "loaders/onnx_loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <onnx/onnx_pb.h>

#include <fstream>
#include <sstream>

#include "loaders/model_builder.h"
#include "loaders/tensor_proto.h"

namespace qrt {
namespace {

constexpr int64_t kMaxModelBytes = int64_t(2) << 30;  // protobuf's own hard limit

struct DeclaredType {
  DeclaredKind kind = DeclaredKind::kTensor;
  DataType dtype = DataType::kUndefined;  // undefined: not declared
};

StatusOr<DataType> TensorElemType(const onnx::ValueInfoProto& vi, const onnx::TypeProto::Tensor& tensor) {
  const int code = tensor.elem_type();
  if (code == 0) return DataType::kUndefined;
  std::optional<DataType> t = DataTypeFromOnnx(code);
  if (!t) return Unsupported("value '", vi.name(), "' has unsupported ONNX element type ", code);
  return *t;
}

// A tensor, a sequence of tensors, or an optional of either; maps, sparse tensors and nested
// sequences are refused.
StatusOr<DeclaredType> TypeOf(const onnx::ValueInfoProto& vi) {
  DeclaredType d;
  if (!vi.has_type()) return d;
  const onnx::TypeProto* type = &vi.type();
  bool optional = false;
  if (type->has_optional_type()) {
    optional = true;
    type = &type->optional_type().elem_type();
  }
  if (type->has_tensor_type()) {
    d.kind = optional ? DeclaredKind::kOptionalTensor : DeclaredKind::kTensor;
    QRT_ASSIGN_OR_RETURN(d.dtype, TensorElemType(vi, type->tensor_type()));
    return d;
  }
  if (type->has_sequence_type() && type->sequence_type().elem_type().has_tensor_type()) {
    d.kind = optional ? DeclaredKind::kOptionalSequence : DeclaredKind::kSequence;
    QRT_ASSIGN_OR_RETURN(d.dtype, TensorElemType(vi, type->sequence_type().elem_type().tensor_type()));
    return d;
  }
  return Unsupported("value '", vi.name(), "' is not a tensor, a sequence of tensors or an optional of one");
}

std::optional<Shape> ShapeOf(const onnx::ValueInfoProto& vi) {
  if (!vi.has_type() || !vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) {
    return std::nullopt;
  }
  Shape s;
  for (const auto& d : vi.type().tensor_type().shape().dim()) {
    if (d.has_dim_value() && d.dim_value() >= 0) {
      s.push_back(Dim::Static(d.dim_value()));
    } else {
      // dim_param, a missing dim, or -1 (written by some exporters) are symbolic.
      s.push_back(Dim::Symbolic(d.has_dim_param() ? d.dim_param() : std::string()));
    }
  }
  return s;
}

StatusOr<Graph> ConvertGraph(const onnx::GraphProto& gp, const std::map<std::string, int64_t>& opsets,
                             const std::string& source, const std::string& model_dir, int depth);

// A TYPE_PROTO attribute (Optional's `type`) as text: "tensor(float32)", "sequence(int64)",
// "optional(tensor(uint8))"; onnx_writer.cc turns it back.
StatusOr<std::string> TypeText(const std::string& name, const onnx::TypeProto& t, int depth = 0) {
  if (depth > 4) return Unsupported("attribute '", name, "': a type nested too deep");
  if (t.has_tensor_type()) {
    std::optional<DataType> d =
        t.tensor_type().elem_type() == 0 ? DataType::kUndefined : DataTypeFromOnnx(t.tensor_type().elem_type());
    if (!d) return Unsupported("attribute '", name, "': element type ", t.tensor_type().elem_type());
    return StrCat("tensor(", DataTypeName(*d), ")");
  }
  if (t.has_sequence_type()) {
    QRT_ASSIGN_OR_RETURN(std::string item, TypeText(name, t.sequence_type().elem_type(), depth + 1));
    return StrCat("sequence(", item.substr(7, item.size() - 8), ")");  // of tensors only
  }
  if (t.has_optional_type()) {
    QRT_ASSIGN_OR_RETURN(std::string inner, TypeText(name, t.optional_type().elem_type(), depth + 1));
    return StrCat("optional(", inner, ")");
  }
  return Unsupported("attribute '", name, "': a map or sparse type");
}

StatusOr<AttrValue> ConvertAttribute(const onnx::AttributeProto& a, const std::map<std::string, int64_t>& opsets,
                                     const std::string& source, const std::string& model_dir, int depth) {
  if (!a.ref_attr_name().empty()) return Unsupported("attribute '", a.name(), "' refers to a function attribute");
  QRT_RETURN_IF_ERROR(CheckAttributeSize(a.name(), a.s().size(), "bytes"));
  QRT_RETURN_IF_ERROR(CheckAttributeSize(a.name(), size_t(a.ints_size()), "ints"));
  QRT_RETURN_IF_ERROR(CheckAttributeSize(a.name(), size_t(a.floats_size()), "floats"));
  QRT_RETURN_IF_ERROR(CheckAttributeSize(a.name(), size_t(a.strings_size()), "strings"));
  switch (a.type()) {
    case onnx::AttributeProto::INT:
      return AttrValue(int64_t(a.i()));
    case onnx::AttributeProto::FLOAT:
      return AttrValue(a.f());
    case onnx::AttributeProto::STRING:
      return AttrValue(a.s());
    case onnx::AttributeProto::INTS:
      return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case onnx::AttributeProto::FLOATS:
      return AttrValue(std::vector<float>(a.floats().begin(), a.floats().end()));
    case onnx::AttributeProto::STRINGS:
      return AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case onnx::AttributeProto::TENSOR: {
      QRT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(a.t(), model_dir));
      return AttrValue(std::move(t));
    }
    case onnx::AttributeProto::GRAPH: {
      if (depth >= kMaxSubgraphDepth) {
        return ResourceExhausted("subgraphs nested deeper than ", kMaxSubgraphDepth);
      }
      QRT_ASSIGN_OR_RETURN(Graph g, ConvertGraph(a.g(), opsets, source, model_dir, depth + 1));
      return AttrValue(std::make_shared<Graph>(std::move(g)));
    }
    case onnx::AttributeProto::TYPE_PROTO: {
      QRT_ASSIGN_OR_RETURN(std::string text, TypeText(a.name(), a.tp()));
      return AttrValue(std::move(text));
    }
    default:
      return Unsupported("attribute '", a.name(), "' has unsupported type ",
                         onnx::AttributeProto::AttributeType_Name(a.type()));
  }
}

StatusOr<Graph> ConvertGraph(const onnx::GraphProto& gp, const std::map<std::string, int64_t>& opsets,
                             const std::string& source, const std::string& model_dir, int depth) {
  ModelBuilder b(source, opsets, /*is_subgraph=*/depth > 0);
  b.SetName(gp.name());
  for (const onnx::TensorProto& init : gp.initializer()) {
    StatusOr<Tensor> t = TensorFromProto(init, model_dir);
    if (!t.ok()) return t.status().WithContext(StrCat(source, ": initializer '", init.name(), "'"));
    QRT_RETURN_IF_ERROR(b.AddInitializer(init.name(), std::move(t).value()));
  }
  if (gp.sparse_initializer_size() > 0) return Unsupported(source, ": sparse initializers are not supported");
  for (const onnx::ValueInfoProto& vi : gp.input()) {
    if (b.HasInitializer(vi.name())) continue;  // an initializer listed as input: a constant
    StatusOr<DeclaredType> t = TypeOf(vi);
    if (!t.ok()) return t.status().WithContext(source);
    QRT_RETURN_IF_ERROR(b.AddInput(vi.name(), t->dtype, ShapeOf(vi), t->kind));
  }
  for (const onnx::NodeProto& np : gp.node()) {
    NodeSpec spec;
    spec.name = np.name();
    spec.domain = np.domain();
    spec.op_type = np.op_type();
    spec.inputs.assign(np.input().begin(), np.input().end());
    spec.outputs.assign(np.output().begin(), np.output().end());
    for (const onnx::AttributeProto& a : np.attribute()) {
      StatusOr<AttrValue> v = ConvertAttribute(a, opsets, source, model_dir, depth);
      if (!v.ok()) {
        return v.status().WithContext(StrCat(source, ": node '", np.name(), "' (", np.op_type(), ")"));
      }
      spec.attrs.Set(a.name(), std::move(v).value());
    }
    QRT_RETURN_IF_ERROR(b.AddNode(std::move(spec)));
  }
  for (const onnx::ValueInfoProto& vi : gp.output()) {
    StatusOr<DeclaredType> t = TypeOf(vi);
    if (!t.ok()) return t.status().WithContext(source);
    QRT_RETURN_IF_ERROR(b.AddOutput(vi.name(), t->dtype, ShapeOf(vi), t->kind));
  }
  return b.Finish();
}

std::string DirOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

StatusOr<Graph> LoadOnnxBuffer(const void* data, size_t size, const std::string& source, const std::string& model_dir) {
  // Checked before the stream exists: its size is an int, which 2 GiB would wrap.
  if (size >= size_t(kMaxModelBytes)) {
    return ResourceExhausted(source, ": ", size, " bytes exceeds the 2 GiB protobuf limit");
  }
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data), int(size));
  in.SetTotalBytesLimit(int(kMaxModelBytes - 1));
  if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    return InvalidArgument(source, ": not a valid ONNX model (protobuf parse failed; truncated or corrupt file?)");
  }
  if (!model.has_graph()) return InvalidArgument(source, ": the model has no graph");
  std::map<std::string, int64_t> opsets;
  for (const auto& op : model.opset_import()) {
    opsets[std::string(op.domain() == "ai.onnx" ? "" : op.domain())] = op.version();
  }
  if (model.opset_import_size() == 0) opsets[""] = 1;  // IR < 3 models imply opset 1
  auto onnx_it = opsets.find("");
  if (onnx_it != opsets.end() && (onnx_it->second < kMinOnnxOpset || onnx_it->second > kMaxOnnxOpset)) {
    bool uses_onnx = false;
    for (const auto& n : model.graph().node()) uses_onnx |= n.domain().empty() || n.domain() == "ai.onnx";
    if (uses_onnx) {
      return Unsupported(source, ": ai.onnx opset ", onnx_it->second, " is not supported (qrt supports ", kMinOnnxOpset,
                         " to ", kMaxOnnxOpset, ")");
    }
  }
  if (model.functions_size() > 0) {
    bool used = false;
    for (const auto& f : model.functions()) {
      for (const auto& n : model.graph().node()) used |= n.op_type() == f.name() && n.domain() == f.domain();
    }
    if (used) return Unsupported(source, ": model-local functions are not supported");
  }
  return ConvertGraph(model.graph(), opsets, source, model_dir, 0);
}

StatusOr<Graph> LoadOnnxFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound(path, ": cannot open file");
  f.seekg(0, std::ios::end);
  std::streamoff len = f.tellg();
  if (len < 0) return IoError(path, ": cannot read file");
  if (len >= kMaxModelBytes)
    return ResourceExhausted(path, ": file of ", len, " bytes exceeds the 2 GiB protobuf limit");
  f.seekg(0);
  std::string bytes(size_t(len), '\0');
  if (!f.read(bytes.data(), len)) return IoError(path, ": read failed");
  return LoadOnnxBuffer(bytes.data(), bytes.size(), path, DirOf(path));
}

}  // namespace qrt
