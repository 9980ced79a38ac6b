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
      case Storage::kDynamic:
      case Storage::kNone:
        break;
    }
  }
  dynamic_.assign(plan->values.size(), DynamicValue{});
  prepared_at_run_.assign(plan->steps.size(), RunTimePrepared{});
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
  std::vector<RunValue> values;
  values.reserve(inputs.size());
  for (const Tensor& t : inputs) values.push_back(RunValue::Of(t));
  std::vector<RunValue> results;
  QRT_RETURN_IF_ERROR(Run(values, &results));
  outputs->clear();
  const Graph& graph = model_->graph();
  for (size_t k = 0; k < results.size(); ++k) {
    if (results[k].kind != ValueKind::kTensor) {
      return InvalidArgument(graph.source.empty() ? "model" : graph.source, ": output '",
                             graph.value(graph.outputs[k]).name, "' is ", ValueKindName(results[k].kind),
                             ", not a tensor");
    }
    outputs->push_back(std::move(results[k].tensor));
  }
  return Status::Ok();
}

namespace {

// A bound input against its declared kind (and a sequence's items against its element type).
Status CheckInputKind(const Value& declared, const RunValue& given) {
  bool ok = false;
  switch (declared.kind) {
    case DeclaredKind::kTensor:
      ok = given.kind == ValueKind::kTensor;
      break;
    case DeclaredKind::kSequence:
      ok = given.kind == ValueKind::kSequence;
      break;
    case DeclaredKind::kOptionalTensor:
      ok = given.kind != ValueKind::kSequence;
      break;
    case DeclaredKind::kOptionalSequence:
      ok = given.kind != ValueKind::kTensor;
      break;
  }
  if (!ok) return InvalidArgument("input '", declared.name, "' was given ", ValueKindName(given.kind));
  if (given.kind == ValueKind::kSequence) {
    if (given.sequence == nullptr) return InvalidArgument("input '", declared.name, "' has no sequence");
    for (const Tensor& item : given.sequence->items) {
      if (item.dtype() != given.sequence->dtype || (item.raw() == nullptr && item.numel() != 0)) {
        return InvalidArgument("input '", declared.name, "': a sequence item is not ",
                               DataTypeName(given.sequence->dtype), " with data");
      }
    }
    if (declared.dtype != DataType::kUndefined && declared.dtype != given.sequence->dtype) {
      return InvalidArgument("input '", declared.name, "' must be a sequence of ", DataTypeName(declared.dtype),
                             ", got ", DataTypeName(given.sequence->dtype));
    }
  }
  return Status::Ok();
}

}  // namespace

Status Session::Run(const std::vector<RunValue>& inputs, std::vector<RunValue>* outputs) {
  const ScopedThreads threads(model_->plan_options().threads);  // for oneDNN and ParallelFor
  const Graph& graph = model_->graph();
  const std::string where = graph.source.empty() ? "model" : graph.source;
  if (inputs.size() != graph.inputs.size()) {
    return InvalidArgument(where, ": the model has ", graph.inputs.size(), " inputs, ", inputs.size(), " given");
  }
  // The plan is chosen by the tensor inputs; an input declared a sequence or an optional is
  // bound at run time whatever it holds.
  std::vector<Tensor> keys(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& declared = graph.value(graph.inputs[i]);
    QRT_RETURN_IF_ERROR(CheckInputKind(declared, inputs[i]).WithContext(where));
    if (declared.kind != DeclaredKind::kTensor) continue;
    const Tensor& t = inputs[i].tensor;
    QRT_RETURN_IF_ERROR(CheckInputMatches(graph, i, t.dtype(), t.dims()).WithContext(where));
    if (t.raw() == nullptr && t.numel() != 0) {
      return InvalidArgument(where, ": input '", declared.name, "' has no data");
    }
    keys[i] = t;
  }
  if (plan_ == nullptr || !PlanMatches(*plan_, keys)) {
    QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, model_->PlanFor(keys));
    QRT_RETURN_IF_ERROR(Bind(std::move(plan)));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (plan_->input_values[i]) continue;  // the plan holds this input's value
    const uint32_t v = graph.inputs[i].index;
    Tensor& slot = tensors_[v];
    const Tensor& t = inputs[i].tensor;
    if (plan_->values[v].storage == Storage::kDynamic) {
      dynamic_[v] = DynamicValue{inputs[i].kind, inputs[i].sequence, nullptr};
      slot = inputs[i].kind == ValueKind::kTensor ? Tensor::Borrow(t.dtype(), t.dims(), const_cast<void*>(t.raw()))
                                                  : Tensor();
    } else if (slot.dtype() == t.dtype() && slot.dims() == t.dims()) {
      slot.set_data(const_cast<void*>(t.raw()));  // kernels never write their inputs
    } else {
      slot = Tensor::Borrow(t.dtype(), t.dims(), const_cast<void*>(t.raw()));
    }
  }
  // Redirect bound arena outputs to the caller's buffers for this run only.
  std::vector<uint32_t> redirected;
  for (size_t k = 0; k < output_buffers_.size(); ++k) {
    const OutputBuffer& buf = output_buffers_[k];
    const uint32_t v = graph.outputs[k].index;
    if (buf.data == nullptr || plan_->values[v].storage == Storage::kDynamic) continue;  // checked after the run
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
    const uint32_t v = graph.outputs[k].index;
    const Tensor& t = tensors_[v];
    const bool dynamic = plan_->values[v].storage == Storage::kDynamic;
    if (dynamic && dynamic_[v].kind != ValueKind::kTensor) {
      outputs->push_back(dynamic_[v].kind == ValueKind::kSequence ? RunValue::Of(dynamic_[v].sequence)
                                                                  : RunValue::None());
      continue;
    }
    const OutputBuffer* buf = k < output_buffers_.size() && output_buffers_[k].data ? &output_buffers_[k] : nullptr;
    if (buf == nullptr) {
      outputs->push_back(RunValue::Of(t));
      continue;
    }
    if (buf->bytes != t.nbytes()) {
      return InvalidArgument(where, ": output '", graph.value(graph.outputs[k]).name, "' is ", DataTypeName(t.dtype()),
                             DimsToString(t.dims()), ", ", t.nbytes(), " bytes; its bound buffer has ", buf->bytes);
    }
    const bool written_in_place = std::find(redirected.begin(), redirected.end(), v) != redirected.end();
    if (!written_in_place && buf->bytes != 0) std::memcpy(buf->data, t.raw(), buf->bytes);
    outputs->push_back(RunValue::Of(Tensor::Borrow(t.dtype(), t.dims(), buf->data)));
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
  if (step.prepared_at_run) return RunStepPreparedAtRun(s);
  RunArgs args{step_inputs_[s].data(), step_outputs_[s].data(), int(step_inputs_[s].size()),
               int(step_outputs_[s].size())};
  Status st = step.kernel.run(step.kernel.state.get(), args);
  if (!st.ok()) return model_->graph().NodeError(step.node, st);
  return Status::Ok();
}

// Prepares a step on what its inputs hold now: first without their values, so that a kernel
// that does not read them at plan time serves every later run with the same dtypes and dims;
// a prepare that asks for them (a data-dependent shape) or handles sequences runs each time.
Status Session::PrepareAtRun(size_t s) {
  const PlanStep& step = plan_->steps[s];
  const Graph& graph = model_->graph();
  const Node& node = graph.node(step.node);
  RunTimePrepared& cache = prepared_at_run_[s];
  std::vector<TensorInfo> infos(step.inputs.size());
  bool non_tensor = false;
  for (size_t i = 0; i < step.inputs.size(); ++i) {
    const uint32_t v = step.inputs[i];
    if (v == ValueId::kInvalid) continue;
    TensorInfo& info = infos[i];
    const PlannedValue& pv = plan_->values[v];
    if (pv.storage != Storage::kDynamic) {
      info.dtype = pv.dtype;
      info.dims = pv.dims;
      info.grid = pv.grid;
      if (pv.storage == Storage::kConstant) info.value = pv.constant;
      continue;
    }
    const DynamicValue& d = dynamic_[v];
    info.kind = d.kind;
    info.grid = d.grid;
    if (d.kind == ValueKind::kTensor) {
      info.dtype = tensors_[v].dtype();
      info.dims = tensors_[v].dims();
    } else if (d.kind == ValueKind::kSequence) {
      info.dtype = d.sequence->dtype;
      info.sequence = d.sequence;
    }
    non_tensor = non_tensor || d.kind != ValueKind::kTensor;
  }
  bool reuse = cache.kernel.run != nullptr && !cache.each_run;
  for (size_t i = 0; reuse && i < infos.size(); ++i) {
    reuse = infos[i].dtype == cache.input_dtypes[i] && infos[i].dims == cache.input_dims[i];
  }
  if (reuse) return Status::Ok();
  cache.input_dtypes.clear();
  cache.input_dims.clear();
  for (const TensorInfo& info : infos) {
    cache.input_dtypes.push_back(info.dtype);
    cache.input_dims.push_back(info.dims);
  }
  Status prepared(StatusCode::kNeedsKnownValue, "");
  std::unique_ptr<PrepareContext> ctx;
  if (!cache.needs_values) {
    ctx = std::make_unique<PrepareContext>(node, infos, model_->plan_options());
    prepared = node.def->prepare(*ctx);
  }
  if (prepared.code() == StatusCode::kNeedsKnownValue) {
    cache.needs_values = true;
    for (size_t i = 0; i < infos.size(); ++i) {
      const uint32_t v = step.inputs[i];
      if (v != ValueId::kInvalid && infos[i].kind == ValueKind::kTensor && infos[i].dtype != DataType::kUndefined) {
        infos[i].value = &tensors_[v];
      }
    }
    ctx = std::make_unique<PrepareContext>(node, std::move(infos), model_->plan_options());
    prepared = node.def->prepare(*ctx);
  }
  if (!prepared.ok()) return graph.NodeError(step.node, prepared);
  cache.kernel = ctx->TakeKernel();
  cache.outputs.clear();
  for (int o = 0; o < ctx->num_outputs(); ++o) {
    cache.outputs.push_back(ctx->output(o));
    non_tensor = non_tensor || ctx->output(o).kind != ValueKind::kTensor;
  }
  cache.each_run = cache.needs_values || non_tensor;
  return Status::Ok();
}

Status Session::RunStepPreparedAtRun(size_t s) {
  QRT_RETURN_IF_ERROR(PrepareAtRun(s));
  const PlanStep& step = plan_->steps[s];
  const Graph& graph = model_->graph();
  const RunTimePrepared& prepared = prepared_at_run_[s];
  bool writes_tensor = false;
  for (size_t o = 0; o < step.outputs.size(); ++o) {
    const uint32_t v = step.outputs[o];
    if (v == ValueId::kInvalid) continue;
    const TensorInfo& info = prepared.outputs[o];
    dynamic_[v] = DynamicValue{info.kind, info.sequence, info.grid};
    if (info.kind != ValueKind::kTensor) {
      tensors_[v] = Tensor();
      continue;
    }
    if (info.dtype == DataType::kUndefined) {
      return graph.NodeError(step.node, Internal("prepare left output ", o, " without a dtype"));
    }
    Status checked = CheckedElementCount(info.dims, DataTypeSize(info.dtype)).status();
    if (checked.ok()) checked = CheckDeclaredOutput(graph.value(ValueId{v}), info.dtype, info.dims);
    if (!checked.ok()) return graph.NodeError(step.node, checked.WithContext(StrCat("output ", o)));
    Tensor& slot = tensors_[v];
    if (slot.dtype() != info.dtype || slot.dims() != info.dims) {
      QRT_ASSIGN_OR_RETURN(slot, Tensor::Allocate(info.dtype, info.dims));
    }
    writes_tensor = true;
  }
  if (prepared.kernel.run == nullptr) {
    if (writes_tensor) return graph.NodeError(step.node, Internal("prepare set no kernel"));
    return Status::Ok();
  }
  RunArgs args{step_inputs_[s].data(), step_outputs_[s].data(), int(step_inputs_[s].size()),
               int(step_outputs_[s].size())};
  Status st = prepared.kernel.run(prepared.kernel.state.get(), args);
  if (!st.ok()) return graph.NodeError(step.node, st);
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
