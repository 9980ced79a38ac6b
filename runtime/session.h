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
  // The same for graphs whose inputs or outputs may be sequences or optionals (a sequence's
  // items are read, not copied, and must not change during the call).
  Status Run(const std::vector<RunValue>& inputs, std::vector<RunValue>* outputs);

  // Makes later runs deliver graph output `k` into the caller's `data` (`bytes` long,
  // which Run checks against the output's size). The kernel writes there directly when
  // the buffer is 64-byte aligned and the output is computed into the arena; otherwise
  // the result is copied there. Run's `outputs[k]` then views `data`. A null `data`
  // unbinds. Fails if `k` is out of range.
  Status SetOutputBuffer(size_t k, void* data, size_t bytes);

  const CompiledModel& model() const { return *model_; }
  size_t arena_bytes() const { return plan_ ? plan_->arena_bytes : 0; }

  // Per-node timing. While on, every successful run adds each step's wall time to its
  // counter. Turning it on, and any change of plan (new input shapes), zeroes the counters;
  // turning it off keeps them.
  void SetProfiling(bool on);
  struct StepTime {
    NodeId node;
    uint64_t total_ns = 0;
  };
  // One per step, in execution order; empty while profiling has been off since the last plan.
  const std::vector<StepTime>& step_times() const { return step_times_; }
  uint64_t profiled_runs() const { return profiled_runs_; }

 private:
  Status Bind(std::shared_ptr<const Plan> plan);
  Status RunStep(size_t s);
  Status RunStepPreparedAtRun(size_t s);
  Status PrepareAtRun(size_t s);
  Status RunSteps();
  Status RunStepsTimed();
  void ResetProfile();

  std::shared_ptr<const CompiledModel> model_;
  std::shared_ptr<const Plan> plan_;
  std::shared_ptr<void> arena_;
  std::vector<Tensor> tensors_;  // one view per value
  // What a kDynamic value holds this run (its tensor, if any, is in tensors_).
  struct DynamicValue {
    ValueKind kind = ValueKind::kTensor;
    std::shared_ptr<const Sequence> sequence;
    std::shared_ptr<const QuantGrid> grid;
  };
  std::vector<DynamicValue> dynamic_;  // by value
  // A step prepared at run time: its kernel, kept while its inputs keep their dtypes and dims,
  // unless its prepare reads their values (then it is prepared on each run).
  struct RunTimePrepared {
    Kernel kernel;
    std::vector<TensorInfo> outputs;
    std::vector<DataType> input_dtypes;
    std::vector<Dims> input_dims;
    bool needs_values = false;
    bool each_run = false;
  };
  std::vector<RunTimePrepared> prepared_at_run_;  // by step
  std::vector<std::vector<const Tensor*>> step_inputs_;
  std::vector<std::vector<Tensor*>> step_outputs_;
  struct OutputBuffer {
    void* data = nullptr;
    size_t bytes = 0;
  };
  std::vector<OutputBuffer> output_buffers_;  // by graph-output index
  bool profiling_ = false;
  std::vector<StepTime> step_times_;  // by step, while profiling
  std::vector<uint64_t> run_ns_;      // the current run's times, added on success
  uint64_t profiled_runs_ = 0;
};

}  // namespace qrt
