// One-node graphs for the Conv/MatMul-family op tests (conv_test.cc, matmul_test.cc):
// build, compile with a chosen ISA, run; random tensors. Kept in its own namespace.
#pragma once

#include <random>
#include <string>
#include <vector>

#include "ops/registry.h"
#include "tests/test_util.h"

namespace qrt::testing::linalg {

// One node input: a tensor fed at run time, a constant (initializer), or omitted.
struct NodeInput {
  enum Kind { kRuntime, kConstant, kOmitted } kind = kRuntime;
  Tensor value;
};
inline NodeInput Runtime(Tensor t) { return {NodeInput::kRuntime, std::move(t)}; }
inline NodeInput Const(Tensor t) { return {NodeInput::kConstant, std::move(t)}; }

// A graph of one op_type node (default domain, opset 13) with output "y", and the
// tensors to feed its runtime inputs.
struct NodeGraph {
  Graph graph;
  std::vector<Tensor> feeds;
};

inline StatusOr<NodeGraph> BuildNode(const std::string& op_type, const std::vector<NodeInput>& inputs,
                                     const Attributes& attrs) {
  NodeGraph ng;
  Graph& g = ng.graph;
  g.opsets[""] = 13;
  Node n;
  n.name = "node";
  n.op_type = op_type;
  n.opset = 13;
  n.attrs = attrs;
  n.def = FindOp("", op_type);
  if (n.def == nullptr) return NotFound("op ", op_type);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].kind == NodeInput::kOmitted) {
      n.inputs.push_back(ValueId{});
      continue;
    }
    Value v;
    v.name = "in" + std::to_string(i);
    v.dtype = inputs[i].value.dtype();
    v.shape = ShapeFromDims(inputs[i].value.dims());
    if (inputs[i].kind == NodeInput::kConstant) v.constant = inputs[i].value.Clone();
    QRT_ASSIGN_OR_RETURN(ValueId id, g.AddValue(std::move(v)));
    if (inputs[i].kind == NodeInput::kRuntime) {
      g.inputs.push_back(id);
      ng.feeds.push_back(inputs[i].value);
    }
    n.inputs.push_back(id);
  }
  Value y;
  y.name = "y";
  QRT_ASSIGN_OR_RETURN(ValueId yid, g.AddValue(std::move(y)));
  n.outputs.push_back(yid);
  g.outputs.push_back(yid);
  g.AddNode(std::move(n));
  return ng;
}

// Builds, compiles (no passes, max ISA `isa`, the convolution algorithm forced if named) and runs
// the node; returns output 0.
inline StatusOr<Tensor> RunNode(const std::string& op_type, const std::vector<NodeInput>& inputs,
                                const Attributes& attrs, Isa isa, const std::string& conv_algorithm = "") {
  QRT_ASSIGN_OR_RETURN(NodeGraph ng, BuildNode(op_type, inputs, attrs));
  QRT_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                       RunGraph(std::move(ng.graph), ng.feeds, "none", isa, 1, conv_algorithm));
  return std::move(out[0]);
}

// Uniform random tensor: integers in [lo, hi] or floats in [lo, hi).
inline Tensor RandomTensor(DataType dt, const Dims& dims, double lo, double hi, std::mt19937& rng) {
  Tensor t = Tensor::Allocate(dt, dims).value();
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dt) {
      case DataType::kFloat32:
        t.data<float>()[i] = std::uniform_real_distribution<float>(float(lo), float(hi))(rng);
        break;
      case DataType::kUInt8:
        t.data<uint8_t>()[i] = uint8_t(std::uniform_int_distribution<int>(int(lo), int(hi))(rng));
        break;
      case DataType::kInt8:
        t.data<int8_t>()[i] = int8_t(std::uniform_int_distribution<int>(int(lo), int(hi))(rng));
        break;
      case DataType::kInt32:
        t.data<int32_t>()[i] = std::uniform_int_distribution<int32_t>(int32_t(lo), int32_t(hi))(rng);
        break;
      default:
        break;
    }
  }
  return t;
}

// A float32 tensor widened to float64 (exactly).
inline Tensor ToDouble(const Tensor& f) {
  Tensor t = Tensor::Allocate(DataType::kFloat64, f.dims()).value();
  for (int64_t i = 0; i < f.numel(); ++i) t.data<double>()[i] = double(f.data<float>()[i]);
  return t;
}

template <class T>
Tensor Scalar(T v) {
  return Tensor::FromVector<T>({v}, {});
}

}  // namespace qrt::testing::linalg
