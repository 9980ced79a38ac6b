// The contract between the executor and an op: one OpDef per (domain, op type),
// listed in ops/registry.cc. `prepare` runs once per node when a graph is planned
// (concrete shapes known): it validates, sets output dtypes/dims, precomputes what it
// can and picks a kernel. The kernel's run function is a straight line.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/cpu_features.h"
#include "runtime/graph.h"
#include "runtime/quant_grid.h"
#include "runtime/sequence.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

// What a kernel sees at run time. Omitted optional inputs are nullptr.
struct RunArgs {
  const Tensor* const* inputs;
  Tensor* const* outputs;
  int num_inputs;
  int num_outputs;
  const Tensor* input(int i) const { return i < num_inputs ? inputs[i] : nullptr; }
  Tensor* output(int i) const { return outputs[i]; }
};

using KernelFn = Status (*)(const void* state, const RunArgs& args);

struct Kernel {
  KernelFn run = nullptr;
  std::shared_ptr<const void> state;
};

// Input information at plan time: dtype, concrete dims, and the value if it is known
// (an initializer, or computed at plan time from known values); the grid its producer set.
// A sequence or an empty optional (`kind`) is seen only by a node prepared at run time: its
// items are in `sequence` (dtype: the items' element type; no dims, no value).
struct TensorInfo {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  const Tensor* value = nullptr;
  // `value` is an initializer of the model as loaded (not folded by qrt, not known only at
  // plan time): what ONNX Runtime sees as a constant when it loads the model.
  bool initializer = false;
  std::shared_ptr<const QuantGrid> grid;
  ValueKind kind = ValueKind::kTensor;
  std::shared_ptr<const Sequence> sequence;
};

struct PlanOptions {
  Isa isa = kIsaAuto;
  int threads = 1;
  std::string subgraph_passes = "default";  // passes for subgraphs an op compiles (Scan's body)
  size_t memory_limit = 0;                  // most bytes of activation arena a plan may take; 0: no limit
  // A convolution algorithm to force (ops/kernels/conv/conv_plan.h's names; "" or "auto": the
  // planner's choice). A convolution it cannot compute fails to plan, naming it.
  std::string conv_algorithm;
};

class PrepareContext {
 public:
  PrepareContext(const Node& node, std::vector<TensorInfo> inputs, const PlanOptions& options)
      : node_(node), inputs_(std::move(inputs)), outputs_(node.outputs.size()), options_(options) {}

  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  int64_t opset() const { return node_.opset; }
  Isa isa() const { return options_.isa; }
  int threads() const { return options_.threads; }
  const PlanOptions& options() const { return options_; }

  int num_inputs() const { return int(inputs_.size()); }
  bool has_input(int i) const { return i >= 0 && i < num_inputs() && inputs_[size_t(i)].dtype != DataType::kUndefined; }
  // An index past the node's inputs reads as an omitted input (no dtype, no dims, no
  // value), so an op that forgets has_input() fails its checks instead of reading out
  // of bounds (a one-input Reshape at opset 5+ did: found by fuzzing).
  const TensorInfo& input(int i) const {
    static const TensorInfo kAbsent;
    return i >= 0 && i < num_inputs() ? inputs_[size_t(i)] : kAbsent;
  }
  int num_outputs() const { return int(outputs_.size()); }
  bool has_output(int i) const { return i >= 0 && i < num_outputs() && node_.outputs[size_t(i)].valid(); }

  void SetOutput(int i, DataType dtype, Dims dims) {
    outputs_[i].dtype = dtype;
    outputs_[i].dims = std::move(dims);
  }
  // Output i is a sequence, or an optional holding nothing (`sequence` null): computed here,
  // where every input is known (the node is prepared at run time), so no kernel writes it.
  void SetOutputSequence(int i, std::shared_ptr<const Sequence> sequence) {
    outputs_[i].kind = ValueKind::kSequence;
    outputs_[i].dtype = sequence->dtype;
    outputs_[i].dims.clear();
    outputs_[i].sequence = std::move(sequence);
  }
  void SetOutputNone(int i) {
    outputs_[i].kind = ValueKind::kNone;
    outputs_[i].dims.clear();
    outputs_[i].sequence.reset();
  }
  const TensorInfo& output(int i) const { return outputs_[i]; }
  // Declares that output i's data lies on `grid` (QuantGrid); call after SetOutput.
  void SetOutputGrid(int i, std::shared_ptr<const QuantGrid> grid) { outputs_[i].grid = std::move(grid); }

  // Sets the kernel: `Fn` is called with the state this context keeps alive.
  template <class State, Status (*Fn)(const State&, const RunArgs&)>
  void SetKernel(State state) {
    kernel_.run = [](const void* s, const RunArgs& a) { return Fn(*static_cast<const State*>(s), a); };
    kernel_.state = std::make_shared<const State>(std::move(state));
  }
  // A kernel without state.
  template <Status (*Fn)(const RunArgs&)>
  void SetKernel() {
    kernel_.run = [](const void*, const RunArgs& a) { return Fn(a); };
    kernel_.state = nullptr;
  }
  // A kernel another op's prepare made (an op defined as another op, as Upsample is Resize-10).
  void SetKernel(Kernel kernel) { kernel_ = std::move(kernel); }
  Kernel TakeKernel() { return std::move(kernel_); }

  // What the kernel chose among its ways of computing (a convolution's algorithm), for
  // `qrt inspect --json`; empty when an op has one way.
  void SetKernelNote(std::string note) { kernel_note_ = std::move(note); }
  const std::string& kernel_note() const { return kernel_note_; }

  // Declares that the kernel reads no input data (only shapes), so the planner runs it
  // once at plan time and treats its outputs as known values.
  void SetIndependentOfInputData() { independent_of_input_data_ = true; }
  bool independent_of_input_data() const { return independent_of_input_data_; }
  // Declares that each run must run the kernel, even when every input is known (a random
  // generator draws new values each run), so the planner never evaluates it at plan time.
  void SetRunsEveryTime() { runs_every_time_ = true; }
  bool runs_every_time() const { return runs_every_time_; }

 private:
  const Node& node_;
  std::vector<TensorInfo> inputs_;
  std::vector<TensorInfo> outputs_;
  const PlanOptions& options_;
  Kernel kernel_;
  std::string kernel_note_;
  bool independent_of_input_data_ = false;
  bool runs_every_time_ = false;
};

struct OpDef {
  std::string_view domain;  // "" = ONNX default domain, "qrt", "com.microsoft", ...
  std::string_view op_type;
  int min_inputs;
  int max_inputs;
  int min_outputs;
  int max_outputs;
  Status (*prepare)(PrepareContext& ctx);
};

}  // namespace qrt
