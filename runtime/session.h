// A Session runs a CompiledModel: it owns the activation arena and the tensor
// views into it. Cheap to create; use one per thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/model.h"

namespace qrt {

class Session {
 public:
  explicit Session(std::shared_ptr<const CompiledModel> model);

  // Runs with `inputs` in graph-input order. Inputs are read in place (not copied) and
  // must stay alive during the call. On success `outputs` holds views of the results,
  // valid until the next Run or the session's end.
  Status Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);

  // Makes later runs deliver graph output `k` into the caller's `data` (`bytes` long,
  // which Run checks against the output's size). The kernel writes there directly when
  // the buffer is 64-byte aligned and the output is computed into the arena; otherwise
  // the result is copied there. Run's `outputs[k]` then views `data`. A null `data`
  // unbinds. Fails if `k` is out of range.
  Status SetOutputBuffer(size_t k, void* data, size_t bytes);

  const CompiledModel& model() const { return *model_; }
  size_t arena_bytes() const { return plan_ ? plan_->arena_bytes : 0; }

 private:
  Status Bind(std::shared_ptr<const Plan> plan);
  Status RunSteps();

  std::shared_ptr<const CompiledModel> model_;
  std::shared_ptr<const Plan> plan_;
  std::shared_ptr<void> arena_;
  std::vector<Tensor> tensors_;                  // one view per value
  std::vector<std::vector<const Tensor*>> step_inputs_;
  std::vector<std::vector<Tensor*>> step_outputs_;
  struct OutputBuffer {
    void* data = nullptr;
    size_t bytes = 0;
  };
  std::vector<OutputBuffer> output_buffers_;     // by graph-output index
};

}  // namespace qrt
