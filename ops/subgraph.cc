#include "ops/subgraph.h"

#include <string>

#include "ops/op_util.h"

namespace qrt {

Status BindCaptures(const PrepareContext& ctx, Graph& body, bool values_needed, std::vector<int>* fed) {
  const Node& node = ctx.node();
  const std::vector<std::string> captures = ImplicitInputNames(node);
  const int first_capture = ctx.num_inputs() - int(NumImplicitInputs(node));
  for (size_t c = 0; c < captures.size(); ++c) {
    const ValueId id = body.FindValue(captures[c]);
    if (!id.valid()) continue;  // read by another graph attribute
    const int input = first_capture + int(c);
    const TensorInfo& in = ctx.input(input);
    if (!ctx.has_input(input) && in.kind != ValueKind::kNone) {
      return InvalidArgument("the body reads '", captures[c], "' from the enclosing graph, which has no value for it");
    }
    Value& v = body.value(id);
    v.dtype = in.dtype;
    if (in.kind == ValueKind::kTensor) {
      v.shape = ShapeFromDims(in.dims);
      if (in.value != nullptr) {
        v.constant = in.value->Clone();
        continue;
      }
      if (values_needed) return NeedsConstant(ctx, input, "a value the body reads");
    } else {
      v.kind = in.kind == ValueKind::kSequence ? DeclaredKind::kOptionalSequence : DeclaredKind::kOptionalTensor;
      v.shape.reset();
    }
    body.inputs.push_back(id);
    fed->push_back(input);
  }
  body.captures.clear();
  return Status::Ok();
}

CompileOptions SubgraphOptions(const PrepareContext& ctx) {
  CompileOptions options;
  options.passes = ctx.options().subgraph_passes;
  options.max_isa = ctx.isa();
  options.threads = ctx.threads();
  options.conv_algorithm = ctx.options().conv_algorithm;
  return options;
}

RunValue FeedOf(const TensorInfo& in) {
  switch (in.kind) {
    case ValueKind::kSequence:
      return RunValue::Of(in.sequence);
    case ValueKind::kNone:
      return RunValue::None();
    case ValueKind::kTensor:
      break;
  }
  return RunValue::Of(in.value ? *in.value : Tensor());
}

}  // namespace qrt
