// Builds a Graph from loader-neutral node descriptions. Both loaders use it, so names,
// ops, input counts and Constant nodes are resolved the same way for ONNX and JSON.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace qrt {

inline constexpr int kMaxSubgraphDepth = 8;
inline constexpr size_t kMaxNodes = 1 << 20;
inline constexpr size_t kMaxValues = 1 << 22;

struct NodeSpec {
  std::string name;
  std::optional<std::string> domain;  // nullopt: ONNX default domain first, then qrt's own
  std::string op_type;
  std::vector<std::string> inputs;    // "" is an omitted optional input
  std::vector<std::string> outputs;
  Attributes attrs;
};

class ModelBuilder {
 public:
  // `opsets` maps a domain ("" for ONNX) to its imported version. In a subgraph,
  // names defined nowhere are captures from the enclosing graph. A node with graph
  // attributes gets their captures appended to its inputs (see ImplicitInputNames).
  ModelBuilder(std::string source, std::map<std::string, int64_t> opsets, bool is_subgraph);

  void SetName(const std::string& name) { graph_.name = name; }
  Status AddInitializer(const std::string& name, Tensor t);
  bool HasInitializer(const std::string& name) const;
  Status AddInput(const std::string& name, DataType dtype, std::optional<Shape> shape);
  Status AddNode(NodeSpec spec);
  Status AddOutput(const std::string& name, DataType dtype, std::optional<Shape> shape);
  // Resolves names and ops, and validates the result.
  StatusOr<Graph> Finish();

 private:
  Status Err(const NodeSpec& spec, size_t index, const Status& s) const;
  int64_t OpsetOf(const std::string& domain) const;

  std::string source_;
  std::map<std::string, int64_t> opsets_;
  bool is_subgraph_;
  Graph graph_;
  std::vector<NodeSpec> nodes_;
  struct OutputDecl {
    std::string name;
    DataType dtype;
    std::optional<Shape> shape;
  };
  std::vector<OutputDecl> outputs_;
};

}  // namespace qrt
