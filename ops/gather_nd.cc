// GatherND(data, indices, batch_dims): each innermost row of `indices` (length m) picks the
// slice data[b..., i_0, ..., i_{m-1}, ...] under the batch_dims leading axes. Pure data
// movement, every dtype; negative indices count from the end; out of range is an error.
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct GatherNdState {
  size_t elem_size;
  int64_t batch = 1;             // product of the batch dims
  int64_t per_batch = 1;         // index rows per batch
  int64_t m = 0;                 // index row length
  Dims indexed;                  // the m data dims an index row addresses
  std::vector<int64_t> strides;  // their strides, in slices
  int64_t slice = 1;             // elements per gathered slice
  int64_t batch_stride = 0;      // data elements per batch
};

Status RunGatherNd(const GatherNdState& s, const RunArgs& args) {
  const char* x = static_cast<const char*>(args.input(0)->raw());
  const int64_t* idx = args.input(1)->data<int64_t>();
  char* y = static_cast<char*>(args.output(0)->raw());
  const size_t block = size_t(s.slice) * s.elem_size;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t r = 0; r < s.per_batch; ++r) {
      const int64_t* row = idx + (b * s.per_batch + r) * s.m;
      int64_t off = 0;
      for (int64_t j = 0; j < s.m; ++j) {
        int64_t k = row[j];
        const int64_t len = s.indexed[size_t(j)];
        if (k < -len || k >= len) return InvalidArgument("index ", k, " is out of range for a dim of length ", len);
        if (k < 0) k += len;
        off += k * s.strides[size_t(j)];
      }
      std::memcpy(y + size_t(b * s.per_batch + r) * block,
                  x + (size_t(b * s.batch_stride) + size_t(off) * size_t(s.slice)) * s.elem_size, block);
    }
  }
  return Status::Ok();
}

Status PrepareGatherNd(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& ind = ctx.input(1);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  const int64_t r = int64_t(x.dims.size()), q = int64_t(ind.dims.size());
  QRT_ASSIGN_OR_RETURN(int64_t b, ctx.attrs().GetInt("batch_dims", 0));
  if (r < 1 || q < 1) return InvalidArgument("data and indices must have rank >= 1");
  if (b < 0 || b >= std::min(r, q))
    return InvalidArgument("batch_dims ", b, " must be < min(rank(data), rank(indices))");
  for (int64_t d = 0; d < b; ++d) {
    if (x.dims[size_t(d)] != ind.dims[size_t(d)]) return InvalidArgument("batch dim ", d, " differs");
  }
  GatherNdState s;
  s.elem_size = DataTypeSize(x.dtype);
  s.m = ind.dims[size_t(q - 1)];
  if (s.m < 1 || s.m > r - b) return InvalidArgument("indices' last dim ", s.m, " must be in [1, ", r - b, "]");
  Dims out;
  for (int64_t d = 0; d < b; ++d) s.batch *= x.dims[size_t(d)], out.push_back(x.dims[size_t(d)]);
  for (int64_t d = b; d < q - 1; ++d) s.per_batch *= ind.dims[size_t(d)], out.push_back(ind.dims[size_t(d)]);
  for (int64_t d = b + s.m; d < r; ++d) s.slice *= x.dims[size_t(d)], out.push_back(x.dims[size_t(d)]);
  s.indexed.assign(x.dims.begin() + b, x.dims.begin() + b + s.m);
  s.strides.assign(size_t(s.m), 1);
  for (int64_t j = s.m - 1; j > 0; --j) s.strides[size_t(j - 1)] = s.strides[size_t(j)] * s.indexed[size_t(j)];
  s.batch_stride = s.slice;
  for (int64_t v : s.indexed) s.batch_stride *= v;
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<GatherNdState, RunGatherNd>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kGatherNdOp{"", "GatherND", 2, 2, 1, 1, PrepareGatherNd};

}  // namespace qrt
