// Helpers for the end-to-end tests on real models: the step of a graph output's quantizer
// and errors measured in those steps. Header-only (the test target compiles *_test.cc only).
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace qrt::testing {

// One output quantization step per element: step[0] for the whole tensor (axis < 0), or
// step[c] for index c along `axis`.
struct OutputStep {
  std::vector<double> step;
  int64_t axis = -1;
  std::string how;  // e.g. "DequantizeLinear 'output_DequantizeLinear' scale 0.0537619"
  double At(const Dims& dims, int64_t i) const {
    if (axis < 0) return step[0];
    int64_t inner = 1;
    for (size_t d = size_t(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
    return step[size_t((i / inner) % dims[size_t(axis)])];
  }
};

// The step of graph output `k`: the scale of the DequantizeLinear that produces it (through
// Identity, or through Transpose/Reshape/Squeeze/Unsqueeze/Flatten when the scale is per
// tensor), or, for a BatchNormalization of a per-tensor DequantizeLinear (the QOperator
// MobileFaceNet's last node), scale * |gamma_c| / sqrt(var_c + epsilon) per channel.
// Returns an empty step when the output has no such quantizer.
inline OutputStep FindOutputStep(const Graph& g, size_t k) {
  OutputStep none;
  ValueId v = g.outputs[k];
  bool reshaped = false;
  for (int hops = 0; hops < 8; ++hops) {
    const NodeId p = g.value(v).producer;
    if (!p.valid()) return none;
    const Node& n = g.node(p);
    if (n.op_type == "Identity" || n.op_type == "Transpose" || n.op_type == "Reshape" || n.op_type == "Squeeze" ||
        n.op_type == "Unsqueeze" || n.op_type == "Flatten") {
      reshaped = reshaped || n.op_type != "Identity";
      v = n.inputs[0];
      continue;
    }
    if (n.op_type == "DequantizeLinear") {
      const Tensor* s = g.ConstantOf(n.inputs[1]);
      if (s == nullptr) return none;
      OutputStep out;
      for (int64_t i = 0; i < s->numel(); ++i) out.step.push_back(std::fabs(s->GetAsDouble(i)));
      if (s->numel() != 1) {
        if (reshaped) return none;
        auto axis = n.attrs.GetInt("axis", 1);
        const int64_t rank = g.value(n.inputs[0]).shape ? int64_t(g.value(n.inputs[0]).shape->size()) : -1;
        if (!axis.ok() || (*axis < 0 && rank < 0)) return none;
        out.axis = *axis < 0 ? *axis + rank : *axis;
      }
      out.how = "DequantizeLinear '" + n.name + "' scale " + std::to_string(out.step[0]);
      return out;
    }
    if (n.op_type == "BatchNormalization" && !reshaped) {
      const NodeId dq = g.value(n.inputs[0]).producer;
      if (!dq.valid() || g.node(dq).op_type != "DequantizeLinear") return none;
      const Tensor* s = g.ConstantOf(g.node(dq).inputs[1]);
      const Tensor* gamma = g.ConstantOf(n.inputs[1]);
      const Tensor* var = g.ConstantOf(n.inputs[4]);
      auto eps = n.attrs.GetFloat("epsilon", 1e-5f);
      if (!s || s->numel() != 1 || !gamma || !var || !eps.ok()) return none;
      OutputStep out;
      out.axis = 1;
      for (int64_t c = 0; c < gamma->numel(); ++c) {
        out.step.push_back(std::fabs(s->GetAsDouble(0)) * std::fabs(gamma->GetAsDouble(c)) /
                           std::sqrt(var->GetAsDouble(c) + double(*eps)));
      }
      out.how = "BatchNormalization '" + n.name + "' of DequantizeLinear '" + g.node(dq).name + "' scale " +
                std::to_string(s->GetAsDouble(0)) + ", per-channel steps";
      return out;
    }
    return none;
  }
  return none;
}

// Mean and maximum of |got - want| / step over all elements (float tensors of equal dims).
struct StepError {
  double mean = 0, max = 0;
  int64_t over_one = 0;  // elements more than one step (+1e-3 slack) apart
};
inline StepError ErrorInSteps(const Tensor& got, const Tensor& want, const OutputStep& step) {
  StepError e;
  const int64_t n = want.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double d = std::fabs(got.GetAsDouble(i) - want.GetAsDouble(i)) / step.At(want.dims(), i);
    e.mean += d;
    if (d > e.max) e.max = d;
    if (d > 1.001) ++e.over_one;
  }
  if (n > 0) e.mean /= double(n);
  return e;
}

}  // namespace qrt::testing
