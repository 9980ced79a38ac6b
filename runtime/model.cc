#include "runtime/model.h"

#include "passes/pass_manager.h"
#include "runtime/parallel.h"

namespace qrt {

StatusOr<std::shared_ptr<const Plan>> CompiledModel::PlanFor(const std::vector<Tensor>& inputs) const {
  if (default_plan_ && PlanMatches(*default_plan_, inputs)) return default_plan_;
  std::vector<Dims> dims;
  for (const Tensor& t : inputs) dims.push_back(t.dims());
  StatusOr<std::shared_ptr<const Plan>> plan = BuildPlan(graph_, order_, dims, plan_options_);
  if (plan.ok() || plan.status().code() != StatusCode::kNeedsKnownValue) return plan;
  constexpr int64_t kMaxSpecialisedElements = 64;
  std::vector<const Tensor*> values(inputs.size(), nullptr);
  bool any = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    // Shapes, axes, pads, Resize scales, Clip bounds (of the data's dtype) fed as graph inputs.
    if (inputs[i].dtype() != DataType::kUndefined && inputs[i].numel() <= kMaxSpecialisedElements) {
      values[i] = &inputs[i];
      any = true;
    }
  }
  if (any) {
    plan = BuildPlan(graph_, order_, dims, plan_options_, values);
    if (plan.ok() || plan.status().code() != StatusCode::kNeedsKnownValue) return plan;
  }
  // An output shape depends on data the plan cannot know (NonZero, Unique, NonMaxSuppression, a
  // shape computed from an input's values, a sequence...): such nodes, and the nodes that read
  // what they compute, are prepared when they run (docs/design.md, "Data-dependent shapes").
  return BuildPlan(graph_, order_, dims, plan_options_, {}, PlanMode::kStaged);
}

StatusOr<std::shared_ptr<const CompiledModel>> Compile(Graph graph, const CompileOptions& options) {
  auto model = std::shared_ptr<CompiledModel>(new CompiledModel());
  QRT_RETURN_IF_ERROR(graph.Validate());
  QRT_RETURN_IF_ERROR(RunPasses(graph, options.passes, options.validate_after_each_pass, &model->pass_stats_,
                                &model->explanations_, options.patterns));
  QRT_ASSIGN_OR_RETURN(model->order_, graph.TopologicalOrder());
  model->plan_options_.isa = EffectiveIsa(options.max_isa);
  model->plan_options_.threads = options.threads < 1 ? 1 : options.threads;
  model->plan_options_.subgraph_passes = options.passes;
  model->plan_options_.memory_limit = options.memory_limit;
  model->plan_options_.conv_algorithm = options.conv_algorithm;
  model->graph_ = std::move(graph);

  std::vector<Dims> dims;
  bool all_static = true;
  for (ValueId in : model->graph_.inputs) {
    const Value& v = model->graph_.value(in);
    std::optional<Dims> d = v.shape ? StaticDims(*v.shape) : std::nullopt;
    if (!d) {
      all_static = false;
      break;
    }
    dims.push_back(*d);
  }
  if (all_static) {
    const ScopedThreads threads(model->plan_options_.threads);  // oneDNN sizes primitives for it
    StatusOr<std::shared_ptr<const Plan>> plan = BuildPlan(model->graph_, model->order_, dims, model->plan_options_);
    // A plan that needs input values is made when the inputs are bound.
    if (!plan.ok() && plan.status().code() != StatusCode::kNeedsKnownValue) return plan.status();
    if (plan.ok()) model->default_plan_ = std::move(plan).value();
  }
  return std::shared_ptr<const CompiledModel>(std::move(model));
}

}  // namespace qrt
