// A Plan is a graph specialised to concrete input shapes: every node prepared once,
// values known at plan time folded away, and the rest laid out in one arena by liveness.
// A Plan is immutable and shared by every Session that runs with those shapes.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "runtime/graph.h"
#include "runtime/op_def.h"

namespace qrt {

// kDynamic: known only at run time (a data-dependent shape, a sequence or optional); the
// session allocates it when its producer runs.
enum class Storage : uint8_t { kNone, kConstant, kInput, kArena, kDynamic };

struct PlannedValue {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  Storage storage = Storage::kNone;
  const Tensor* constant = nullptr;       // kConstant: the graph's initializer or a folded tensor
  size_t offset = 0;                      // kArena: byte offset in the arena
  std::shared_ptr<const QuantGrid> grid;  // set by the producer's prepare (op_def.h)
};

struct PlanStep {
  NodeId node;
  Kernel kernel;
  std::vector<uint32_t> inputs;   // value indices; ValueId::kInvalid for an omitted input
  std::vector<uint32_t> outputs;  // value indices; ValueId::kInvalid for an omitted output
  std::string note;               // PrepareContext::SetKernelNote's
  Isa isa = Isa::kScalar;         // the highest tier of the kernels it chose (kernel_isa.h)
  // Prepared when it runs (no kernel yet): its prepare needs values or shapes only a run gives.
  bool prepared_at_run = false;
};

struct Plan {
  std::vector<Dims> input_dims;  // the graph-input shapes this plan serves
  // Graph inputs whose values the plan was specialised on (a shape fed as an input):
  // null where the input's value is not part of the plan.
  std::vector<std::unique_ptr<Tensor>> input_values;
  std::vector<PlannedValue> values;             // indexed by ValueId
  std::vector<PlanStep> steps;                  // in execution order
  std::vector<std::unique_ptr<Tensor>> folded;  // storage of values computed at plan time
  size_t arena_bytes = 0;
  size_t folded_nodes = 0;
  size_t steps_prepared_at_run = 0;
};

// kStatic: every node prepared now (fails with kNeedsKnownValue when a prepare needs a value
// the plan lacks). kStaged: such a node, and every node reading what it computes, is prepared
// when it runs, on the values it then has; the rest keeps its arena and its kernels.
enum class PlanMode : uint8_t { kStatic, kStaged };

// Plans `graph` (already validated, nodes resolved) for the given input dims.
// `order` is a topological order of the live nodes.
StatusOr<std::shared_ptr<const Plan>> BuildPlan(const Graph& graph, const std::vector<NodeId>& order,
                                                const std::vector<Dims>& input_dims, const PlanOptions& options,
                                                const std::vector<const Tensor*>& input_values = {},
                                                PlanMode mode = PlanMode::kStatic);

// True if `inputs` match the dims and specialised values `plan` was built for.
bool PlanMatches(const Plan& plan, const std::vector<Tensor>& inputs);

// Checks a node output's declared dtype and static dims (a graph output's type in the model
// file) against what its producer computes.
Status CheckDeclaredOutput(const Value& v, DataType dtype, const Dims& dims);

// Checks a graph input's declared dtype/shape against a bound tensor's.
Status CheckInputMatches(const Graph& graph, size_t input_index, DataType dtype, const Dims& dims);

}  // namespace qrt
