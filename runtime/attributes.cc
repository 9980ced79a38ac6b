#include "runtime/attributes.h"

namespace qrt {

std::string_view AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kString:
      return "string";
    case AttrType::kInts:
      return "ints";
    case AttrType::kFloats:
      return "floats";
    case AttrType::kStrings:
      return "strings";
    case AttrType::kTensor:
      return "tensor";
    case AttrType::kGraph:
      return "graph";
  }
  return "?";
}

const AttrValue* Attributes::Find(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

namespace {

template <class T>
StatusOr<T> Get(const Attributes& attrs, const std::string& name, const std::optional<T>& dflt, AttrType want) {
  const AttrValue* v = attrs.Find(name);
  if (v == nullptr) {
    if (dflt) return *dflt;
    return InvalidArgument("required attribute '", name, "' is missing");
  }
  if (const T* p = std::get_if<T>(v)) return *p;
  return InvalidArgument("attribute '", name, "' must be ", AttrTypeName(want), ", got ", AttrTypeName(TypeOf(*v)));
}

}  // namespace

StatusOr<int64_t> Attributes::GetInt(const std::string& name, std::optional<int64_t> dflt) const {
  return Get<int64_t>(*this, name, dflt, AttrType::kInt);
}

StatusOr<float> Attributes::GetFloat(const std::string& name, std::optional<float> dflt) const {
  if (const AttrValue* v = Find(name)) {
    if (const int64_t* i = std::get_if<int64_t>(v)) return float(*i);
  }
  return Get<float>(*this, name, dflt, AttrType::kFloat);
}

StatusOr<std::string> Attributes::GetString(const std::string& name, std::optional<std::string> dflt) const {
  return Get<std::string>(*this, name, dflt, AttrType::kString);
}

StatusOr<std::vector<int64_t>> Attributes::GetInts(const std::string& name,
                                                   std::optional<std::vector<int64_t>> dflt) const {
  return Get<std::vector<int64_t>>(*this, name, dflt, AttrType::kInts);
}

StatusOr<std::vector<float>> Attributes::GetFloats(const std::string& name,
                                                   std::optional<std::vector<float>> dflt) const {
  if (const AttrValue* v = Find(name)) {
    if (const auto* ints = std::get_if<std::vector<int64_t>>(v)) {
      return std::vector<float>(ints->begin(), ints->end());
    }
  }
  return Get<std::vector<float>>(*this, name, dflt, AttrType::kFloats);
}

StatusOr<Tensor> Attributes::GetTensor(const std::string& name) const {
  return Get<Tensor>(*this, name, std::nullopt, AttrType::kTensor);
}

StatusOr<std::shared_ptr<Graph>> Attributes::GetGraph(const std::string& name) const {
  return Get<std::shared_ptr<Graph>>(*this, name, std::nullopt, AttrType::kGraph);
}

}  // namespace qrt
