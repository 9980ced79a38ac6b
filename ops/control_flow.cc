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
#include "ops/subgraph.h"
#include "runtime/model.h"
#include "runtime/session.h"

namespace qrt {
namespace {

constexpr int64_t kMaxIterations = int64_t(1) << 20;

// A body input fed `kind`: declared optional, it stays so; else it takes the fed kind.
DeclaredKind FedKind(DeclaredKind declared, ValueKind fed) {
  const bool optional = declared == DeclaredKind::kOptionalTensor || declared == DeclaredKind::kOptionalSequence;
  if (optional) return declared;
  switch (fed) {
    case ValueKind::kSequence:
      return DeclaredKind::kSequence;
    case ValueKind::kNone:
      return DeclaredKind::kOptionalTensor;
    case ValueKind::kTensor:
      break;
  }
  return DeclaredKind::kTensor;
}

// The subgraph `attr` as a model of its own: its inputs take the kinds and dtypes of `feeds` (their
// shapes come with each run), the enclosing values it reads become constants (this op is
// prepared on known values), or inputs after its own when they are sequences or optionals
// (appended to `feeds`).
StatusOr<std::shared_ptr<const CompiledModel>> CompileSubgraph(const PrepareContext& ctx, const char* attr,
                                                               std::vector<RunValue>* feeds) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<Graph> declared, ctx.attrs().GetGraph(attr));
  if (declared == nullptr) return InvalidArgument("attribute '", attr, "' has no graph");
  Graph body = *declared;
  if (body.inputs.size() != feeds->size()) {
    return InvalidArgument(attr, " has ", body.inputs.size(), " inputs, ", feeds->size(), " expected");
  }
  for (size_t i = 0; i < body.inputs.size(); ++i) {
    Value& v = body.value(body.inputs[i]);
    const RunValue& feed = (*feeds)[i];
    const DataType fed = feed.kind == ValueKind::kTensor     ? feed.tensor.dtype()
                         : feed.kind == ValueKind::kSequence ? feed.sequence->dtype
                                                             : v.dtype;
    if (v.dtype != DataType::kUndefined && v.dtype != fed) {
      return InvalidArgument(attr, " input '", v.name, "' is ", DataTypeName(v.dtype), ", fed ", DataTypeName(fed));
    }
    v.dtype = fed;
    v.kind = FedKind(v.kind, feed.kind);
    v.shape.reset();
  }
  std::vector<int> fed_captures;
  QRT_RETURN_IF_ERROR(BindCaptures(ctx, body, /*values_needed=*/true, &fed_captures).WithContext(attr));
  for (int input : fed_captures) feeds->push_back(FeedOf(ctx.input(input)));
  StatusOr<std::shared_ptr<const CompiledModel>> compiled = Compile(std::move(body), SubgraphOptions(ctx));
  if (!compiled.ok()) return compiled.status().WithContext(attr);
  return compiled;
}

// A session's outputs kept past its next run (tensors are views of its arena).
std::vector<RunValue> Copies(const std::vector<RunValue>& outputs) {
  std::vector<RunValue> out = outputs;
  for (RunValue& v : out) v.tensor = v.tensor.Clone();
  return out;
}

Status PrepareIf(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kBool}));
  if (ElementCount(ctx.input(0).dims) != 1) return InvalidArgument("cond must have one element");
  if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "cond, which picks the branch and its shapes");
  const bool cond = ctx.input(0).value->data<bool>()[0];
  const char* branch_name = cond ? "then_branch" : "else_branch";
  std::vector<RunValue> feeds;
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledModel> branch, CompileSubgraph(ctx, branch_name, &feeds));
  if (int(branch->graph().outputs.size()) != ctx.num_outputs()) {
    return InvalidArgument("the branch has ", branch->graph().outputs.size(), " outputs, If has ", ctx.num_outputs());
  }
  Session session(branch);
  std::vector<RunValue> outputs;
  QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext(branch_name));
  SetComputedValues(ctx, Copies(outputs));
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
  // feeds: iteration, cond, the carried values (tensors, sequences or optionals), then the captures
  // CompileSubgraph adds.
  std::vector<RunValue> feeds = {RunValue::Of(Tensor::FromVector<int64_t>({0}, {})),
                                 RunValue::Of(Tensor::FromVector<bool>({cond}, {}))};
  for (int i = 0; i < carried; ++i) {
    const TensorInfo& in = ctx.input(2 + i);
    if (!ctx.has_input(2 + i) && in.kind != ValueKind::kNone) {
      return InvalidArgument("loop-carried input ", i, " is missing");
    }
    if (in.kind == ValueKind::kTensor && in.value == nullptr) return NeedsConstant(ctx, 2 + i, "a loop-carried value");
    feeds.push_back(FeedOf(in));
    if (in.kind == ValueKind::kTensor) feeds.back().tensor = feeds.back().tensor.Clone();
  }
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledModel> body, CompileSubgraph(ctx, "body", &feeds));
  const Graph& g = body->graph();
  const int scans = int(g.outputs.size()) - 1 - carried;
  if (scans < 0 || ctx.num_outputs() != carried + scans) {
    return InvalidArgument("the body has ", g.outputs.size(), " outputs; Loop has ", carried, " carried values and ",
                           ctx.num_outputs(), " outputs");
  }
  Session session(body);
  std::vector<std::vector<Tensor>> scanned(static_cast<size_t>(scans));
  std::vector<RunValue> probe;
  int64_t i = 0;
  for (; (trip_limit < 0 || i < trip_limit) && (!has_cond || cond); ++i) {
    if (i >= kMaxIterations) return ResourceExhausted("Loop ran ", kMaxIterations, " iterations without ending");
    feeds[0] = RunValue::Of(Tensor::FromVector<int64_t>({i}, {}));
    feeds[1] = RunValue::Of(Tensor::FromVector<bool>({cond}, {}));
    std::vector<RunValue> outputs;
    QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext(StrCat("Loop iteration ", i)));
    const RunValue& c = outputs[0];
    if (c.kind != ValueKind::kTensor || c.tensor.dtype() != DataType::kBool || c.tensor.numel() != 1) {
      return InvalidArgument("the body's cond output is not one bool");
    }
    cond = c.tensor.data<bool>()[0];
    for (int k = 0; k < carried; ++k) {
      feeds[size_t(2 + k)] = outputs[size_t(1 + k)];
      feeds[size_t(2 + k)].tensor = outputs[size_t(1 + k)].tensor.Clone();
    }
    for (int k = 0; k < scans; ++k) {
      const RunValue& v = outputs[size_t(1 + carried + k)];
      if (v.kind != ValueKind::kTensor) return InvalidArgument("scan output ", k, " is ", ValueKindName(v.kind));
      const Tensor& t = v.tensor;
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
  if (i == 0 && scans > 0) {
    feeds[0] = RunValue::Of(Tensor::FromVector<int64_t>({0}, {}));
    std::vector<RunValue> outputs;
    QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext("Loop body, for its scan outputs' shapes"));
    probe = Copies(outputs);
  }
  std::vector<RunValue> results(feeds.begin() + 2, feeds.begin() + 2 + carried);
  for (int k = 0; k < scans; ++k) {
    const std::vector<Tensor>& per = scanned[size_t(k)];
    const Tensor& shape_of = per.empty() ? probe[size_t(1 + carried + k)].tensor : per[0];
    const DataType dtype = shape_of.dtype();
    Dims dims = shape_of.dims();
    dims.insert(dims.begin(), int64_t(per.size()));
    QRT_ASSIGN_OR_RETURN(Tensor stacked, Tensor::Allocate(dtype, dims));
    char* dst = static_cast<char*>(stacked.raw());
    for (const Tensor& t : per) {
      if (t.nbytes() > 0) std::memcpy(dst, t.raw(), t.nbytes());
      dst += t.nbytes();
    }
    results.push_back(RunValue::Of(std::move(stacked)));
  }
  SetComputedValues(ctx, std::move(results));
  return Status::Ok();
}

}  // namespace

// Variadic: the loader counts the declared inputs only (the captures come after them).
const OpDef kIfOp{"", "If", 1, 1, 1, 1 << 20, PrepareIf};
const OpDef kLoopOp{"", "Loop", 2, 1 << 20, 0, 1 << 20, PrepareLoop};

}  // namespace qrt
