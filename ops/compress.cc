// Compress(X, condition): the slices of X along `axis` (or the elements of X flattened, without
// one) whose condition entry is true. condition may be shorter than the axis (the rest is
// dropped); entries past the axis must be false. Data-dependent (data_dependent.h).
#include <cstring>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

Status PrepareCompress(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& c = ctx.input(1);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kBool}));
  if (c.dims.size() != 1) return InvalidArgument("condition must be 1-D, got ", DimsToString(c.dims));
  if (c.value == nullptr) return NeedsConstant(ctx, 1, "condition, whose true count is the output's shape");
  if (x.value == nullptr) return NeedsConstant(ctx, 0, "input");
  const bool flat = !ctx.attrs().Has("axis");
  int64_t axis = 0;
  Dims dims = flat ? Dims{ElementCount(x.dims)} : x.dims;
  if (!flat) {
    QRT_ASSIGN_OR_RETURN(int64_t a, ctx.attrs().GetInt("axis"));
    QRT_ASSIGN_OR_RETURN(axis, NormalizeAxis(a, int64_t(x.dims.size())));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= dims[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  const int64_t n = dims[size_t(axis)];
  const bool* cond = c.value->data<bool>();
  std::vector<int64_t> kept;
  for (int64_t i = 0; i < c.dims[0]; ++i) {
    if (!cond[i]) continue;
    if (i >= n) return InvalidArgument("condition entry ", i, " is true past the axis's ", n, " entries");
    kept.push_back(i);
  }
  Dims out_dims = dims;
  out_dims[size_t(axis)] = int64_t(kept.size());
  QRT_ASSIGN_OR_RETURN(Tensor y, Tensor::Allocate(x.dtype, out_dims));
  const size_t esize = DataTypeSize(x.dtype), slice = size_t(inner) * esize;
  const char* src = static_cast<const char*>(x.value->raw());
  char* dst = static_cast<char*>(y.raw());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : kept) {
      std::memcpy(dst, src + (size_t(o * n + i) * slice), slice);
      dst += slice;
    }
  }
  std::vector<Tensor> outputs;
  outputs.push_back(std::move(y));
  SetComputedOutputs(ctx, std::move(outputs));
  return Status::Ok();
}

}  // namespace

const OpDef kCompressOp{"", "Compress", 2, 2, 1, 1, PrepareCompress};

}  // namespace qrt
