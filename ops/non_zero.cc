// NonZero(X): the int64 indices [rank, count] of X's non-zero elements in row-major order (NaN
// counts as non-zero, -0 as zero). A rank-0 X gives [0, count]. Data-dependent (data_dependent.h).
#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status PrepareNonZero(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype == DataType::kUndefined) return InvalidArgument("X has no dtype");
  if (x.value == nullptr) return NeedsConstant(ctx, 0, "X, whose non-zero count is the output's shape");
  const int64_t rank = int64_t(x.dims.size()), n = x.value->numel();
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < n; ++i) {
    if (x.value->GetAsDouble(i) != 0.0 || x.value->GetAsDouble(i) != x.value->GetAsDouble(i)) hits.push_back(i);
  }
  const int64_t count = int64_t(hits.size());
  QRT_ASSIGN_OR_RETURN(Tensor y, Tensor::Allocate(DataType::kInt64, {rank, count}));
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = hits[size_t(j)];
    for (int64_t d = rank - 1; d >= 0; --d) {
      y.data<int64_t>()[d * count + j] = rest % x.dims[size_t(d)];
      rest /= x.dims[size_t(d)];
    }
  }
  std::vector<Tensor> outputs;
  outputs.push_back(std::move(y));
  SetComputedOutputs(ctx, std::move(outputs));
  return Status::Ok();
}

}  // namespace

const OpDef kNonZeroOp{"", "NonZero", 1, 1, 1, 1, PrepareNonZero};

}  // namespace qrt
