// If and Loop, with their subgraphs (graph attributes), outer-scope values (the node's implicit
// inputs, see ImplicitInputNames) and Loop's carried state and scan outputs. Which branch runs,
// how many iterations and so the output shapes depend on data: both are data-dependent ops
// (data_dependent.h). Their prepare needs the values of their inputs and captures, runs the
// subgraph there, and the kernel copies the results out (when they are not known at plan time,
// the node is prepared at run time: a staged plan, runtime/plan.h).
//   If(cond): then_branch if cond is true, else else_branch; every output of the branch.
//   Loop(M, cond, v...): for i = 0 while (M absent or i < M) and (cond absent or cond): body(i,
//     cond, v...) -> (cond, v..., scan...); outputs: the last v..., and each scan output stacked
//     over the iterations (new axis 0; the same shape every iteration). Without M and cond the
//     loop would not end: qrt stops it at kMaxIterations with an error.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace qrt {
namespace {

constexpr int64_t kMaxIterations = int64_t(1) << 20;

// The subgraph `attr` as a model of its own: its inputs take the dtypes they are fed with
// (`input_dtypes`; their shapes come with each run), the enclosing graph's values it reads become
// constants (their values are known: this op is prepared on known values).
StatusOr<std::shared_ptr<const CompiledModel>> CompileSubgraph(const PrepareContext& ctx, const char* attr,
                                                               const std::vector<DataType>& input_dtypes = {}) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<Graph> declared, ctx.attrs().GetGraph(attr));
  if (declared == nullptr) return InvalidArgument("attribute '", attr, "' has no graph");
  Graph body = *declared;
  const Node& node = ctx.node();
  const std::vector<std::string> captures = ImplicitInputNames(node);
  const int first_capture = ctx.num_inputs() - int(NumImplicitInputs(node));
  for (size_t c = 0; c < captures.size(); ++c) {
    const ValueId id = body.FindValue(captures[c]);
    if (!id.valid()) continue;  // read by the other graph attribute
    const int input = first_capture + int(c);
    if (!ctx.has_input(input)) return InvalidArgument(attr, " reads '", captures[c], "', which has no value");
    if (ctx.input(input).value == nullptr) return NeedsConstant(ctx, input, "a value the subgraph reads");
    Value& v = body.value(id);
    v.dtype = ctx.input(input).dtype;
    v.shape = ShapeFromDims(ctx.input(input).dims);
    v.constant = ctx.input(input).value->Clone();
  }
  body.captures.clear();
  if (body.inputs.size() != input_dtypes.size()) {
    return InvalidArgument(attr, " has ", body.inputs.size(), " inputs, ", input_dtypes.size(), " expected");
  }
  for (size_t i = 0; i < body.inputs.size(); ++i) {
    Value& v = body.value(body.inputs[i]);
    if (v.dtype != DataType::kUndefined && v.dtype != input_dtypes[i]) {
      return InvalidArgument(attr, " input '", v.name, "' is ", DataTypeName(v.dtype), ", fed ",
                             DataTypeName(input_dtypes[i]));
    }
    v.dtype = input_dtypes[i];
    v.shape.reset();
  }
  CompileOptions options;
  options.passes = ctx.options().subgraph_passes;
  options.max_isa = ctx.isa();
  options.threads = ctx.threads();
  options.conv_algorithm = ctx.options().conv_algorithm;
  StatusOr<std::shared_ptr<const CompiledModel>> compiled = Compile(std::move(body), options);
  if (!compiled.ok()) return compiled.status().WithContext(attr);
  return compiled;
}

// A session's outputs copied (they are views of its arena).
std::vector<Tensor> Copies(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : outputs) out.push_back(t.Clone());
  return out;
}

Status PrepareIf(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kBool}));
  if (ElementCount(ctx.input(0).dims) != 1) return InvalidArgument("cond must have one element");
  if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "cond, which picks the branch and its shapes");
  const bool cond = ctx.input(0).value->data<bool>()[0];
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledModel> branch,
                       CompileSubgraph(ctx, cond ? "then_branch" : "else_branch"));
  if (int(branch->graph().outputs.size()) != ctx.num_outputs()) {
    return InvalidArgument("the branch has ", branch->graph().outputs.size(), " outputs, If has ", ctx.num_outputs());
  }
  Session session(branch);
  std::vector<Tensor> outputs;
  QRT_RETURN_IF_ERROR(session.Run({}, &outputs).WithContext(cond ? "then_branch" : "else_branch"));
  SetComputedOutputs(ctx, Copies(outputs));
  return Status::Ok();
}

Status PrepareLoop(PrepareContext& ctx) {
  const int declared = ctx.num_inputs() - int(NumImplicitInputs(ctx.node()));
  const int carried = declared - 2;
  if (carried < 0) return InvalidArgument("Loop needs its M and cond inputs (either may be empty)");
  int64_t trip_limit = -1;  // none
  if (ctx.has_input(0)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kInt64}));
    if (ElementCount(ctx.input(0).dims) != 1) return InvalidArgument("M must have one element");
    if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "M, the trip count");
    trip_limit = ctx.input(0).value->data<int64_t>()[0];
  }
  bool cond = true;
  const bool has_cond = ctx.has_input(1);
  if (has_cond) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kBool}));
    if (ElementCount(ctx.input(1).dims) != 1) return InvalidArgument("cond must have one element");
    if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "cond");
    cond = ctx.input(1).value->data<bool>()[0];
  }
  std::vector<Tensor> state;
  for (int i = 0; i < carried; ++i) {
    if (!ctx.has_input(2 + i)) return InvalidArgument("loop-carried input ", i, " is missing");
    if (ctx.input(2 + i).value == nullptr) return NeedsConstant(ctx, 2 + i, "a loop-carried value");
    state.push_back(ctx.input(2 + i).value->Clone());
  }
  std::vector<DataType> feed_dtypes = {DataType::kInt64, DataType::kBool};
  for (const Tensor& t : state) feed_dtypes.push_back(t.dtype());
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledModel> body, CompileSubgraph(ctx, "body", feed_dtypes));
  const Graph& g = body->graph();
  const int scans = int(g.outputs.size()) - 1 - carried;
  if (scans < 0 || ctx.num_outputs() != carried + scans) {
    return InvalidArgument("the body has ", g.outputs.size(), " outputs; Loop has ", carried, " carried values and ",
                           ctx.num_outputs(), " outputs");
  }
  Session session(body);
  std::vector<std::vector<Tensor>> scanned(static_cast<size_t>(scans));
  int64_t i = 0;
  for (; (trip_limit < 0 || i < trip_limit) && (!has_cond || cond); ++i) {
    if (i >= kMaxIterations) return ResourceExhausted("Loop ran ", kMaxIterations, " iterations without ending");
    std::vector<Tensor> feeds;
    feeds.push_back(Tensor::FromVector<int64_t>({i}, {}));
    feeds.push_back(Tensor::FromVector<bool>({cond}, {}));
    for (const Tensor& t : state) feeds.push_back(t.Clone());
    std::vector<Tensor> outputs;
    QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext(StrCat("Loop iteration ", i)));
    if (outputs[0].dtype() != DataType::kBool || outputs[0].numel() != 1) {
      return InvalidArgument("the body's cond output is not one bool");
    }
    cond = outputs[0].data<bool>()[0];
    for (int k = 0; k < carried; ++k) state[size_t(k)] = outputs[size_t(1 + k)].Clone();
    for (int k = 0; k < scans; ++k) {
      const Tensor& t = outputs[size_t(1 + carried + k)];
      if (!scanned[size_t(k)].empty() &&
          (scanned[size_t(k)][0].dims() != t.dims() || scanned[size_t(k)][0].dtype() != t.dtype())) {
        return InvalidArgument("scan output ", k, " changes shape at iteration ", i);
      }
      scanned[size_t(k)].push_back(t.Clone());
    }
  }
  // Without an iteration, the scan outputs' element types and shapes are those one iteration would
  // give: the body (a pure function) runs once more on the initial values, and its results are
  // dropped.
  std::vector<Tensor> probe;
  if (i == 0 && scans > 0) {
    std::vector<Tensor> feeds;
    feeds.push_back(Tensor::FromVector<int64_t>({0}, {}));
    feeds.push_back(Tensor::FromVector<bool>({cond}, {}));
    for (const Tensor& t : state) feeds.push_back(t.Clone());
    std::vector<Tensor> outputs;
    QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext("Loop body, for its scan outputs' shapes"));
    probe = Copies(outputs);
  }
  std::vector<Tensor> results = std::move(state);
  for (int k = 0; k < scans; ++k) {
    const std::vector<Tensor>& per = scanned[size_t(k)];
    const Tensor& shape_of = per.empty() ? probe[size_t(1 + carried + k)] : per[0];
    const DataType dtype = shape_of.dtype();
    Dims dims = shape_of.dims();
    dims.insert(dims.begin(), int64_t(per.size()));
    QRT_ASSIGN_OR_RETURN(Tensor stacked, Tensor::Allocate(dtype, dims));
    char* dst = static_cast<char*>(stacked.raw());
    for (const Tensor& t : per) {
      if (t.nbytes() > 0) std::memcpy(dst, t.raw(), t.nbytes());
      dst += t.nbytes();
    }
    results.push_back(std::move(stacked));
  }
  SetComputedOutputs(ctx, std::move(results));
  return Status::Ok();
}

}  // namespace

// Variadic: the loader counts the declared inputs only (the captures come after them).
const OpDef kIfOp{"", "If", 1, 1, 1, 1 << 20, PrepareIf};
const OpDef kLoopOp{"", "Loop", 2, 1 << 20, 0, 1 << 20, PrepareLoop};

}  // namespace qrt
