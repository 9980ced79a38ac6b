// Concat and Split: joining and cutting tensors along one axis. Both copy bytes, so
// they take every dtype. Viewing a tensor as [outer, axis, inner], each input (Concat)
// or output (Split) owns a contiguous block of axis_len * inner elements in every
// outer row; the kernels are one memcpy per block.
#include <cstring>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// Elements of one outer row of each part, and where the part starts in the joined row.
struct AxisBlocks {
  int64_t outer = 1;
  int64_t row = 0;                  // elements per outer row of the joined tensor
  std::vector<int64_t> part_len;    // elements per outer row of each part
  std::vector<int64_t> part_start;  // offset of the part in a joined row
  size_t elem_size = 0;
};

AxisBlocks MakeBlocks(const Dims& joined, int64_t axis, const std::vector<int64_t>& axis_lens, size_t elem_size) {
  AxisBlocks b;
  int64_t inner = 1;
  for (size_t d = 0; d < joined.size(); ++d) {
    if (int64_t(d) < axis) b.outer *= joined[d];
    if (int64_t(d) > axis) inner *= joined[d];
  }
  int64_t start = 0;
  for (int64_t len : axis_lens) {
    b.part_len.push_back(len * inner);
    b.part_start.push_back(start);
    start += len * inner;
  }
  b.row = start;
  b.elem_size = elem_size;
  return b;
}

Status RunConcat(const AxisBlocks& b, const RunArgs& args) {
  unsigned char* y = static_cast<unsigned char*>(args.output(0)->raw());
  for (size_t p = 0; p < b.part_len.size(); ++p) {
    const size_t bytes = size_t(b.part_len[p]) * b.elem_size;
    if (bytes == 0) continue;
    const unsigned char* x = static_cast<const unsigned char*>(args.input(int(p))->raw());
    for (int64_t o = 0; o < b.outer; ++o) {
      std::memcpy(y + size_t(o * b.row + b.part_start[p]) * b.elem_size, x + size_t(o) * bytes, bytes);
    }
  }
  return Status::Ok();
}

Status RunSplit(const AxisBlocks& b, const RunArgs& args) {
  const unsigned char* x = static_cast<const unsigned char*>(args.input(0)->raw());
  for (size_t p = 0; p < b.part_len.size(); ++p) {
    Tensor* out = args.output(int(p));
    const size_t bytes = size_t(b.part_len[p]) * b.elem_size;
    if (out == nullptr || bytes == 0) continue;
    unsigned char* y = static_cast<unsigned char*>(out->raw());
    for (int64_t o = 0; o < b.outer; ++o) {
      std::memcpy(y + size_t(o) * bytes, x + size_t(o * b.row + b.part_start[p]) * b.elem_size, bytes);
    }
  }
  return Status::Ok();
}

Status PrepareConcat(PrepareContext& ctx) {
  const TensorInfo& first = ctx.input(0);
  const int64_t rank = int64_t(first.dims.size());
  if (rank == 0) return InvalidArgument("Concat inputs must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr,
                       ctx.attrs().GetInt("axis", ctx.opset() < 4 ? std::optional<int64_t>(1) : std::nullopt));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  Dims out = first.dims;
  out[size_t(axis)] = 0;
  std::vector<int64_t> lens;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    const TensorInfo& in = ctx.input(i);
    if (!ctx.has_input(i)) return InvalidArgument("Concat input ", i, " is missing");
    if (in.dtype != first.dtype) {
      return InvalidArgument("input ", i, " dtype ", DataTypeName(in.dtype), " differs from input 0 dtype ",
                             DataTypeName(first.dtype));
    }
    if (int64_t(in.dims.size()) != rank) {
      return InvalidArgument("input ", i, " has rank ", in.dims.size(), ", input 0 has rank ", rank);
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && in.dims[size_t(d)] != first.dims[size_t(d)]) {
        return InvalidArgument("input ", i, " shape ", DimsToString(in.dims), " does not match input 0 shape ",
                               DimsToString(first.dims), " outside axis ", axis);
      }
    }
    QRT_ASSIGN_OR_RETURN(out[size_t(axis)], CheckedElementCount(Dims{out[size_t(axis)] + in.dims[size_t(axis)]}));
    lens.push_back(in.dims[size_t(axis)]);
  }
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(first.dtype)).status());
  ctx.SetOutput(0, first.dtype, out);
  ctx.SetKernel<AxisBlocks, RunConcat>(MakeBlocks(out, axis, lens, DataTypeSize(first.dtype)));
  return Status::Ok();
}

// The split lengths: attribute `split` before opset 13, input 1 from 13 on; else
// `num_outputs` (opset 18: ceil-sized parts, the last one smaller) or equal parts.
StatusOr<std::vector<int64_t>> SplitLengths(const PrepareContext& ctx, int64_t dim) {
  std::vector<int64_t> lens;
  bool given = false;
  if (ctx.opset() < 13) {
    if (ctx.attrs().Has("split")) {
      QRT_ASSIGN_OR_RETURN(lens, ctx.attrs().GetInts("split"));
      given = true;
    }
  } else if (ctx.has_input(1)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
    if (ctx.input(1).dims.size() != 1) return InvalidArgument("split input must be 1-D");
    if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "split");
    lens = ToInt64Vector(*ctx.input(1).value);
    given = true;
  }
  const int64_t n = ctx.num_outputs();
  if (given) {
    if (int64_t(lens.size()) != n) {
      return InvalidArgument("split has ", lens.size(), " entries for ", n, " outputs");
    }
    int64_t sum = 0;
    for (int64_t l : lens) {
      if (l < 0) return InvalidArgument("negative split length ", l);
      if (l > dim) return InvalidArgument("split length ", l, " exceeds the axis length ", dim);
      sum += l;
    }
    if (sum != dim) return InvalidArgument("split lengths sum to ", sum, ", the axis has length ", dim);
    return lens;
  }
  if (ctx.opset() >= 18 && ctx.attrs().Has("num_outputs")) {
    QRT_ASSIGN_OR_RETURN(int64_t parts, ctx.attrs().GetInt("num_outputs"));
    if (parts != n) return InvalidArgument("num_outputs ", parts, " but the node has ", n, " outputs");
    const int64_t chunk = (dim + n - 1) / n;
    if (chunk * (n - 1) > dim) {
      return InvalidArgument("axis length ", dim, " cannot be split into ", n, " parts of ", chunk);
    }
    for (int64_t i = 0; i < n; ++i) lens.push_back(i + 1 < n ? chunk : dim - chunk * (n - 1));
    return lens;
  }
  if (dim % n != 0) return InvalidArgument("axis length ", dim, " is not divisible into ", n, " equal parts");
  return std::vector<int64_t>(size_t(n), dim / n);
}

Status PrepareSplit(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("Split input must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> lens, SplitLengths(ctx, x.dims[size_t(axis)]));
  for (size_t p = 0; p < lens.size(); ++p) {
    Dims d = x.dims;
    d[size_t(axis)] = lens[p];
    ctx.SetOutput(int(p), x.dtype, d);
  }
  ctx.SetKernel<AxisBlocks, RunSplit>(MakeBlocks(x.dims, axis, lens, DataTypeSize(x.dtype)));
  return Status::Ok();
}

}  // namespace

const OpDef kConcatOp{"", "Concat", 1, 1 << 20, 1, 1, PrepareConcat};
const OpDef kSplitOp{"", "Split", 1, 2, 1, 1 << 20, PrepareSplit};

}  // namespace qrt
