// GatherElements(data, indices, axis): y[i] = data[i with i[axis] replaced by indices[i]],
// y of the indices' shape. Pure data movement, every dtype; negative indices count from the
// end; an index out of range is an error, at plan time when known and at run time otherwise.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "ops/kernels/gather/gather_elements_row.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct GatherElementsState {
  size_t elem_size;
  Dims index_dims;
  std::vector<int64_t> data_strides;  // of data, in elements
  int64_t axis = 0, axis_len = 0;
  DataType index_dtype;
  GatherRow32Fn row32 = nullptr;  // 4-byte elements, int64 indices, data below 2^31 elements
};

// One element type T (by size) and index type I, a row of the innermost axis at a time: the
// offset of the row is computed once, then each element adds its index along `axis`.
template <class T, class I>
Status GatherTyped(const GatherElementsState& s, const I* idx, const T* x, T* y) {
  const size_t rank = s.index_dims.size();
  const int64_t n = ElementCount(s.index_dims);
  const int64_t width = s.index_dims.back(), rows = width ? n / width : 0;
  const bool along_rows = size_t(s.axis) == rank - 1;
  const int64_t axis_stride = s.data_strides[size_t(s.axis)];
  std::vector<int64_t> pos(rank, 0);  // the row's position; pos[rank - 1] stays 0
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0;
    for (size_t d = 0; d + 1 < rank; ++d) base += (int64_t(d) == s.axis ? 0 : pos[d]) * s.data_strides[d];
    const I* in = idx + r * width;
    T* out = y + r * width;
    int64_t bad = -1;  // the first index out of range
    if constexpr (std::is_same_v<T, uint32_t> && std::is_same_v<I, int64_t>) {
      if (s.row32 != nullptr) bad = s.row32(x, base, axis_stride, along_rows ? 0 : 1, s.axis_len, in, width, out);
    }
    if (s.row32 == nullptr || !std::is_same_v<T, uint32_t> || !std::is_same_v<I, int64_t>) {
      for (int64_t j = 0; j < width && bad < 0; ++j) {
        int64_t k = int64_t(in[j]);
        if (k < -s.axis_len || k >= s.axis_len) {
          bad = j;
        } else {
          out[j] = x[base + (k < 0 ? k + s.axis_len : k) * axis_stride + (along_rows ? 0 : j)];
        }
      }
    }
    if (bad >= 0) {
      return InvalidArgument("index ", int64_t(in[bad]), " is out of range for an axis of length ", s.axis_len);
    }
    for (size_t d = rank - 1; d-- > 0;) {
      if (++pos[d] < s.index_dims[d]) break;
      pos[d] = 0;
    }
  }
  return Status::Ok();
}

template <class T>
Status GatherOfSize(const GatherElementsState& s, const RunArgs& args) {
  const T* x = static_cast<const T*>(args.input(0)->raw());
  T* y = static_cast<T*>(args.output(0)->raw());
  if (s.index_dtype == DataType::kInt32) return GatherTyped(s, args.input(1)->data<int32_t>(), x, y);
  return GatherTyped(s, args.input(1)->data<int64_t>(), x, y);
}

Status RunGatherElements(const GatherElementsState& s, const RunArgs& args) {
  switch (s.elem_size) {
    case 1:
      return GatherOfSize<uint8_t>(s, args);
    case 2:
      return GatherOfSize<uint16_t>(s, args);
    case 4:
      return GatherOfSize<uint32_t>(s, args);
    default:
      return GatherOfSize<uint64_t>(s, args);
  }
}

Status PrepareGatherElements(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& ind = ctx.input(1);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt32, DataType::kInt64}));
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("data must have rank >= 1");
  if (int64_t(ind.dims.size()) != rank) {
    return InvalidArgument("indices ", DimsToString(ind.dims), " and data ", DimsToString(x.dims), " differ in rank");
  }
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis && ind.dims[size_t(d)] > x.dims[size_t(d)]) {
      return InvalidArgument("indices ", DimsToString(ind.dims), " exceed data ", DimsToString(x.dims), " on axis ", d);
    }
  }
  GatherElementsState s;
  s.elem_size = DataTypeSize(x.dtype);
  if (s.elem_size != 1 && s.elem_size != 2 && s.elem_size != 4 && s.elem_size != 8) {
    return Unsupported("data of ", DataTypeName(x.dtype));
  }
  s.index_dims = ind.dims;
  s.axis = axis;
  s.axis_len = x.dims[size_t(axis)];
  s.index_dtype = ind.dtype;
  if (s.elem_size == 4 && ind.dtype == DataType::kInt64 && ElementCount(x.dims) < (int64_t(1) << 31)) {
    s.row32 = SelectGatherRow32(ctx.isa());
  }
  s.data_strides.assign(size_t(rank), 1);
  for (size_t d = size_t(rank); d-- > 1;) s.data_strides[d - 1] = s.data_strides[d] * x.dims[d];
  ctx.SetOutput(0, x.dtype, ind.dims);
  ctx.SetKernel<GatherElementsState, RunGatherElements>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kGatherElementsOp{"", "GatherElements", 2, 2, 1, 1, PrepareGatherElements};

}  // namespace qrt
