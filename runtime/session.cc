#include "runtime/session.h"

#include <cstdlib>
#include <cstring>

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
      case Storage::kConstant: tensors_[v] = *pv.constant; break;
      case Storage::kArena:
        tensors_[v] = Tensor::Borrow(pv.dtype, pv.dims, static_cast<char*>(p) + pv.offset);
        break;
      case Storage::kInput:
      case Storage::kNone: break;
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
  return Status::Ok();
}

Status Session::Run(const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  const Graph& graph = model_->graph();
  const std::string where = graph.source.empty() ? "model" : graph.source;
  if (inputs.size() != graph.inputs.size()) {
    return InvalidArgument(where, ": the model has ", graph.inputs.size(), " inputs, ", inputs.size(),
                           " given");
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
  const auto& steps = plan_->steps;
  for (size_t s = 0; s < steps.size(); ++s) {
    const PlanStep& step = steps[s];
    RunArgs args{step_inputs_[s].data(), step_outputs_[s].data(), int(step_inputs_[s].size()),
                 int(step_outputs_[s].size())};
    Status st = step.kernel.run(step.kernel.state.get(), args);
    if (!st.ok()) return graph.NodeError(step.node, st);
  }
  outputs->clear();
  for (ValueId out : graph.outputs) outputs->push_back(tensors_[out.index]);
  return Status::Ok();
}

}  // namespace qrt
