// The sequence ops: a sequence is an ordered list of tensors of one element type
// (runtime/sequence.h). Sequences exist only at run time, so these ops are always prepared
// then (runtime/plan.h's kStaged), on known inputs: each prepare computes its output, a new
// sequence sharing the items it keeps, or a tensor copied out by the kernel.
//   SequenceEmpty(dtype = float), SequenceConstruct(x...), SequenceLength(s) -> int64 scalar,
//   SequenceAt(s, position), SequenceInsert(s, x, position = end), SequenceErase(s, position = -1):
//     position an int32/int64 scalar (or one-element vector) in [-n, n-1] (Insert: [-n, n]), negative counting from the
//     end.
//   SplitToSequence(x, split?, axis = 0, keepdims = 1): split absent: pieces of 1 along axis,
//     squeezed when keepdims = 0; a scalar split: pieces of that length (the last may be shorter);
//     a 1-D split: the pieces' lengths, summing to the axis.
//   ConcatFromSequence(s, axis, new_axis = 0): Concat of the items along axis, or with
//     new_axis = 1 their stack along a new axis (axis in [-r-1, r]).
#include <cstring>
#include <memory>
#include <vector>

#include "ops/data_dependent.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

StatusOr<std::shared_ptr<const Sequence>> SequenceInput(const PrepareContext& ctx, int i) {
  const TensorInfo& in = ctx.input(i);
  if (in.kind != ValueKind::kSequence || in.sequence == nullptr) {
    return InvalidArgument("input ", i, " must be a sequence, got ", ValueKindName(in.kind));
  }
  return in.sequence;
}

// A tensor input of a sequence op: its value (the op is prepared at run time, on known values).
StatusOr<const Tensor*> TensorInput(const PrepareContext& ctx, int i, const char* what) {
  if (ctx.input(i).kind != ValueKind::kTensor) {
    return InvalidArgument(what, " must be a tensor, got ", ValueKindName(ctx.input(i).kind));
  }
  if (!ctx.has_input(i)) return InvalidArgument(what, " is missing");
  if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, what);
  return ctx.input(i).value;
}

// The position input `i` (absent: `absent`), checked against [-n, n - 1 + extra] and made >= 0.
StatusOr<int64_t> Position(const PrepareContext& ctx, int i, int64_t n, int64_t extra, int64_t absent) {
  if (!ctx.has_input(i)) return absent;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {DataType::kInt32, DataType::kInt64}));
  QRT_ASSIGN_OR_RETURN(const Tensor* t, TensorInput(ctx, i, "position"));
  // A scalar by the operator text; one-element vectors are accepted as ONNX Runtime does.
  if (t->numel() != 1 || t->rank() > 1)
    return InvalidArgument("position must be a scalar, got ", DimsToString(t->dims()));
  const int64_t p = t->GetAsInt64(0);
  if (p < -n || p > n - 1 + extra) {
    return InvalidArgument("position ", p, " is outside [", -n, ", ", n - 1 + extra, "] for ", n, " items");
  }
  return p < 0 ? p + n : p;
}

void SetSequence(PrepareContext& ctx, DataType dtype, std::vector<Tensor> items) {
  auto s = std::make_shared<Sequence>();
  s->dtype = dtype;
  s->items = std::move(items);
  ctx.SetOutputSequence(0, std::move(s));
}

Status PrepareSequenceEmpty(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("dtype", 1));
  const std::optional<DataType> dtype = DataTypeFromOnnx(int(code));
  if (!dtype) return Unsupported("dtype ", code);
  SetSequence(ctx, *dtype, {});
  return Status::Ok();
}

Status PrepareSequenceConstruct(PrepareContext& ctx) {
  std::vector<Tensor> items;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    QRT_ASSIGN_OR_RETURN(const Tensor* t, TensorInput(ctx, i, "an item"));
    if (t->dtype() != ctx.input(0).dtype) {
      return InvalidArgument("item ", i, " is ", DataTypeName(t->dtype()), ", item 0 ",
                             DataTypeName(ctx.input(0).dtype));
    }
    items.push_back(t->Clone());
  }
  SetSequence(ctx, ctx.input(0).dtype, std::move(items));
  return Status::Ok();
}

Status PrepareSequenceLength(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Sequence> s, SequenceInput(ctx, 0));
  SetComputedOutputs(ctx, {Tensor::FromVector<int64_t>({int64_t(s->items.size())}, {})});
  return Status::Ok();
}

Status PrepareSequenceAt(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Sequence> s, SequenceInput(ctx, 0));
  const int64_t n = int64_t(s->items.size());
  if (!ctx.has_input(1)) return InvalidArgument("SequenceAt needs a position");
  QRT_ASSIGN_OR_RETURN(int64_t p, Position(ctx, 1, n, 0, 0));
  SetComputedOutputs(ctx, {s->items[size_t(p)]});
  return Status::Ok();
}

Status PrepareSequenceInsert(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Sequence> s, SequenceInput(ctx, 0));
  QRT_ASSIGN_OR_RETURN(const Tensor* t, TensorInput(ctx, 1, "the tensor to insert"));
  if (t->dtype() != s->dtype) {
    return InvalidArgument("inserting ", DataTypeName(t->dtype()), " into a sequence of ", DataTypeName(s->dtype));
  }
  const int64_t n = int64_t(s->items.size());
  QRT_ASSIGN_OR_RETURN(int64_t p, Position(ctx, 2, n, 1, n));
  std::vector<Tensor> items = s->items;
  items.insert(items.begin() + p, t->Clone());
  SetSequence(ctx, s->dtype, std::move(items));
  return Status::Ok();
}

Status PrepareSequenceErase(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Sequence> s, SequenceInput(ctx, 0));
  const int64_t n = int64_t(s->items.size());
  if (n == 0) return InvalidArgument("erasing from an empty sequence");
  QRT_ASSIGN_OR_RETURN(int64_t p, Position(ctx, 1, n, 0, n - 1));
  std::vector<Tensor> items = s->items;
  items.erase(items.begin() + p);
  SetSequence(ctx, s->dtype, std::move(items));
  return Status::Ok();
}

// x's slab [begin, end) along `axis`, as a tensor of its own with that axis `end - begin` long.
StatusOr<Tensor> Slab(const Tensor& x, int64_t axis, int64_t begin, int64_t end) {
  Dims dims = x.dims();
  dims[size_t(axis)] = end - begin;
  QRT_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), dims));
  int64_t outer = 1, inner = int64_t(DataTypeSize(x.dtype()));
  for (int64_t d = 0; d < axis; ++d) outer *= x.dims()[size_t(d)];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.dims()[size_t(d)];
  const int64_t len = x.dims()[size_t(axis)];
  const char* src = static_cast<const char*>(x.raw());
  char* dst = static_cast<char*>(out.raw());
  const size_t bytes = size_t((end - begin) * inner);
  for (int64_t o = 0; o < outer && bytes > 0; ++o) {
    std::memcpy(dst + o * int64_t(bytes), src + (o * len + begin) * inner, bytes);
  }
  return out;
}

Status PrepareSplitToSequence(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(const Tensor* x, TensorInput(ctx, 0, "input"));
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t keepdims, ctx.attrs().GetInt("keepdims", 1));
  if (x->rank() == 0) return InvalidArgument("SplitToSequence needs an input of rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, x->rank()));
  const int64_t len = x->dims()[size_t(axis)];
  std::vector<int64_t> lengths;
  bool squeeze = false;
  if (!ctx.has_input(1)) {
    lengths.assign(size_t(len), 1);
    squeeze = keepdims == 0;
  } else {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 1, {DataType::kInt32, DataType::kInt64}));
    QRT_ASSIGN_OR_RETURN(const Tensor* split, TensorInput(ctx, 1, "split"));
    if (split->rank() == 0) {
      const int64_t piece = split->GetAsInt64(0);
      if (piece <= 0) return InvalidArgument("split must be positive, got ", piece);
      for (int64_t at = 0; at < len; at += piece) lengths.push_back(std::min(piece, len - at));
    } else if (split->rank() == 1) {
      int64_t sum = 0;
      for (int64_t i = 0; i < split->numel(); ++i) {
        const int64_t piece = split->GetAsInt64(i);
        if (piece < 0) return InvalidArgument("split lengths must be >= 0, got ", piece);
        lengths.push_back(piece);
        sum += piece;
        if (sum > len) break;
      }
      if (sum != len) return InvalidArgument("split lengths sum to ", sum, ", the axis is ", len);
    } else {
      return InvalidArgument("split must be a scalar or 1-D");
    }
  }
  std::vector<Tensor> items;
  int64_t at = 0;
  for (int64_t piece : lengths) {
    QRT_ASSIGN_OR_RETURN(Tensor t, Slab(*x, axis, at, at + piece));
    at += piece;
    if (squeeze) {
      Dims dims = t.dims();
      dims.erase(dims.begin() + axis);
      t = t.Reshaped(dims);
    }
    items.push_back(std::move(t));
  }
  SetSequence(ctx, x->dtype(), std::move(items));
  return Status::Ok();
}

Status PrepareConcatFromSequence(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::shared_ptr<const Sequence> s, SequenceInput(ctx, 0));
  if (!ctx.attrs().Has("axis")) return InvalidArgument("ConcatFromSequence needs the axis attribute");
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", 0));
  QRT_ASSIGN_OR_RETURN(int64_t new_axis, ctx.attrs().GetInt("new_axis", 0));
  if (s->items.empty()) return InvalidArgument("ConcatFromSequence of an empty sequence");
  const Dims& first = s->items[0].dims();
  const int64_t rank = int64_t(first.size());
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, new_axis ? rank + 1 : rank));
  // Each item viewed with the concatenated axis present (a stack adds it, of length 1).
  std::vector<Tensor> parts;
  Dims out = first;
  if (new_axis) out.insert(out.begin() + axis, 0);
  out[size_t(axis)] = 0;
  for (size_t k = 0; k < s->items.size(); ++k) {
    const Tensor& t = s->items[k];
    Dims dims = t.dims();
    if (new_axis) {
      if (dims != first)
        return InvalidArgument("item ", k, " is ", DimsToString(dims), ", item 0 ", DimsToString(first));
      dims.insert(dims.begin() + axis, 1);
    } else {
      bool same = int64_t(dims.size()) == rank;
      for (int64_t d = 0; same && d < rank; ++d) same = d == axis || dims[size_t(d)] == first[size_t(d)];
      if (!same) {
        return InvalidArgument("item ", k, " is ", DimsToString(dims), ", item 0 ", DimsToString(first),
                               ": they differ off axis ", axis);
      }
    }
    out[size_t(axis)] += dims[size_t(axis)];
    parts.push_back(t.Reshaped(dims));
  }
  QRT_ASSIGN_OR_RETURN(Tensor y, Tensor::Allocate(s->dtype, out));
  int64_t outer = 1, inner = int64_t(DataTypeSize(s->dtype));
  for (int64_t d = 0; d < axis; ++d) outer *= out[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < out.size(); ++d) inner *= out[d];
  char* dst = static_cast<char*>(y.raw());
  const int64_t row = out[size_t(axis)] * inner;
  int64_t offset = 0;
  for (const Tensor& p : parts) {
    const int64_t bytes = p.dims()[size_t(axis)] * inner;
    for (int64_t o = 0; o < outer && bytes > 0; ++o) {
      std::memcpy(dst + o * row + offset, static_cast<const char*>(p.raw()) + o * bytes, size_t(bytes));
    }
    offset += bytes;
  }
  SetComputedOutputs(ctx, {std::move(y)});
  return Status::Ok();
}

}  // namespace

const OpDef kSequenceEmptyOp{"", "SequenceEmpty", 0, 0, 1, 1, PrepareSequenceEmpty};
const OpDef kSequenceConstructOp{"", "SequenceConstruct", 1, 1 << 20, 1, 1, PrepareSequenceConstruct};
const OpDef kSequenceLengthOp{"", "SequenceLength", 1, 1, 1, 1, PrepareSequenceLength};
const OpDef kSequenceAtOp{"", "SequenceAt", 2, 2, 1, 1, PrepareSequenceAt};
const OpDef kSequenceInsertOp{"", "SequenceInsert", 2, 3, 1, 1, PrepareSequenceInsert};
const OpDef kSequenceEraseOp{"", "SequenceErase", 1, 2, 1, 1, PrepareSequenceErase};
const OpDef kSplitToSequenceOp{"", "SplitToSequence", 1, 2, 1, 1, PrepareSplitToSequence};
const OpDef kConcatFromSequenceOp{"", "ConcatFromSequence", 1, 1, 1, 1, PrepareConcatFromSequence};

}  // namespace qrt
