#include "runtime/session.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "runtime/parallel.h"

namespace qrt {

Session::Session(std::shared_ptr<const CompiledModel> model) : model_(std::move(model)) {}

Status Session::Bind(std::shared_ptr<const Plan> plan) {
  size_t bytes = plan->arena_bytes == 0 ? 64 : plan->arena_bytes;
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (p == nullptr) return ResourceExhausted("cannot allocate an arena of ", bytes, " bytes");
  arena_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  tensors_.assign(plan->values.size(), Tensor());
  for (size_t v = 0; v < plan->values.size(); ++v) {
    const PlannedValue& pv = plan->values[v];
    switch (pv.storage) {
      case Storage::kConstant:
        tensors_[v] = *pv.constant;
        break;
      case Storage::kArena:
        tensors_[v] = Tensor::Borrow(pv.dtype, pv.dims, static_cast<char*>(p) + pv.offset);
        break;
      case Storage::kInput:
      case Storage::kNone:
        break;
    }
  }
  step_inputs_.clear();
  step_outputs_.clear();
  for (const PlanStep& step : plan->steps) {
    std::vector<const Tensor*> ins;
    for (uint32_t v : step.inputs) ins.push_back(v == ValueId::kInvalid ? nullptr : &tensors_[v]);
    std::vector<Tensor*> outs;
    for (uint32_t v : step.outputs) outs.push_back(v == ValueId::kInvalid ? nullptr : &tensors_[v]);
    step_inputs_.push_back(std::move(ins));
    step_outputs_.push_back(std::move(outs));
  }
  plan_ = std::move(plan);
  ResetProfile();
  return Status::Ok();
}

void Session::SetProfiling(bool on) {
  profiling_ = on;
  if (on) ResetProfile();
}

void Session::ResetProfile() {
  step_times_.clear();
  profiled_runs_ = 0;
  if (!profiling_ || plan_ == nullptr) return;
  for (const PlanStep& step : plan_->steps) step_times_.push_back(StepTime{step.node, 0});
}

Status Session::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  const ScopedThreads threads(model_->plan_options().threads);  // for oneDNN and ParallelFor
  const Graph& graph = model_->graph();
  const std::string where = graph.source.empty() ? "model" : graph.source;
  if (inputs.size() != graph.inputs.size()) {
    return InvalidArgument(where, ": the model has ", graph.inputs.size(), " inputs, ", inputs.size(), " given");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    QRT_RETURN_IF_ERROR(CheckInputMatches(graph, i, inputs[i].dtype(), inputs[i].dims()).WithContext(where));
    if (inputs[i].raw() == nullptr && inputs[i].numel() != 0) {
      return InvalidArgument(where, ": input '", graph.value(graph.inputs[i]).name, "' has no data");
    }
  }
  if (plan_ == nullptr || !PlanMatches(*plan_, inputs)) {
    QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, model_->PlanFor(inputs));
    QRT_RETURN_IF_ERROR(Bind(std::move(plan)));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (plan_->input_values[i]) continue;  // the plan holds this input's value
    Tensor& slot = tensors_[graph.inputs[i].index];
    if (slot.dtype() == inputs[i].dtype() && slot.dims() == inputs[i].dims()) {
      slot.set_data(const_cast<void*>(inputs[i].raw()));  // kernels never write their inputs
    } else {
      slot = Tensor::Borrow(inputs[i].dtype(), inputs[i].dims(), const_cast<void*>(inputs[i].raw()));
    }
  }
  // Redirect bound arena outputs to the caller's buffers for this run only.
  std::vector<uint32_t> redirected;
  for (size_t k = 0; k < output_buffers_.size(); ++k) {
    const OutputBuffer& buf = output_buffers_[k];
    if (buf.data == nullptr) continue;
    const uint32_t v = graph.outputs[k].index;
    const Tensor& t = tensors_[v];
    const size_t bytes = size_t(t.numel()) * DataTypeSize(t.dtype());
    if (buf.bytes != bytes) {
      return InvalidArgument(where, ": output '", graph.value(graph.outputs[k]).name, "' is ", DataTypeName(t.dtype()),
                             DimsToString(t.dims()), ", ", bytes, " bytes; its bound buffer has ", buf.bytes);
    }
    const bool aligned = reinterpret_cast<uintptr_t>(buf.data) % 64 == 0;
    if (plan_->values[v].storage == Storage::kArena && aligned &&
        std::find(redirected.begin(), redirected.end(), v) == redirected.end()) {
      tensors_[v].set_data(buf.data);
      redirected.push_back(v);
    }
  }
  Status status = profiling_ ? RunStepsTimed() : RunSteps();
  for (uint32_t v : redirected) tensors_[v].set_data(static_cast<char*>(arena_.get()) + plan_->values[v].offset);
  if (!status.ok()) return status;
  outputs->clear();
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const Tensor& t = tensors_[graph.outputs[k].index];
    const OutputBuffer* buf = k < output_buffers_.size() && output_buffers_[k].data ? &output_buffers_[k] : nullptr;
    if (buf == nullptr) {
      outputs->push_back(t);
      continue;
    }
    const bool written_in_place =
        std::find(redirected.begin(), redirected.end(), graph.outputs[k].index) != redirected.end();
    if (!written_in_place && buf->bytes != 0) std::memcpy(buf->data, t.raw(), buf->bytes);
    outputs->push_back(Tensor::Borrow(t.dtype(), t.dims(), buf->data));
  }
  return Status::Ok();
}

Status Session::SetOutputBuffer(size_t k, void* data, size_t bytes) {
  const Graph& graph = model_->graph();
  if (k >= graph.outputs.size()) {
    return InvalidArgument("output index ", k, " out of range: the model has ", graph.outputs.size(), " outputs");
  }
  if (output_buffers_.size() < graph.outputs.size()) output_buffers_.resize(graph.outputs.size());
  output_buffers_[k] = OutputBuffer{data, data ? bytes : 0};
  return Status::Ok();
}

Status Session::RunStep(size_t s) {
  const PlanStep& step = plan_->steps[s];
  RunArgs args{step_inputs_[s].data(), step_outputs_[s].data(), int(step_inputs_[s].size()),
               int(step_outputs_[s].size())};
  Status st = step.kernel.run(step.kernel.state.get(), args);
  if (!st.ok()) return model_->graph().NodeError(step.node, st);
  return Status::Ok();
}

Status Session::RunSteps() {
  for (size_t s = 0; s < plan_->steps.size(); ++s) QRT_RETURN_IF_ERROR(RunStep(s));
  return Status::Ok();
}

// RunSteps with a clock read between steps; kept apart so unprofiled runs pay nothing. A run
// that fails adds nothing, so every counter covers the same runs.
Status Session::RunStepsTimed() {
  using Clock = std::chrono::steady_clock;
  if (step_times_.size() != plan_->steps.size()) ResetProfile();
  run_ns_.resize(step_times_.size());
  Clock::time_point start = Clock::now();
  for (size_t s = 0; s < plan_->steps.size(); ++s) {
    QRT_RETURN_IF_ERROR(RunStep(s));
    const Clock::time_point end = Clock::now();
    run_ns_[s] = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    start = end;
  }
  for (size_t s = 0; s < run_ns_.size(); ++s) step_times_[s].total_ns += run_ns_[s];
  ++profiled_runs_;
  return Status::Ok();
}

}  // namespace qrt
