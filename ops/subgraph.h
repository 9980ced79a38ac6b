// Graph attributes (If's branches, Loop's, Scan's and SequenceMap's bodies) compiled as models of
// their own, shared by those ops.
#pragma once

#include <vector>

#include "runtime/model.h"
#include "runtime/op_def.h"

namespace qrt {

// Binds the body's captures (values it reads from the enclosing graph, the node's implicit
// inputs): a tensor whose value is known becomes a constant, so the body folds what depends on
// it; anything else (a sequence, an empty optional, a tensor known only when the node runs)
// becomes an extra body input after its own, and its node input index is appended to `fed`.
// With `values_needed` (the op runs the body in its prepare) a tensor capture without a value
// is kNeedsKnownValue instead.
Status BindCaptures(const PrepareContext& ctx, Graph& body, bool values_needed, std::vector<int>* fed);

// The options the enclosing model was compiled with, for a body.
CompileOptions SubgraphOptions(const PrepareContext& ctx);

// What node input `i` holds, to feed a body input (a view: valid while the input is).
RunValue FeedOf(const TensorInfo& in);

}  // namespace qrt
