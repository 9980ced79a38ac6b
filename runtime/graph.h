// The IR: a Graph owns its Values and Nodes; everything else refers to them by
// index handles, so passes can rewrite the graph without dangling pointers.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/dtype.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

struct OpDef;

struct ValueId {
  static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();
  uint32_t index = kInvalid;
  bool valid() const { return index != kInvalid; }
  bool operator==(ValueId o) const { return index == o.index; }
  bool operator!=(ValueId o) const { return index != o.index; }
};

struct NodeId {
  static constexpr uint32_t kInvalid = std::numeric_limits<uint32_t>::max();
  uint32_t index = kInvalid;
  bool valid() const { return index != kInvalid; }
  bool operator==(NodeId o) const { return index == o.index; }
  bool operator!=(NodeId o) const { return index != o.index; }
};

// A dimension: a known size (value >= 0) or a symbol bound when inputs are given.
struct Dim {
  int64_t value = -1;
  std::string symbol;
  bool is_static() const { return value >= 0; }
  static Dim Static(int64_t v) { return Dim{v, {}}; }
  static Dim Symbolic(std::string s) { return Dim{-1, std::move(s)}; }
};
using Shape = std::vector<Dim>;

// Dims of a fully static shape; nullopt if any dim is symbolic.
std::optional<Dims> StaticDims(const Shape& shape);
Shape ShapeFromDims(const Dims& dims);
std::string ShapeToString(const Shape& shape);

// What a value holds as the model declares it. Undeclared values are tensors unless their
// producer makes a sequence or an empty optional at run time (runtime/sequence.h).
enum class DeclaredKind : uint8_t { kTensor, kSequence, kOptionalTensor, kOptionalSequence };
// "tensor", "sequence", "optional", "optional_sequence" (the JSON format's "kind").
const char* DeclaredKindName(DeclaredKind kind);
std::optional<DeclaredKind> DeclaredKindFromName(const std::string& name);

struct Value {
  std::string name;
  DeclaredKind kind = DeclaredKind::kTensor;  // dtype is the element type of the items
  DataType dtype = DataType::kUndefined;      // undefined until declared or inferred
  std::optional<Shape> shape;                 // declared shape, if any
  std::optional<Tensor> constant;             // initializer data
  // The constant was computed by qrt (fold-constants) from a node of the model: ONNX Runtime's
  // literal graph computes it at run time, so it is no initializer there (MatMul packs only those).
  bool folded = false;
  NodeId producer;  // invalid for graph inputs and constants
};

struct Node {
  std::string name;
  std::string domain;  // "" for the ONNX default domain
  std::string op_type;
  int64_t opset = 0;             // version of `domain` the model imports
  std::vector<ValueId> inputs;   // an invalid id is an omitted optional input
  std::vector<ValueId> outputs;  // an invalid id is an omitted optional output
  Attributes attrs;
  const OpDef* def = nullptr;  // resolved by the loader from the registry
  bool dead = false;           // erased; removed by Compact()
};

// Implicit inputs. A node with graph attributes (Scan's body) reads the subgraphs'
// captures from the enclosing graph. Loaders append those values to the node's inputs,
// after its declared ones, so liveness, ordering, passes and the planner see the
// dependency like any other input. They are derived from the attributes alone, so a
// copy of a node keeps them: ImplicitInputNames(n)[k] is the capture read through
// n.inputs[n.inputs.size() - NumImplicitInputs(n) + k]. Writers drop them again.

// Names of the captures of the node's graph attributes, in attribute-name order, then
// capture order, each name once.
std::vector<std::string> ImplicitInputNames(const Node& node);
// How many of the node's trailing inputs are implicit (0 for nodes without graph attributes).
size_t NumImplicitInputs(const Node& node);

class Graph {
 public:
  std::string name;
  std::string source;                     // file the graph came from, for error messages
  std::map<std::string, int64_t> opsets;  // domain -> imported version
  std::vector<ValueId> inputs;            // graph inputs, in order (no constants)
  std::vector<ValueId> outputs;           // graph outputs, in order
  std::vector<ValueId> captures;          // subgraphs only: values read from the enclosing graph

  // Adds a value; fails if the name is taken.
  StatusOr<ValueId> AddValue(Value v);
  // Adds a value under a fresh name derived from `base`.
  ValueId AddUniqueValue(const std::string& base, DataType dtype = DataType::kUndefined);
  // Adds a node and records it as the producer of its outputs.
  NodeId AddNode(Node n);
  ValueId FindValue(const std::string& name) const;

  Value& value(ValueId id) { return values_[id.index]; }
  const Value& value(ValueId id) const { return values_[id.index]; }
  Node& node(NodeId id) { return nodes_[id.index]; }
  const Node& node(NodeId id) const { return nodes_[id.index]; }
  size_t num_values() const { return values_.size(); }
  size_t num_nodes() const { return nodes_.size(); }
  size_t num_live_nodes() const;

  // Live nodes reading `v`, each once.
  std::vector<NodeId> Consumers(ValueId v) const;
  bool IsGraphOutput(ValueId v) const;
  bool IsConstant(ValueId v) const { return v.valid() && values_[v.index].constant.has_value(); }
  const Tensor* ConstantOf(ValueId v) const { return IsConstant(v) ? &*values_[v.index].constant : nullptr; }

  // Marks a node erased; its outputs lose their producer.
  void EraseNode(NodeId id);
  // Rewires every live node input reading `from` to read `to`.
  void ReplaceAllUses(ValueId from, ValueId to);
  // Drops erased nodes and values nothing refers to. Invalidates ids.
  void Compact();

  // Structure checks: every input defined, every value produced once, no cycles,
  // graph inputs/outputs well formed.
  Status Validate() const;
  // Live nodes in an order where producers come before consumers.
  StatusOr<std::vector<NodeId>> TopologicalOrder() const;

  // "node 'mul_1' (#14, Mul)" for error messages.
  std::string NodeLabel(NodeId id) const;
  // "file: node ...: " prefix for an error about a node.
  Status NodeError(NodeId id, const Status& s) const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::unordered_map<std::string, uint32_t> by_name_;
};

}  // namespace qrt
