// com.microsoft MultiHeadAttention on float32, as ONNX Runtime 1.30's CPU kernel computes it:
// query [B, S, N*H]; key [B, L, N*H] and value [B, L, N*Hv] (each element plus its bias, then
// moved to [B, N, L, H]), or key and value already [B, N, L, H] (their bias then ignored, as ORT
// does); past_key and past_value [B, N, P, H] before the new rows; outputs [B, S, N*Hv] and,
// optionally, present_key and present_value [B, N, P+L, H] and qk [B, N, S, P+L] (the scores
// before their softmax). Without key mask, attention bias, past, causal masking or outputs but
// the first, ORT takes its flash path, whose block sizes come from the reference CPU's L2 size
// (ops/attention_core.h); otherwise the attention core. With past_sequence_length and
// cache_indirection (beam search: one token, past_key and past_value the shared [B, N, M, H]
// buffers), ORT's decoding step (RunDecodingStep below). Refused as on ORT's CPU: packed Q/K/V,
// packed K/V, a query without key and value; and where ORT reads or writes past its buffers:
// past_sequence_length without the decoding step, the step without present outputs, more than
// one key token in it, or a [B, 1, 1, T] attention bias its batch index overruns.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

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
  // The decoding step: the buffers' length M and the beam width W.
  bool decoding = false;
  int64_t buffer_len = 0, beams = 1;
  Dims mask_dims, bias_dims;
};

// ORT's dot product in its decoding step (Eigen's, with four-float packets): products rounded,
// no fused multiply-add. Fewer than 4 values: summed in order. Else packets t of 4 products:
// accumulators A0..A3 start at packets 0..3 (those that exist); each further whole group of four
// packets adds lane-wise into A0..A3, the 1 to 3 packets after the last whole group into A0, A1,
// A2; then A2 += A3, A1 += A2, A0 += A1 (those that exist); r = (A0[0] + A0[2]) + (A0[1] + A0[3]);
// then the last n % 4 products added one by one.
float PacketDot(const float* a, const float* b, int64_t n) {
  auto product = [&](int64_t i) { return a[i] * b[i]; };
  if (n < 4) {
    float r = product(0);
    for (int64_t i = 1; i < n; ++i) r = r + product(i);
    return r;
  }
  const int64_t packets = n / 4;
  float acc[4][4] = {};
  for (int64_t t = 0; t < std::min<int64_t>(packets, 4); ++t) {
    for (int l = 0; l < 4; ++l) acc[t][l] = product(4 * t + l);
  }
  if (packets >= 4) {
    const int64_t quad_end = packets / 4 * 4;
    for (int64_t g = 4; g < quad_end; g += 4) {
      for (int64_t t = 0; t < 4; ++t) {
        for (int l = 0; l < 4; ++l) acc[t][l] = acc[t][l] + product(4 * (g + t) + l);
      }
    }
    for (int64_t t = 0; t < packets % 4; ++t) {
      for (int l = 0; l < 4; ++l) acc[t][l] = acc[t][l] + product(4 * (quad_end + t) + l);
    }
    for (int l = 0; l < 4; ++l) acc[2][l] = acc[2][l] + acc[3][l];
  }
  if (packets >= 3) {
    for (int l = 0; l < 4; ++l) acc[1][l] = acc[1][l] + acc[2][l];
  }
  if (packets >= 2) {
    for (int l = 0; l < 4; ++l) acc[0][l] = acc[0][l] + acc[1][l];
  }
  float r = (acc[0][0] + acc[0][2]) + (acc[0][1] + acc[0][3]);
  for (int64_t i = packets * 4; i < n; ++i) r = r + product(i);
  return r;
}

// ORT's beam-search decoding step (one query token): past position j < P of row b reads the
// buffers' row (b / W) * W + cache_indirection[b, j]; the new token is position P. Per head:
// score = PacketDot(q, k) * scale (+ attention bias) (+ mask_filter_value where the mask is 0),
// each step rounded; the softmax op's row; then out = p[P] * v, + p[j] * past_v[j] for j in
// order, each product rounded. present = the past buffers with row P replaced by the new k, v.
Status RunDecodingStep(const MhaState& s, const RunArgs& args, const float* q, const float* k, const float* v) {
  const AttentionCore& c = s.core;
  const int64_t B = c.batch, N = c.heads, H = c.head_size, M = s.buffer_len, W = s.beams;
  const int64_t p_len = args.input(kPastSequenceLength)->GetAsInt64(0);
  if (p_len <= 0 || p_len >= M) {
    return InvalidArgument("past_sequence_length ", p_len, " is not in [1, ", M - 1,
                           "] (0: ORT's kernel then writes past its buffers)");
  }
  const int64_t T = p_len + 1;
  if (!s.mask_dims.empty() && s.mask_dims[1] != T) {
    return InvalidArgument("key_padding_mask ", DimsToString(s.mask_dims), " must be [", B, ", ", T, "]");
  }
  if (!s.bias_dims.empty() && s.bias_dims[3] != T) {
    return InvalidArgument("attention_bias ", DimsToString(s.bias_dims), " must end in ", T);
  }
  const int32_t* ci = args.input(kCacheIndirection)->data<int32_t>();
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t j = 0; j < p_len; ++j) {
      if (ci[b * M + j] < 0 || ci[b * M + j] >= W) {
        return InvalidArgument("cache_indirection[", b, ", ", j, "] = ", ci[b * M + j], " is not a beam in [0, ", W,
                               ")");
      }
    }
  }
  const float* past_k = args.input(kPastKey)->data<float>();
  const float* past_v = args.input(kPastValue)->data<float>();
  float* present_k = args.output(1)->data<float>();
  float* present_v = args.output(2)->data<float>();
  std::copy(past_k, past_k + B * N * M * H, present_k);
  std::copy(past_v, past_v + B * N * M * H, present_v);
  const int32_t* mask = args.input(kKeyPaddingMask) ? args.input(kKeyPaddingMask)->data<int32_t>() : nullptr;
  const float* bias = args.input(kAttentionBias) ? args.input(kAttentionBias)->data<float>() : nullptr;
  float* qk = s.has_qk ? args.output(3)->data<float>() : nullptr;
  float* out = args.output(0)->data<float>();
  float* scores = ThreadScratchFloats(ScratchSlot::kOp1, size_t(2 * T));
  float* probs = scores + T;
  for (int64_t b = 0; b < B; ++b) {
    const int64_t group = b / W;
    for (int64_t n = 0; n < N; ++n) {
      const float* qn = q + (b * N + n) * H;
      const float* kn = k + (b * N + n) * H;
      const float* vn = v + (b * N + n) * H;
      std::copy(kn, kn + H, present_k + ((b * N + n) * M + p_len) * H);
      std::copy(vn, vn + H, present_v + ((b * N + n) * M + p_len) * H);
      auto past_row = [&](const float* buffer, int64_t j) {
        return buffer + (((group * W + ci[b * M + j]) * N + n) * M + j) * H;
      };
      for (int64_t j = 0; j < T; ++j) {
        float score = PacketDot(qn, j < p_len ? past_row(past_k, j) : kn, H) * c.scale;
        if (bias != nullptr) {
          const int64_t row = (s.bias_dims[0] == 1 ? 0 : group * N) + (s.bias_dims[1] == 1 ? 0 : n);
          score = score + bias[row * T + j];
        }
        if (mask != nullptr && mask[b * T + j] == 0) score = score + c.mask_filter_value;
        scores[j] = score;
      }
      if (qk != nullptr) std::copy(scores, scores + T, qk + (b * N + n) * T);
      c.softmax(T, scores, probs);
      float* o = out + b * N * H + n * H;
      for (int64_t h = 0; h < H; ++h) {
        float acc = probs[p_len] * vn[h];
        for (int64_t j = 0; j < p_len; ++j) acc = acc + probs[j] * past_row(past_v, j)[h];
        o[h] = acc;
      }
    }
  }
  return Status::Ok();
}

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
  if (s.decoding) return RunDecodingStep(s, args, io.q, io.k, io.v);
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

// The beam-search decoding step's checks and outputs, once query, key, value and the heads are
// known (s.core: batch, heads, q_len, kv_len, head sizes; past checked as [B, N, M, H]).
Status PrepareDecodingStep(PrepareContext& ctx, MhaState& s) {
  AttentionCore& c = s.core;
  const char* overrun = " (ORT's kernel then reads or writes past its buffers)";
  if (!ctx.has_input(kCacheIndirection) || !ctx.has_input(kPastKey) || !ctx.has_input(kPastSequenceLength)) {
    return Unsupported("past_sequence_length without cache_indirection, past_key and past_value", overrun);
  }
  if (const char* off = std::getenv("ORT_DISABLE_DECODER_ATTENTION"); off != nullptr && std::string(off) == "1") {
    return Unsupported("past_sequence_length with ORT_DISABLE_DECODER_ATTENTION=1", overrun);
  }
  if (c.q_len != 1 || c.kv_len != 1 || s.kv_bnsh) {
    return Unsupported("the decoding step (cache_indirection) takes one query and one key token of rank 3", overrun);
  }
  if (c.v_head_size != c.head_size) return InvalidArgument("the decoding step needs V heads of Q's size");
  if (!ctx.has_output(1) || !ctx.has_output(2)) {
    return Unsupported("the decoding step without present_key and present_value (ORT's kernel crashes)");
  }
  s.buffer_len = ctx.input(kPastKey).dims[2];
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kPastSequenceLength, {DataType::kInt32}));
  if (ElementCount(ctx.input(kPastSequenceLength).dims) != 1) {
    return InvalidArgument("past_sequence_length must hold one value");
  }
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kCacheIndirection, {DataType::kInt32}));
  const Dims& ci = ctx.input(kCacheIndirection).dims;
  if (ci.size() != 3 || ci[0] * ci[1] != c.batch || ci[2] != s.buffer_len) {
    return InvalidArgument("cache_indirection ", DimsToString(ci), " must be [batch, beams, ", s.buffer_len,
                           "] with batch x beams = ", c.batch);
  }
  s.beams = ci[1];
  if (ctx.has_input(kKeyPaddingMask)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, kKeyPaddingMask, {DataType::kInt32}));
    s.mask_dims = ctx.input(kKeyPaddingMask).dims;
    if (s.mask_dims.size() != 2 || s.mask_dims[0] != c.batch) {
      return Unsupported("key_padding_mask ", DimsToString(s.mask_dims), " in the decoding step ([", c.batch,
                         ", past + 1])");
    }
  }
  if (ctx.has_input(kAttentionBias)) {
    s.bias_dims = ctx.input(kAttentionBias).dims;
    const Dims& d = s.bias_dims;
    if (d.size() != 4 || (d[0] != 1 && d[0] != c.batch) || (d[1] != 1 && d[1] != c.heads) || d[2] != 1) {
      return InvalidArgument("attention_bias ", DimsToString(d), " must be [", c.batch, " or 1, ", c.heads,
                             " or 1, 1, past + 1]");
    }
    if (d[0] != 1 && d[1] == 1 && (c.batch / s.beams - 1) * c.heads >= c.batch) {
      return Unsupported("attention_bias ", DimsToString(d), " with ", s.beams, " beams", overrun);
    }
  }
  s.decoding = true;
  s.has_present = true;
  s.has_qk = ctx.has_output(3);
  const TensorInfo& psl = ctx.input(kPastSequenceLength);
  // qk's shape is [B, N, 1, past + 1]: without the value now, the node is prepared when it runs.
  if (s.has_qk && psl.value == nullptr) return NeedsConstant(ctx, kPastSequenceLength, "past_sequence_length");
  ctx.SetOutput(0, DataType::kFloat32, {c.batch, 1, c.heads * c.head_size});
  ctx.SetOutput(1, DataType::kFloat32, ctx.input(kPastKey).dims);
  ctx.SetOutput(2, DataType::kFloat32, ctx.input(kPastValue).dims);
  if (s.has_qk) ctx.SetOutput(3, DataType::kFloat32, {c.batch, c.heads, 1, psl.value->GetAsInt64(0) + 1});
  ctx.SetKernelNote("decoding");
  ctx.SetKernel<MhaState, RunMha>(std::move(s));
  return Status::Ok();
}

Status PrepareMha(PrepareContext& ctx) {
  MhaState s;
  AttentionCore& c = s.core;
  QRT_ASSIGN_OR_RETURN(const bool unidirectional, ReadAttentionAttributes(ctx, c));
  for (int i : {kQuery, kKey, kValue, kBias, kAttentionBias, kPastKey, kPastValue}) {
    if (ctx.has_input(i)) QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {DataType::kFloat32}));
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
  if (ctx.has_input(kPastSequenceLength) || ctx.has_input(kCacheIndirection)) {
    FinishAttentionCore(ctx, c, unidirectional);
    return PrepareDecodingStep(ctx, s);
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
