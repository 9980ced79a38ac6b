// SequenceMap(s, extra...) with graph attribute body: for each item i of the sequence s, body(s[i],
// e_0, ..., e_k) where each extra input e_j is item i of a sequence (of s's length) or a tensor
// given whole; output j is the sequence of body output j over the items. The body is compiled
// once, as a model of its own, its inputs typed by what they are fed.
#include <memory>
#include <vector>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/subgraph.h"
#include "runtime/session.h"

namespace qrt {
namespace {

Status PrepareSequenceMap(PrepareContext& ctx) {
  const int declared = ctx.num_inputs() - int(NumImplicitInputs(ctx.node()));
  if (ctx.input(0).kind != ValueKind::kSequence) {
    return InvalidArgument("input 0 must be a sequence, got ", ValueKindName(ctx.input(0).kind));
  }
  const size_t n = ctx.input(0).sequence->items.size();
  for (int j = 0; j < declared; ++j) {
    const TensorInfo& in = ctx.input(j);
    if (in.kind == ValueKind::kSequence && in.sequence->items.size() != n) {
      return InvalidArgument("input ", j, " has ", in.sequence->items.size(), " items, input 0 has ", n);
    }
    if (in.kind == ValueKind::kNone || !ctx.has_input(j)) return InvalidArgument("input ", j, " has no value");
    if (in.kind == ValueKind::kTensor && in.value == nullptr) return NeedsConstant(ctx, j, "an extra input");
  }
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<Graph> attr, ctx.attrs().GetGraph("body"));
  if (attr == nullptr) return InvalidArgument("SequenceMap has an empty body");
  Graph body = *attr;
  if (int(body.inputs.size()) != declared) {
    return InvalidArgument("the body has ", body.inputs.size(), " inputs, SequenceMap ", declared);
  }
  if (int(body.outputs.size()) != ctx.num_outputs()) {
    return InvalidArgument("the body has ", body.outputs.size(), " outputs, SequenceMap ", ctx.num_outputs());
  }
  for (int j = 0; j < declared; ++j) {
    Value& v = body.value(body.inputs[size_t(j)]);
    if (v.dtype != DataType::kUndefined && v.dtype != ctx.input(j).dtype) {
      return InvalidArgument("body input '", v.name, "' is ", DataTypeName(v.dtype), ", fed ",
                             DataTypeName(ctx.input(j).dtype));
    }
    v.dtype = ctx.input(j).dtype;
    v.kind = DeclaredKind::kTensor;  // an item, or a tensor given whole
    v.shape.reset();
  }
  std::vector<int> fed;
  QRT_RETURN_IF_ERROR(BindCaptures(ctx, body, /*values_needed=*/true, &fed).WithContext("body"));
  std::vector<DataType> output_dtypes;
  for (ValueId out : body.outputs) output_dtypes.push_back(body.value(out).dtype);
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const CompiledModel> model, Compile(std::move(body), SubgraphOptions(ctx)));
  Session session(model);
  std::vector<std::shared_ptr<Sequence>> results;
  for (int o = 0; o < ctx.num_outputs(); ++o) {
    results.push_back(std::make_shared<Sequence>());
    results.back()->dtype = output_dtypes[size_t(o)];
  }
  std::vector<RunValue> feeds(static_cast<size_t>(declared));
  for (int input : fed) feeds.push_back(FeedOf(ctx.input(input)));
  for (size_t i = 0; i < n; ++i) {
    for (int j = 0; j < declared; ++j) {
      const TensorInfo& in = ctx.input(j);
      feeds[size_t(j)] = RunValue::Of(in.kind == ValueKind::kSequence ? in.sequence->items[i] : *in.value);
    }
    std::vector<RunValue> outputs;
    QRT_RETURN_IF_ERROR(session.Run(feeds, &outputs).WithContext(StrCat("SequenceMap item ", i)));
    for (int o = 0; o < ctx.num_outputs(); ++o) {
      const RunValue& v = outputs[size_t(o)];
      if (v.kind != ValueKind::kTensor) return InvalidArgument("body output ", o, " is ", ValueKindName(v.kind));
      Sequence& r = *results[size_t(o)];
      if (r.items.empty()) r.dtype = v.tensor.dtype();
      if (v.tensor.dtype() != r.dtype) return InvalidArgument("body output ", o, " changes element type at item ", i);
      r.items.push_back(v.tensor.Clone());
    }
  }
  for (int o = 0; o < ctx.num_outputs(); ++o) {
    if (results[size_t(o)]->dtype == DataType::kUndefined) {
      return InvalidArgument("body output ", o, " has no declared element type and there are no items");
    }
    ctx.SetOutputSequence(o, std::move(results[size_t(o)]));
  }
  return Status::Ok();
}

}  // namespace

// Variadic: the loader counts the declared inputs only (the captures come after them).
const OpDef kSequenceMapOp{"", "SequenceMap", 1, 1 << 20, 1, 1 << 20, PrepareSequenceMap};

}  // namespace qrt
