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
// Entries of one list attribute (ints, floats, strings) and bytes of one string
// attribute. Real models stay far below; the cap bounds what one attribute can cost.
inline constexpr size_t kMaxAttributeElements = size_t(1) << 24;

// ResourceExhausted naming the attribute if `count` is over kMaxAttributeElements.
Status CheckAttributeSize(const std::string& name, size_t count, const char* what);

struct NodeSpec {
  std::string name;
  std::optional<std::string> domain;  // nullopt: ONNX default domain first, then qrt's own
  std::string op_type;
  std::vector<std::string> inputs;  // "" is an omitted optional input
  std::vector<std::string> outputs;
  Attributes attrs;
};

// Counts a builder refuses to exceed. Loaders use the defaults; tests lower them to
// reach the checks without building millions of nodes.
struct BuilderLimits {
  size_t max_nodes = kMaxNodes;
  size_t max_values = kMaxValues;
};

class ModelBuilder {
 public:
  // `opsets` maps a domain ("" for ONNX) to its imported version. In a subgraph,
  // names defined nowhere are captures from the enclosing graph. A node with graph
  // attributes gets their captures appended to its inputs (see ImplicitInputNames).
  ModelBuilder(std::string source, std::map<std::string, int64_t> opsets, bool is_subgraph, BuilderLimits limits = {});

  void SetName(const std::string& name) { graph_.name = name; }
  Status AddInitializer(const std::string& name, Tensor t);
  bool HasInitializer(const std::string& name) const;
  Status AddInput(const std::string& name, DataType dtype, std::optional<Shape> shape,
                  DeclaredKind kind = DeclaredKind::kTensor);
  Status AddNode(NodeSpec spec);
  Status AddOutput(const std::string& name, DataType dtype, std::optional<Shape> shape,
                   DeclaredKind kind = DeclaredKind::kTensor);
  // Resolves names and ops, and validates the result.
  StatusOr<Graph> Finish();

 private:
  Status Err(const NodeSpec& spec, size_t index, const Status& s) const;
  Status CheckValueCount() const;
  int64_t OpsetOf(const std::string& domain) const;

  std::string source_;
  std::map<std::string, int64_t> opsets_;
  bool is_subgraph_;
  BuilderLimits limits_;
  Graph graph_;
  std::vector<NodeSpec> nodes_;
  struct OutputDecl {
    std::string name;
    DataType dtype;
    std::optional<Shape> shape;
    DeclaredKind kind;
  };
  std::vector<OutputDecl> outputs_;
};

}  // namespace qrt
