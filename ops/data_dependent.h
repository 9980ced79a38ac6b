// Ops whose output shapes depend on their inputs' values (NonZero, Compress, Unique,
// NonMaxSuppression). Their prepare needs those values (kNeedsKnownValue otherwise: the node is
// then prepared at run time, on the values it has, runtime/plan.h's kStaged), computes the outputs there and
// hands them to a kernel that copies them out when the plan runs the node.
#pragma once

#include <cstring>
#include <utility>
#include <vector>

#include "runtime/op_def.h"

namespace qrt {

struct ComputedOutputs {
  std::vector<Tensor> outputs;  // one per node output (undefined dtype: an omitted output)
};

inline Status RunComputedOutputs(const ComputedOutputs& c, const RunArgs& args) {
  for (size_t i = 0; i < c.outputs.size(); ++i) {
    if (args.output(int(i)) == nullptr || c.outputs[i].dtype() == DataType::kUndefined) continue;
    if (c.outputs[i].nbytes() > 0) std::memcpy(args.output(int(i))->raw(), c.outputs[i].raw(), c.outputs[i].nbytes());
  }
  return Status::Ok();
}

// Declares the outputs and sets the kernel that writes them.
inline void SetComputedOutputs(PrepareContext& ctx, std::vector<Tensor> outputs) {
  for (size_t i = 0; i < outputs.size() && int(i) < ctx.num_outputs(); ++i) {
    ctx.SetOutput(int(i), outputs[i].dtype(), outputs[i].dims());
  }
  ctx.SetKernel<ComputedOutputs, RunComputedOutputs>(ComputedOutputs{std::move(outputs)});
}

// Outputs of any kind: tensors as SetComputedOutputs, sequences and empty optionals as such.
inline void SetComputedValues(PrepareContext& ctx, std::vector<RunValue> values) {
  std::vector<Tensor> tensors;
  for (RunValue& v : values) tensors.push_back(v.kind == ValueKind::kTensor ? std::move(v.tensor) : Tensor());
  SetComputedOutputs(ctx, std::move(tensors));
  for (size_t i = 0; i < values.size() && int(i) < ctx.num_outputs(); ++i) {
    if (values[i].kind == ValueKind::kSequence) ctx.SetOutputSequence(int(i), values[i].sequence);
    if (values[i].kind == ValueKind::kNone) ctx.SetOutputNone(int(i));
  }
}

inline Status RunCopyInput(const RunArgs& args) {
  const Tensor& x = *args.input(0);
  if (x.nbytes() > 0 && args.output(0)->raw() != x.raw()) std::memcpy(args.output(0)->raw(), x.raw(), x.nbytes());
  return Status::Ok();
}

// Output 0 holds what input 0 holds: a tensor (copied by the kernel), a sequence, or nothing
// (Identity, Optional, OptionalGetElement).
inline Status ForwardInput(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.kind == ValueKind::kSequence) {
    ctx.SetOutputSequence(0, x.sequence);
  } else if (x.kind == ValueKind::kNone) {
    ctx.SetOutputNone(0);
  } else {
    ctx.SetOutput(0, x.dtype, x.dims);
    ctx.SetKernel<RunCopyInput>();
  }
  return Status::Ok();
}

}  // namespace qrt
