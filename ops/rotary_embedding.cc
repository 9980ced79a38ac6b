// com.microsoft RotaryEmbedding(input, position_ids, cos_cache, sin_cache): each head's first
// rotary_dim elements rotated pair by pair by the angle of its position (ops/kernels/rope/rotary.h,
// ONNX Runtime 1.30's order). input is [batch, seq, hidden] (heads of hidden / num_heads) or
// [batch, heads, seq, head_size]; position_ids is [batch, seq], or [1]: the first position, the
// others following it. The caches are [max_position, rotary_dim / 2]. `scale` is accepted and,
// as in ONNX Runtime's CPU kernel, not used.
#include "ops/kernels/rope/rotary.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct RotaryState {
  int64_t batch = 0, seq = 0, heads = 0, head_size = 0, rotary_dim = 0, max_position = 0;
  bool four_d = false, interleaved = false, one_position = false;
  RotaryRowFn row = nullptr;
};

Status RunRotary(const RotaryState& s, const RunArgs& args) {
  const float* x = args.input(0)->data<float>();
  const int64_t* pos = args.input(1)->data<int64_t>();
  const float* cos = args.input(2)->data<float>();
  const float* sin = args.input(3)->data<float>();
  float* y = args.output(0)->data<float>();
  const int64_t half = s.rotary_dim / 2;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t t = 0; t < s.seq; ++t) {
      const int64_t p = s.one_position ? pos[0] + t : pos[b * s.seq + t];
      if (p < 0 || p >= s.max_position) {
        return InvalidArgument("position ", p, " is outside the caches' ", s.max_position, " positions");
      }
      for (int64_t h = 0; h < s.heads; ++h) {
        // [b, t, h, :] in the 3-D layout, [b, h, t, :] in the 4-D one.
        const int64_t row = s.four_d ? (b * s.heads + h) * s.seq + t : (b * s.seq + t) * s.heads + h;
        s.row(s.head_size, s.rotary_dim, s.interleaved, x + row * s.head_size, cos + p * half, sin + p * half,
              y + row * s.head_size);
      }
    }
  }
  return Status::Ok();
}

Status PrepareRotary(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const TensorInfo& pos = ctx.input(1);
  const TensorInfo& cos = ctx.input(2);
  const TensorInfo& sin = ctx.input(3);
  if (x.dtype != DataType::kFloat32) return Unsupported("RotaryEmbedding on ", DataTypeName(x.dtype));
  if (x.dims.size() != 3 && x.dims.size() != 4)
    return InvalidArgument("input must be 3-D or 4-D, not ", DimsToString(x.dims));
  if (pos.dtype != DataType::kInt64) return InvalidArgument("position_ids must be int64");
  if (cos.dtype != DataType::kFloat32 || sin.dtype != DataType::kFloat32 || cos.dims.size() != 2 ||
      cos.dims != sin.dims) {
    return InvalidArgument("cos_cache and sin_cache must be float32 of one 2-D shape, not ", DimsToString(cos.dims),
                           " and ", DimsToString(sin.dims));
  }
  RotaryState s;
  QRT_ASSIGN_OR_RETURN(int64_t interleaved, ctx.attrs().GetInt("interleaved", 0));
  QRT_ASSIGN_OR_RETURN(int64_t num_heads, ctx.attrs().GetInt("num_heads", 0));
  QRT_ASSIGN_OR_RETURN(int64_t rotary_dim, ctx.attrs().GetInt("rotary_embedding_dim", 0));
  // is_packed_batching is read and, as by ONNX Runtime 1.30's CPU kernel, not used: its outputs
  // with 0 and 1 are the same bytes for every layout above (tests/data/audit/rotary_packed_*).
  QRT_ASSIGN_OR_RETURN(int64_t packed, ctx.attrs().GetInt("is_packed_batching", 0));
  if (packed != 0 && packed != 1) return InvalidArgument("is_packed_batching must be 0 or 1, not ", packed);
  s.interleaved = interleaved != 0;
  s.row = SelectRotaryRow(ctx.isa());
  s.four_d = x.dims.size() == 4;
  s.batch = x.dims[0];
  s.max_position = cos.dims[0];
  const int64_t cache_dim = cos.dims[1] * 2;
  if (s.four_d) {
    s.heads = x.dims[1], s.seq = x.dims[2], s.head_size = x.dims[3];
  } else {
    s.seq = x.dims[1];
    const int64_t hidden = x.dims[2];
    // Without num_heads a head is as wide as the rotation (ORT infers it from the caches).
    if (num_heads < 0 || (num_heads > 0 && hidden % num_heads != 0)) {
      return InvalidArgument("hidden size ", hidden, " does not split into ", num_heads, " heads");
    }
    const int64_t head = num_heads > 0 ? hidden / num_heads : cache_dim;
    if (head <= 0 || hidden % head != 0) {
      return InvalidArgument("hidden size ", hidden, " is not a whole number of heads of ", head);
    }
    s.head_size = head, s.heads = hidden / head;
  }
  s.rotary_dim = rotary_dim > 0 ? rotary_dim : cache_dim;
  if (s.rotary_dim != cache_dim || s.rotary_dim > s.head_size || s.rotary_dim % 2 != 0) {
    return InvalidArgument("rotary_embedding_dim ", s.rotary_dim, " must be even, at most the head size ", s.head_size,
                           ", and twice the caches' ", cos.dims[1], " columns");
  }
  // One position id and one token: [b, t] and "first position + t" read the same id.
  if (ElementCount(pos.dims) == 1) {
    s.one_position = true;
  } else if (pos.dims != Dims{s.batch, s.seq}) {
    return InvalidArgument("position_ids must be [", s.batch, ",", s.seq, "] or [1], not ", DimsToString(pos.dims));
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<RotaryState, RunRotary>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kRotaryEmbeddingOp{"com.microsoft", "RotaryEmbedding", 4, 4, 1, 1, PrepareRotary};

}  // namespace qrt
