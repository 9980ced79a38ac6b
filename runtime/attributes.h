// Typed node attributes. Loaders convert strings and protobuf fields into these once;
// ops read them through typed getters that report a wrong type as an error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

class Graph;

enum class AttrType { kInt, kFloat, kString, kInts, kFloats, kStrings, kTensor, kGraph };

// The variant's alternatives are in AttrType order.
using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, Tensor, std::shared_ptr<Graph>>;

inline AttrType TypeOf(const AttrValue& v) { return static_cast<AttrType>(v.index()); }
std::string_view AttrTypeName(AttrType t);

class Attributes {
 public:
  void Set(const std::string& name, AttrValue value) { map_[name] = std::move(value); }
  bool Has(const std::string& name) const { return map_.count(name) != 0; }
  const AttrValue* Find(const std::string& name) const;
  void Erase(const std::string& name) { map_.erase(name); }
  const std::map<std::string, AttrValue>& all() const { return map_; }

  // Each getter returns the default when the attribute is absent and a default is given,
  // an error when it is absent and required, and an error when it has another type.
  // GetFloat also accepts an int attribute (JSON writes 1.0 as 1 in some tools).
  StatusOr<int64_t> GetInt(const std::string& name, std::optional<int64_t> dflt = std::nullopt) const;
  StatusOr<float> GetFloat(const std::string& name, std::optional<float> dflt = std::nullopt) const;
  StatusOr<std::string> GetString(const std::string& name, std::optional<std::string> dflt = std::nullopt) const;
  StatusOr<std::vector<int64_t>> GetInts(const std::string& name,
                                         std::optional<std::vector<int64_t>> dflt = std::nullopt) const;
  StatusOr<std::vector<float>> GetFloats(const std::string& name,
                                         std::optional<std::vector<float>> dflt = std::nullopt) const;
  StatusOr<Tensor> GetTensor(const std::string& name) const;
  StatusOr<std::shared_ptr<Graph>> GetGraph(const std::string& name) const;

 private:
  std::map<std::string, AttrValue> map_;
};

}  // namespace qrt
