// Builds and runs a one-node ONNX-domain graph for op tests: each input is a graph input
// (data) or an initializer (known when the graph is planned), or omitted.
#pragma once

#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/test_util.h"

namespace qrt::testing {

struct NodeArg {
  enum Kind { kData, kKnown, kOmitted };
  Kind kind = kOmitted;
  Tensor value;
};
inline NodeArg Data(Tensor t) { return {NodeArg::kData, std::move(t)}; }
inline NodeArg Known(Tensor t) { return {NodeArg::kKnown, std::move(t)}; }
inline NodeArg Omitted() { return {}; }

// A 1-D int64 tensor: starts, ends, pads, repeats, axes.
inline Tensor I64(std::vector<int64_t> v) {
  const int64_t n = int64_t(v.size());
  return Tensor::FromVector<int64_t>(v, {n});
}

// Runs `op_type` at `opset` with `attrs`; returns its `num_outputs` outputs, or the first
// error (load, plan or run).
inline StatusOr<std::vector<Tensor>> RunSingleNode(const std::string& op_type, int64_t opset,
                                                   const std::vector<NodeArg>& args, const Attributes& attrs,
                                                   int num_outputs = 1, Isa isa = kIsaAuto, int threads = 1) {
  ModelBuilder b("single_node", {{"", opset}}, false);
  NodeSpec node;
  node.name = "n";
  node.op_type = op_type;
  node.attrs = attrs;
  std::vector<Tensor> feeds;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string name = "x" + std::to_string(i);
    switch (args[i].kind) {
      case NodeArg::kOmitted:
        node.inputs.push_back("");
        continue;
      case NodeArg::kKnown:
        QRT_RETURN_IF_ERROR(b.AddInitializer(name, args[i].value.Clone()));
        break;
      case NodeArg::kData:
        QRT_RETURN_IF_ERROR(b.AddInput(name, args[i].value.dtype(), std::nullopt));
        feeds.push_back(args[i].value.Clone());
        break;
    }
    node.inputs.push_back(name);
  }
  for (int o = 0; o < num_outputs; ++o) node.outputs.push_back("y" + std::to_string(o));
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(node)));
  for (int o = 0; o < num_outputs; ++o) {
    QRT_RETURN_IF_ERROR(b.AddOutput("y" + std::to_string(o), DataType::kUndefined, std::nullopt));
  }
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  return RunGraph(std::move(g), feeds, "none", isa, threads);
}

// Attributes holding just {"axis": axis}.
inline Attributes AxisAttr(int64_t axis) {
  Attributes a;
  a.Set("axis", axis);
  return a;
}

template <class T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

}  // namespace qrt::testing
