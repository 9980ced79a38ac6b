// com.microsoft MultiHeadAttention on float32, as ONNX Runtime 1.30's CPU kernel computes it:
// query [B, S, N*H]; key [B, L, N*H] and value [B, L, N*Hv] (each element plus its bias, then
// moved to [B, N, L, H]), or key and value already [B, N, L, H] (their bias then ignored, as ORT
// does); past_key and past_value [B, N, P, H] before the new rows; outputs [B, S, N*Hv] and,
// optionally, present_key and present_value [B, N, P+L, H] and qk [B, N, S, P+L] (the scores
// before their softmax). Without key mask, attention bias, past, causal masking or outputs but
// the first, ORT takes its flash path, whose block sizes come from the reference CPU's L2 size
// (ops/attention_core.h); otherwise the attention core. Refused as on ORT's CPU: packed Q/K/V,
// packed K/V, a query without key and value, and the beam-search inputs (past_sequence_length,
// cache_indirection).
#include <algorithm>
#include <cmath>

#include "ops/attention_core.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime/ort_cpu.h"

namespace qrt {
namespace {

enum Input : int {
  kQuery = 0,
  kKey = 1,
  kValue = 2,
  kBias = 3,
  kKeyPaddingMask = 4,
  kAttentionBias = 5,
  kPastKey = 6,
  kPastValue = 7,
  kPastSequenceLength = 8,
  kCacheIndirection = 9,
};

struct MhaState {
  AttentionCore core;
  bool kv_bnsh = false;  // key and value given as [B, N, L, H]
  bool flash = false;
  bool has_present = false, has_qk = false;
};

// dst[b, n, s, j] = src[b, s, n * width + j] (+ bias[n * width + j]): BSNH to BNSH.
void ToHeads(const float* src, const float* bias, int64_t batch, int64_t len, int64_t heads, int64_t width,
             float* dst) {
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t n = 0; n < heads; ++n) {
      for (int64_t s = 0; s < len; ++s) {
        const float* in = src + (b * len + s) * heads * width + n * width;
        float* out = dst + ((b * heads + n) * len + s) * width;
        if (bias == nullptr) {
          std::copy(in, in + width, out);
        } else {
          for (int64_t j = 0; j < width; ++j) out[j] = in[j] + bias[n * width + j];
        }
      }
    }
  }
}

Status RunMha(const MhaState& s, const RunArgs& args) {
  const AttentionCore& c = s.core;
  const int64_t d = c.heads * c.head_size;
  const float* bias = args.input(kBias) != nullptr ? args.input(kBias)->data<float>() : nullptr;
  const int64_t q_count = c.batch * c.q_len * d;
  const int64_t k_count = s.kv_bnsh ? 0 : c.batch * c.kv_len * d;
  const int64_t v_count = s.kv_bnsh ? 0 : c.batch * c.kv_len * c.heads * c.v_head_size;
  float* scratch = ThreadScratchFloats(ScratchSlot::kOp0, size_t(q_count + k_count + v_count));
  AttentionTensors io;
  ToHeads(args.input(kQuery)->data<float>(), bias, c.batch, c.q_len, c.heads, c.head_size, scratch);
  io.q = scratch;
  if (s.kv_bnsh) {
    io.k = args.input(kKey)->data<float>();
    io.v = args.input(kValue)->data<float>();
  } else {
    float* k = scratch + q_count;
    float* v = k + k_count;
    ToHeads(args.input(kKey)->data<float>(), bias ? bias + d : nullptr, c.batch, c.kv_len, c.heads, c.head_size, k);
    ToHeads(args.input(kValue)->data<float>(), bias ? bias + 2 * d : nullptr, c.batch, c.kv_len, c.heads, c.v_head_size,
            v);
    io.k = k, io.v = v;
  }
  io.out = args.output(0)->data<float>();
  if (s.flash) {
    RunFlashAttention(c, io);
    return Status::Ok();
  }
  if (c.past_len > 0) {
    io.past_k = args.input(kPastKey)->data<float>();
    io.past_v = args.input(kPastValue)->data<float>();
  }
  if (s.has_present) {
    io.present_k = args.output(1)->data<float>();
    io.present_v = args.output(2)->data<float>();
  }
  if (s.has_qk) io.qk = args.output(3)->data<float>();
  if (args.input(kKeyPaddingMask) != nullptr) io.mask = args.input(kKeyPaddingMask)->data<int32_t>();
  if (c.has_bias) io.bias = args.input(kAttentionBias)->data<float>();
  return RunAttentionCore(c, io);
}

Status PrepareMha(PrepareContext& ctx) {
  MhaState s;
  AttentionCore& c = s.core;
  QRT_ASSIGN_OR_RETURN(const bool unidirectional, ReadAttentionAttributes(ctx, c));
  for (int i : {kQuery, kKey, kValue, kBias, kAttentionBias, kPastKey, kPastValue}) {
    if (ctx.has_input(i)) QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {DataType::kFloat32}));
  }
  if (ctx.has_input(kPastSequenceLength) || ctx.has_input(kCacheIndirection)) {
    return Unsupported("past_sequence_length and cache_indirection (beam search)");
  }
  const Dims& q = ctx.input(kQuery).dims;
  if (q.size() == 5) return Unsupported("packed Q, K and V [B, L, N, 3, H] (ORT's CPU kernel refuses them too)");
  if (q.size() != 3) return InvalidArgument("query must be [batch, sequence, hidden], not ", DimsToString(q));
  if (!ctx.has_input(kKey) || !ctx.has_input(kValue)) {
    return Unsupported("a query without key and value (packed Q, K and V; ORT's CPU kernel refuses it too)");
  }
  c.batch = q[0], c.q_len = q[1];
  if (q[2] % c.heads != 0) return InvalidArgument("query hidden size ", q[2], " is not a multiple of num_heads");
  c.head_size = q[2] / c.heads;
  const Dims& k = ctx.input(kKey).dims;
  const Dims& v = ctx.input(kValue).dims;
  if (k.size() == 5) return Unsupported("packed K and V (ORT's CPU kernel refuses them too)");
  if (k.size() == 3) {
    if (k[0] != c.batch || k[2] != q[2] || v.size() != 3 || v[0] != c.batch || v[1] != k[1] || v[2] % c.heads != 0) {
      return InvalidArgument("key ", DimsToString(k), " and value ", DimsToString(v), " do not fit query ",
                             DimsToString(q));
    }
    c.kv_len = k[1];
    c.v_head_size = v[2] / c.heads;
  } else if (k.size() == 4) {
    if (k != Dims{c.batch, c.heads, k[2], c.head_size} || v != k) {
      return InvalidArgument("key and value of rank 4 must both be [", c.batch, ", ", c.heads, ", L, ", c.head_size,
                             "], not ", DimsToString(k), " and ", DimsToString(v));
    }
    s.kv_bnsh = true;
    c.kv_len = k[2];
    c.v_head_size = c.head_size;
  } else {
    return InvalidArgument("key must have rank 3 or 4, not ", DimsToString(k));
  }
  if (ctx.has_input(kBias) && ctx.input(kBias).dims != Dims{2 * q[2] + c.heads * c.v_head_size}) {
    return InvalidArgument("bias ", DimsToString(ctx.input(kBias).dims), " must be [",
                           2 * q[2] + c.heads * c.v_head_size, "]");
  }
  if (ctx.has_input(kPastKey) != ctx.has_input(kPastValue)) return InvalidArgument("past_key without past_value");
  if (ctx.has_input(kPastKey)) {
    if (s.kv_bnsh) return InvalidArgument("past with key and value of rank 4");
    const Dims& pk = ctx.input(kPastKey).dims;
    const Dims& pv = ctx.input(kPastValue).dims;
    if (pk.size() != 4 || pk[0] != c.batch || pk[1] != c.heads || pk[3] != c.head_size ||
        pv != Dims{c.batch, c.heads, pk[2], c.v_head_size}) {
      return InvalidArgument("past_key ", DimsToString(pk), " and past_value ", DimsToString(pv), " must be [", c.batch,
                             ", ", c.heads, ", P, ", c.head_size, "] and [..., ", c.v_head_size, "]");
    }
    c.past_len = pk[2];
  }
  const Dims* mask = ctx.has_input(kKeyPaddingMask) ? &ctx.input(kKeyPaddingMask).dims : nullptr;
  if (mask != nullptr) QRT_RETURN_IF_ERROR(ExpectDType(ctx, kKeyPaddingMask, {DataType::kInt32}));
  const Dims* attn_bias = ctx.has_input(kAttentionBias) ? &ctx.input(kAttentionBias).dims : nullptr;
  QRT_RETURN_IF_ERROR(PrepareAttentionMaskAndBias(c, mask, attn_bias, /*allow_start_end=*/false,
                                                  /*dummy_2d_is_none=*/false));
  FinishAttentionCore(ctx, c, unidirectional);
  s.has_present = ctx.has_output(1) || ctx.has_output(2);
  s.has_qk = ctx.has_output(3);
  if (s.has_present && !(ctx.has_output(1) && ctx.has_output(2))) {
    return Unsupported("one of present_key and present_value without the other");
  }
  s.flash = ReferenceOrtFlashAttention() && mask == nullptr && !c.has_bias && c.past_len == 0 &&
            !ctx.has_input(kPastKey) && !unidirectional && !s.kv_bnsh && !s.has_present && !s.has_qk;
  if (s.flash) {
    PlanFlashAttention(c, ReferenceL2Bytes(), ctx.isa());
    ctx.SetKernelNote("flash");
  }
  ctx.SetOutput(0, DataType::kFloat32, {c.batch, c.q_len, c.heads * c.v_head_size});
  if (s.has_present) {
    ctx.SetOutput(1, DataType::kFloat32, {c.batch, c.heads, c.total_len(), c.head_size});
    ctx.SetOutput(2, DataType::kFloat32, {c.batch, c.heads, c.total_len(), c.v_head_size});
  }
  if (s.has_qk) ctx.SetOutput(3, DataType::kFloat32, {c.batch, c.heads, c.q_len, c.total_len()});
  ctx.SetKernel<MhaState, RunMha>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMultiHeadAttentionOp{"com.microsoft", "MultiHeadAttention", 1, 10, 1, 4, PrepareMha};

}  // namespace qrt
