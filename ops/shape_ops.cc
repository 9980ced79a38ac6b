// Ops that only change how bytes are viewed: Identity,
// Reshape, Flatten, Squeeze, Unsqueeze (the kernel copies the bytes), and Shape, Size and
// Constant (values known when the graph is planned, so they are folded and never run).
#include <algorithm>
#include <cstring>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

// Sequences and optionals pass through too.
Status PrepareIdentity(PrepareContext& ctx) { return ForwardInput(ctx); }

Status PrepareReshape(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  std::vector<int64_t> shape;
  bool allowzero = false;
  if (ctx.opset() < 5) {
    QRT_ASSIGN_OR_RETURN(shape, ctx.attrs().GetInts("shape"));
  } else {
    if (!ctx.has_input(1)) return InvalidArgument("Reshape at opset ", ctx.opset(), " needs the shape input");
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
    if (ctx.input(1).dims.size() != 1) return InvalidArgument("shape input must be 1-D");
    if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "shape");
    shape = ToInt64Vector(*ctx.input(1).value);
    if (ctx.opset() >= 14) {
      QRT_ASSIGN_OR_RETURN(int64_t az, ctx.attrs().GetInt("allowzero", 0));
      allowzero = az != 0;
    }
  }
  Dims out(shape.size());
  int infer = -1;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == -1) {
      if (infer >= 0) return InvalidArgument("shape has more than one -1");
      infer = int(i);
      continue;
    }
    if (d == 0 && !allowzero) {
      if (i >= x.dims.size()) return InvalidArgument("shape[", i, "] = 0 copies a dimension the input lacks");
      d = x.dims[i];
    }
    if (d < 0) return InvalidArgument("invalid dimension ", d, " in shape");
    out[i] = d;
    QRT_ASSIGN_OR_RETURN(known, CheckedElementCount(Dims{known, d}));
  }
  const int64_t total = ElementCount(x.dims);
  if (infer >= 0) {
    if (known == 0 || total % known != 0) {
      return InvalidArgument("cannot reshape ", DimsToString(x.dims), " to ", DimsToString(shape));
    }
    out[size_t(infer)] = total / known;
  } else if (known != total) {
    return InvalidArgument("cannot reshape ", DimsToString(x.dims), " (", total, " elements) to ", DimsToString(out));
  }
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<RunCopyInput>();
  return Status::Ok();
}

Status PrepareFlatten(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  QRT_ASSIGN_OR_RETURN(int64_t axis, ctx.attrs().GetInt("axis", 1));
  if (axis < -rank || axis > rank) return InvalidArgument("axis ", axis, " out of range for rank ", rank);
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= x.dims[size_t(i)];
  ctx.SetOutput(0, x.dtype, {outer, inner});
  ctx.SetKernel<RunCopyInput>();
  return Status::Ok();
}

// Squeeze/Unsqueeze axes: an attribute before opset 13, an optional input from 13 on.
StatusOr<std::optional<std::vector<int64_t>>> ReadAxes(const PrepareContext& ctx) {
  if (ctx.opset() < 13) {
    if (!ctx.attrs().Has("axes")) return std::optional<std::vector<int64_t>>();
    QRT_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.attrs().GetInts("axes"));
    return std::optional<std::vector<int64_t>>(axes);
  }
  if (!ctx.has_input(1)) return std::optional<std::vector<int64_t>>();
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt64}));
  if (ctx.input(1).value == nullptr) return NeedsConstant(ctx, 1, "axes");
  return std::optional<std::vector<int64_t>>(ToInt64Vector(*ctx.input(1).value));
}

Status PrepareSqueeze(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const int64_t rank = int64_t(x.dims.size());
  QRT_ASSIGN_OR_RETURN(auto axes, ReadAxes(ctx));
  std::vector<char> drop(size_t(rank), 0);
  if (!axes) {
    for (int64_t i = 0; i < rank; ++i) drop[size_t(i)] = x.dims[size_t(i)] == 1;
  } else {
    for (int64_t a : *axes) {
      QRT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
      if (x.dims[size_t(ax)] != 1) {
        return InvalidArgument("cannot squeeze axis ", a, " of size ", x.dims[size_t(ax)]);
      }
      drop[size_t(ax)] = 1;
    }
  }
  Dims out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!drop[size_t(i)]) out.push_back(x.dims[size_t(i)]);
  }
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<RunCopyInput>();
  return Status::Ok();
}

Status PrepareUnsqueeze(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_ASSIGN_OR_RETURN(auto axes, ReadAxes(ctx));
  if (!axes) return InvalidArgument("Unsqueeze needs axes");
  const int64_t out_rank = int64_t(x.dims.size() + axes->size());
  if (out_rank > kMaxRank) return ResourceExhausted("rank ", out_rank, " exceeds the limit");
  std::vector<char> ins(size_t(out_rank), 0);
  for (int64_t a : *axes) {
    QRT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, out_rank));
    if (ins[size_t(ax)]) return InvalidArgument("axis ", a, " is repeated");
    ins[size_t(ax)] = 1;
  }
  Dims out;
  size_t k = 0;
  for (int64_t i = 0; i < out_rank; ++i) out.push_back(ins[size_t(i)] ? 1 : x.dims[k++]);
  ctx.SetOutput(0, x.dtype, out);
  ctx.SetKernel<RunCopyInput>();
  return Status::Ok();
}

// Shape-15: optional start/end slice of the dims. The output is always known at plan time.
struct ShapeState {
  std::vector<int64_t> dims;
};
Status RunShape(const ShapeState& s, const RunArgs& args) {
  std::copy(s.dims.begin(), s.dims.end(), args.output(0)->data<int64_t>());
  return Status::Ok();
}

Status PrepareShape(PrepareContext& ctx) {
  const Dims& d = ctx.input(0).dims;
  const int64_t rank = int64_t(d.size());
  QRT_ASSIGN_OR_RETURN(int64_t start, ctx.attrs().GetInt("start", 0));
  QRT_ASSIGN_OR_RETURN(int64_t end, ctx.attrs().GetInt("end", rank));
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  ShapeState s;
  for (int64_t i = start; i < end; ++i) s.dims.push_back(d[size_t(i)]);
  ctx.SetOutput(0, DataType::kInt64, {int64_t(s.dims.size())});
  ctx.SetKernel<ShapeState, RunShape>(std::move(s));
  ctx.SetIndependentOfInputData();
  return Status::Ok();
}

// Size: known at plan time (it runs folded, without its input's data).
struct SizeState {
  int64_t count;
};
Status RunSize(const SizeState& s, const RunArgs& args) {
  *args.output(0)->data<int64_t>() = s.count;
  return Status::Ok();
}

Status PrepareSize(PrepareContext& ctx) {
  ctx.SetOutput(0, DataType::kInt64, {});
  ctx.SetKernel<SizeState, RunSize>(SizeState{ElementCount(ctx.input(0).dims)});
  ctx.SetIndependentOfInputData();
  return Status::Ok();
}

struct ConstantState {
  Tensor value;
};
Status RunConstant(const ConstantState& s, const RunArgs& args) {
  if (s.value.nbytes()) std::memcpy(args.output(0)->raw(), s.value.raw(), s.value.nbytes());
  return Status::Ok();
}

// Constant: `value` (a tensor) or one of value_float(s)/value_int(s). The loaders turn
// Constant nodes into initializers; this op serves graphs built by hand.
Status PrepareConstant(PrepareContext& ctx) {
  const Attributes& a = ctx.attrs();
  ConstantState s;
  if (a.Has("value")) {
    QRT_ASSIGN_OR_RETURN(s.value, a.GetTensor("value"));
  } else if (a.Has("value_float")) {
    QRT_ASSIGN_OR_RETURN(float v, a.GetFloat("value_float"));
    s.value = Tensor::FromVector<float>({v}, {});
  } else if (a.Has("value_int")) {
    QRT_ASSIGN_OR_RETURN(int64_t v, a.GetInt("value_int"));
    s.value = Tensor::FromVector<int64_t>({v}, {});
  } else if (a.Has("value_floats")) {
    QRT_ASSIGN_OR_RETURN(std::vector<float> v, a.GetFloats("value_floats"));
    s.value = Tensor::FromVector<float>(v, {int64_t(v.size())});
  } else if (a.Has("value_ints")) {
    QRT_ASSIGN_OR_RETURN(std::vector<int64_t> v, a.GetInts("value_ints"));
    s.value = Tensor::FromVector<int64_t>(v, {int64_t(v.size())});
  } else {
    return Unsupported("Constant needs one of value, value_float(s), value_int(s)");
  }
  ctx.SetOutput(0, s.value.dtype(), s.value.dims());
  ctx.SetKernel<ConstantState, RunConstant>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kIdentityOp{"", "Identity", 1, 1, 1, 1, PrepareIdentity};
const OpDef kReshapeOp{"", "Reshape", 1, 2, 1, 1, PrepareReshape};
const OpDef kFlattenOp{"", "Flatten", 1, 1, 1, 1, PrepareFlatten};
const OpDef kSqueezeOp{"", "Squeeze", 1, 2, 1, 1, PrepareSqueeze};
const OpDef kUnsqueezeOp{"", "Unsqueeze", 1, 2, 1, 1, PrepareUnsqueeze};
const OpDef kShapeOp{"", "Shape", 1, 1, 1, 1, PrepareShape};
const OpDef kSizeOp{"", "Size", 1, 1, 1, 1, PrepareSize};
const OpDef kConstantOp{"", "Constant", 0, 0, 1, 1, PrepareConstant};

}  // namespace qrt
