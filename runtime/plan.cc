#include "runtime/plan.h"

#include <algorithm>
#include <cstring>

#include "runtime/kernel_isa.h"
#include "runtime/memory_plan.h"

namespace qrt {
namespace {

constexpr size_t kAlign = 64;

// Runs a prepared kernel on known inputs at plan time and keeps the outputs.
Status FoldStep(const PlanStep& step, Plan& plan) {
  std::vector<const Tensor*> ins;
  for (uint32_t v : step.inputs) ins.push_back(v == ValueId::kInvalid ? nullptr : plan.values[v].constant);
  std::vector<Tensor*> outs;
  for (uint32_t v : step.outputs) {
    if (v == ValueId::kInvalid) {
      outs.push_back(nullptr);
      continue;
    }
    PlannedValue& pv = plan.values[v];
    QRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(pv.dtype, pv.dims));
    plan.folded.push_back(std::make_unique<Tensor>(std::move(t)));
    pv.storage = Storage::kConstant;
    pv.constant = plan.folded.back().get();
    outs.push_back(plan.folded.back().get());
  }
  RunArgs args{ins.data(), outs.data(), int(ins.size()), int(outs.size())};
  return step.kernel.run(step.kernel.state.get(), args);
}

}  // namespace

bool PlanMatches(const Plan& plan, const std::vector<Tensor>& inputs) {
  if (inputs.size() != plan.input_dims.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].dims() != plan.input_dims[i]) return false;
    const Tensor* v = plan.input_values[i].get();
    if (v && (v->dtype() != inputs[i].dtype() || std::memcmp(v->raw(), inputs[i].raw(), v->nbytes()) != 0)) {
      return false;
    }
  }
  return true;
}

Status CheckInputMatches(const Graph& graph, size_t i, DataType dtype, const Dims& dims) {
  const Value& v = graph.value(graph.inputs[i]);
  if (v.dtype != DataType::kUndefined && v.dtype != dtype) {
    return InvalidArgument("input '", v.name, "' must be ", DataTypeName(v.dtype), ", got ", DataTypeName(dtype));
  }
  if (v.shape) {
    const Shape& s = *v.shape;
    bool ok = s.size() == dims.size();
    for (size_t d = 0; ok && d < s.size(); ++d) ok = !s[d].is_static() || s[d].value == dims[d];
    if (!ok) {
      return InvalidArgument("input '", v.name, "' must have shape ", ShapeToString(s), ", got ", DimsToString(dims));
    }
    // A symbol used twice must bind to the same size.
    for (size_t a = 0; a < s.size(); ++a) {
      for (size_t b = a + 1; b < s.size(); ++b) {
        if (!s[a].is_static() && !s[a].symbol.empty() && s[a].symbol == s[b].symbol && dims[a] != dims[b]) {
          return InvalidArgument("input '", v.name, "': dimension '", s[a].symbol, "' bound to both ", dims[a], " and ",
                                 dims[b]);
        }
      }
    }
  }
  return Status::Ok();
}

// A node output's declared dtype and static dims (a graph output's type in the model
// file) must match what its producer computes.
Status CheckDeclaredOutput(const Value& v, DataType dtype, const Dims& dims) {
  if (v.dtype != DataType::kUndefined && v.dtype != dtype) {
    return InvalidArgument("output '", v.name, "' is declared ", DataTypeName(v.dtype), " but computes ",
                           DataTypeName(dtype));
  }
  if (v.shape) {
    bool ok = v.shape->size() == dims.size();
    for (size_t d = 0; ok && d < dims.size(); ++d) ok = !(*v.shape)[d].is_static() || (*v.shape)[d].value == dims[d];
    if (!ok) {
      return InvalidArgument("output '", v.name, "' is declared with shape ", ShapeToString(*v.shape), " but computes ",
                             DimsToString(dims));
    }
  }
  return Status::Ok();
}

StatusOr<std::shared_ptr<const Plan>> BuildPlan(const Graph& graph, const std::vector<NodeId>& order,
                                                const std::vector<Dims>& input_dims, const PlanOptions& options,
                                                const std::vector<const Tensor*>& input_values, PlanMode mode) {
  auto plan = std::make_shared<Plan>();
  plan->input_dims = input_dims;
  plan->values.resize(graph.num_values());
  if (input_dims.size() != graph.inputs.size()) {
    return InvalidArgument("the graph has ", graph.inputs.size(), " inputs, ", input_dims.size(), " shapes given");
  }
  for (uint32_t i = 0; i < graph.num_values(); ++i) {
    const Value& v = graph.value(ValueId{i});
    if (v.constant) {
      PlannedValue& pv = plan->values[i];
      pv.dtype = v.constant->dtype();
      pv.dims = v.constant->dims();
      pv.storage = Storage::kConstant;
      pv.constant = &*v.constant;
    }
  }
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    PlannedValue& pv = plan->values[graph.inputs[i].index];
    if (graph.value(graph.inputs[i]).kind != DeclaredKind::kTensor) {
      // A sequence or optional: bound at run time, read by nodes prepared then.
      if (mode == PlanMode::kStatic) {
        return Status(StatusCode::kNeedsKnownValue,
                      StrCat("input '", graph.value(graph.inputs[i]).name, "' is not a tensor"));
      }
      pv.dtype = graph.value(graph.inputs[i]).dtype;
      pv.storage = Storage::kDynamic;
      plan->input_values.emplace_back();
      continue;
    }
    QRT_RETURN_IF_ERROR(CheckInputMatches(graph, i, graph.value(graph.inputs[i]).dtype, input_dims[i])
                            .WithContext(graph.source.empty() ? "graph" : graph.source));
    pv.dtype = graph.value(graph.inputs[i]).dtype;
    pv.dims = input_dims[i];
    pv.storage = Storage::kInput;
    QRT_RETURN_IF_ERROR(CheckedElementCount(pv.dims, DataTypeSize(pv.dtype)).status());
    plan->input_values.emplace_back();
    if (i < input_values.size() && input_values[i] != nullptr) {
      plan->input_values.back() = std::make_unique<Tensor>(input_values[i]->Clone());
      pv.storage = Storage::kConstant;
      pv.constant = plan->input_values.back().get();
    }
  }

  // A node prepared at run time: what it computes is known then only.
  auto prepare_at_run = [&](NodeId id) {
    const Node& node = graph.node(id);
    PlanStep step;
    step.node = id;
    step.prepared_at_run = true;
    for (ValueId in : node.inputs) step.inputs.push_back(in.index);
    for (ValueId out : node.outputs) {
      step.outputs.push_back(out.index);
      if (out.valid()) plan->values[out.index] = PlannedValue{graph.value(out).dtype, {}, Storage::kDynamic};
    }
    plan->steps.push_back(std::move(step));
    ++plan->steps_prepared_at_run;
  };

  for (NodeId id : order) {
    const Node& node = graph.node(id);
    bool reads_dynamic = false;
    for (ValueId in : node.inputs)
      reads_dynamic = reads_dynamic || (in.valid() && plan->values[in.index].storage == Storage::kDynamic);
    if (reads_dynamic) {
      prepare_at_run(id);
      continue;
    }
    std::vector<TensorInfo> infos;
    bool all_known = true;
    for (ValueId in : node.inputs) {
      TensorInfo info;
      if (in.valid()) {
        const PlannedValue& pv = plan->values[in.index];
        info.dtype = pv.dtype;
        info.dims = pv.dims;
        info.value = pv.storage == Storage::kConstant ? pv.constant : nullptr;
        const Value& v = graph.value(in);
        info.initializer = info.value != nullptr && v.constant.has_value() && !v.folded;
        info.grid = pv.grid;
        if (pv.storage != Storage::kConstant) all_known = false;
      }
      infos.push_back(std::move(info));
    }
    PrepareContext ctx(node, std::move(infos), options);
    KernelIsaScope kernel_isa;
    Status s = node.def->prepare(ctx);
    if (s.code() == StatusCode::kNeedsKnownValue && mode == PlanMode::kStaged) {
      prepare_at_run(id);
      continue;
    }
    if (!s.ok()) return graph.NodeError(id, s);
    bool makes_non_tensor = false;
    for (int o = 0; o < ctx.num_outputs(); ++o)
      makes_non_tensor = makes_non_tensor || ctx.output(o).kind != ValueKind::kTensor;
    if (makes_non_tensor) {
      if (mode == PlanMode::kStatic) {
        return graph.NodeError(id, Status(StatusCode::kNeedsKnownValue, "it makes a sequence or an optional"));
      }
      prepare_at_run(id);
      continue;
    }
    PlanStep step;
    step.node = id;
    step.kernel = ctx.TakeKernel();
    step.note = ctx.kernel_note();
    step.isa = kernel_isa.highest();
    if (step.kernel.run == nullptr) return graph.NodeError(id, Internal("prepare set no kernel"));
    for (ValueId in : node.inputs) step.inputs.push_back(in.index);
    for (size_t o = 0; o < node.outputs.size(); ++o) {
      ValueId out = node.outputs[o];
      step.outputs.push_back(out.index);
      if (!out.valid()) continue;
      const TensorInfo& info = ctx.output(int(o));
      if (info.dtype == DataType::kUndefined) {
        return graph.NodeError(id, Internal("prepare left output ", o, " without a dtype"));
      }
      Status c = CheckedElementCount(info.dims, DataTypeSize(info.dtype)).status();
      if (!c.ok()) return graph.NodeError(id, c.WithContext(StrCat("output ", o)));
      Status d = CheckDeclaredOutput(graph.value(out), info.dtype, info.dims);
      if (!d.ok()) return graph.NodeError(id, d);
      PlannedValue& pv = plan->values[out.index];
      pv.dtype = info.dtype;
      pv.dims = info.dims;
      pv.grid = info.grid;
      pv.storage = Storage::kArena;
    }
    if ((all_known || ctx.independent_of_input_data()) && !ctx.runs_every_time()) {
      Status f = FoldStep(step, *plan);
      if (!f.ok()) return graph.NodeError(id, f);
      ++plan->folded_nodes;
    } else {
      plan->steps.push_back(std::move(step));
    }
  }

  // Lifetimes of arena values: [producing step, last reading step]; graph outputs live to the end.
  std::vector<BufferRequest> requests;
  std::vector<uint32_t> request_value;
  std::vector<int64_t> first(graph.num_values(), -1), last(graph.num_values(), -1);
  for (size_t s = 0; s < plan->steps.size(); ++s) {
    for (uint32_t v : plan->steps[s].outputs) {
      if (v != ValueId::kInvalid && first[v] < 0) first[v] = int64_t(s);
    }
    for (uint32_t v : plan->steps[s].inputs) {
      if (v != ValueId::kInvalid) last[v] = int64_t(s);
    }
  }
  for (ValueId out : graph.outputs) last[out.index] = int64_t(plan->steps.size());
  for (uint32_t v = 0; v < graph.num_values(); ++v) {
    PlannedValue& pv = plan->values[v];
    if (pv.storage != Storage::kArena || first[v] < 0) continue;
    BufferRequest r;
    r.bytes = (size_t(ElementCount(pv.dims)) * DataTypeSize(pv.dtype) + kAlign - 1) / kAlign * kAlign;
    r.first = first[v];
    r.last = std::max(last[v], first[v]);
    requests.push_back(r);
    request_value.push_back(v);
  }
  std::vector<size_t> offsets = PlanBuffers(requests, &plan->arena_bytes);
  if (options.memory_limit != 0 && plan->arena_bytes > options.memory_limit) {
    return ResourceExhausted(graph.source.empty() ? "model" : graph.source, ": running needs an arena of ",
                             plan->arena_bytes, " bytes, over the memory limit of ", options.memory_limit, " bytes");
  }
  for (size_t i = 0; i < requests.size(); ++i) plan->values[request_value[i]].offset = offsets[i];
  return std::shared_ptr<const Plan>(std::move(plan));
}

}  // namespace qrt
