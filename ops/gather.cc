// Gather: pure data movement, every dtype: per outer row of `data` and per index, one
// contiguous block of the axis's inner elements is copied.
#include <cstring>

#include "ops/kernels/common/index_map.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct GatherState {
  int64_t outer = 1, axis_len = 0, inner = 1;
  int64_t num_indices = 0;
  size_t elem_size = 0;
  DataType index_dtype = DataType::kInt64;
};

template <class I>
Status GatherRows(const GatherState& s, const I* idx, const unsigned char* x, unsigned char* y) {
  const size_t block = size_t(s.inner) * s.elem_size;
  for (int64_t j = 0; j < s.num_indices; ++j) {
    const int64_t k = int64_t(idx[j]);
    if (k < -s.axis_len || k >= s.axis_len) {
      return InvalidArgument("index ", k, " is out of range for an axis of length ", s.axis_len);
    }
  }
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t j = 0; j < s.num_indices; ++j) {
      int64_t k = int64_t(idx[j]);
      if (k < 0) k += s.axis_len;
      std::memcpy(y + size_t(o * s.num_indices + j) * block, x + size_t(o * s.axis_len + k) * block, block);
    }
  }
  return Status::Ok();
}

// Indices are checked here as well as at plan time: they may be data.
Status RunGather(const GatherState& s, const RunArgs& args) {
  const unsigned char* x = static_cast<const unsigned char*>(args.input(0)->raw());
  unsigned char* y = static_cast<unsigned char*>(args.output(0)->raw());
  if (s.index_dtype == DataType::kInt32) return GatherRows(s, args.input(1)->data<int32_t>(), x, y);
  return GatherRows(s, args.input(1)->data<int64_t>(), x, y);
}

Status PrepareGather(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& ind = ctx.input(1);
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("Gather data must have rank >= 1");
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt32, DataType::kInt64}));
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  GatherState s;
  s.elem_size = DataTypeSize(x.dtype);
  s.index_dtype = ind.dtype;
  s.axis_len = x.dims[size_t(axis)];
  s.num_indices = ElementCount(ind.dims);
  Dims out;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) s.outer *= x.dims[size_t(d)];
    if (d > axis) s.inner *= x.dims[size_t(d)];
    if (d == axis) {
      out.insert(out.end(), ind.dims.begin(), ind.dims.end());
    } else {
      out.push_back(x.dims[size_t(d)]);
    }
  }
  if (int64_t(out.size()) > kMaxRank) return ResourceExhausted("output rank ", out.size(), " exceeds the limit");
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, s.elem_size).status());
  if (ind.value != nullptr) {
    for (int64_t j = 0; j < s.num_indices; ++j) {
      const int64_t k = ind.value->GetAsInt64(j);
      if (k < -s.axis_len || k >= s.axis_len) {
        return InvalidArgument("index ", k, " (element ", j, " of indices) is out of range for axis ", axis,
                               " of length ", s.axis_len);
      }
    }
  }
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<GatherState, RunGather>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kGatherOp{"", "Gather", 2, 2, 1, 1, PrepareGather};

}  // namespace qrt
