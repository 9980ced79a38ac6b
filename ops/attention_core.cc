// The attention core (ops/attention_core.h).
#include "ops/attention_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops/kernels/common/thread_scratch.h"

namespace qrt {
namespace {

int64_t Count(const Dims* d) { return d == nullptr ? 0 : ElementCount(*d); }

// The key mask as floats, [B, S, T]: 0 for a kept key, mask_filter_value for a dropped one,
// -FLT_MAX past the causal diagonal of every row but the last.
Status BuildMask(const AttentionCore& c, const int32_t* mask, float* out) {
  const int64_t b_count = c.batch, s_count = c.q_len, t_count = c.total_len();
  const float drop = c.mask_filter_value;
  for (int64_t b = 0; b < b_count; ++b) {
    for (int64_t s = 0; s < s_count; ++s) {
      float* row = out + (b * s_count + s) * t_count;
      switch (c.mask) {
        case AttentionMask::kNone:
          std::fill(row, row + t_count, 0.f);
          break;
        case AttentionMask::kKeyEnd:
        case AttentionMask::kKeyStartEnd: {
          const int64_t end = mask[b];
          if (end < 0) return InvalidArgument("mask_index end position ", end, " of batch ", b, " is negative");
          const int64_t start =
              c.mask == AttentionMask::kKeyStartEnd ? std::min<int64_t>(mask[b_count + b], t_count) : 0;
          for (int64_t m = 0; m < t_count; ++m) row[m] = m >= end || m < start ? drop : 0.f;
          break;
        }
        case AttentionMask::kKeys:
          for (int64_t m = 0; m < t_count; ++m) row[m] = mask[b * t_count + m] > 0 ? 0.f : drop;
          break;
        case AttentionMask::kQueryKeys:
          for (int64_t m = 0; m < t_count; ++m) row[m] = mask[(b * s_count + s) * t_count + m] > 0 ? 0.f : drop;
          break;
      }
      if (c.causal && s < s_count - 1) {
        for (int64_t m = c.past_len + s + 1; m < t_count; ++m) row[m] = std::numeric_limits<float>::lowest();
      }
    }
  }
  return Status::Ok();
}

// The past rows of one head, then its new ones, into `dst`.
const float* Concat(const float* past, const float* now, int64_t past_values, int64_t new_values, float* dst) {
  if (past_values > 0) std::memcpy(dst, past, size_t(past_values) * sizeof(float));  // no past: null
  std::memcpy(dst + past_values, now, size_t(new_values) * sizeof(float));
  return dst;
}

}  // namespace

int64_t AttentionCore::scratch_floats(bool concat_past) const {
  const int64_t t = total_len();
  const bool masked = mask != AttentionMask::kNone || causal;
  return q_len * t + (masked ? batch * q_len * t : 0) + (concat_past ? t * (head_size + v_head_size) : 0);
}

StatusOr<bool> ReadAttentionAttributes(const PrepareContext& ctx, AttentionCore& c) {
  QRT_ASSIGN_OR_RETURN(c.heads, ctx.attrs().GetInt("num_heads"));
  if (c.heads <= 0) return InvalidArgument("num_heads must be positive, not ", c.heads);
  QRT_ASSIGN_OR_RETURN(int64_t unidirectional, ctx.attrs().GetInt("unidirectional", 0));
  QRT_ASSIGN_OR_RETURN(c.mask_filter_value, ctx.attrs().GetFloat("mask_filter_value", -10000.f));
  QRT_ASSIGN_OR_RETURN(c.scale, ctx.attrs().GetFloat("scale", 0.f));
  return unidirectional != 0;
}

void FinishAttentionCore(const PrepareContext& ctx, AttentionCore& c, bool unidirectional) {
  c.causal = unidirectional && c.q_len > 1;
  if (c.scale == 0.f) c.scale = 1.f / std::sqrt(float(c.head_size));
  c.gemm = SelectSgemmKernel(ctx.isa());
  c.softmax = SelectSoftmaxRow(ctx.isa());
}

Status PrepareAttentionMaskAndBias(AttentionCore& c, const Dims* mask_dims, const Dims* bias_dims, bool allow_start_end,
                                   bool dummy_2d_is_none) {
  const int64_t b = c.batch, s = c.q_len, t = c.total_len();
  c.mask = AttentionMask::kNone;
  if (mask_dims != nullptr) {
    const Dims& d = *mask_dims;
    if (d.size() == 1 && d[0] == b) {
      c.mask = AttentionMask::kKeyEnd;
    } else if (d.size() == 1 && d[0] == 3 * b + 2) {
      c.mask = AttentionMask::kKeyEnd;  // ORT reads only the end positions
    } else if (d.size() == 1 && d[0] == 2 * b && allow_start_end) {
      c.mask = AttentionMask::kKeyStartEnd;
    } else if (d.size() == 2 && dummy_2d_is_none && (d[0] == b || d[0] == 1) && d[1] == 1) {
      c.mask = AttentionMask::kNone;  // ORT takes a [B|1, 1] mask for a placeholder
    } else if (d.size() == 2 && d[0] == b && d[1] == t) {
      c.mask = AttentionMask::kKeys;
    } else if (d.size() == 3 && d[0] == b && d[1] == s && d[2] == t) {
      c.mask = AttentionMask::kQueryKeys;
    } else {
      return Unsupported("key mask of shape ", DimsToString(d), " (batch ", b, ", ", s, " queries, ", t,
                         " keys: [B], [3B+2], ", allow_start_end ? "[2B], " : "", "[B, T] or [B, S, T])");
    }
  }
  c.has_bias = bias_dims != nullptr && Count(bias_dims) > 0;
  if (c.has_bias) {
    const Dims& d = *bias_dims;
    if (d.size() != 4 || (d[0] != b && d[0] != 1) || (d[1] != c.heads && d[1] != 1) || d[2] != s || d[3] != t) {
      return InvalidArgument("attention_bias of shape ", DimsToString(d), " is not [", b, " or 1, ", c.heads, " or 1, ",
                             s, ", ", t, "]");
    }
    c.bias_per_batch = d[0] != 1;
    c.bias_per_head = d[1] != 1;
  }
  return Status::Ok();
}

Status RunAttentionCore(const AttentionCore& c, const AttentionTensors& io) {
  const int64_t n_heads = c.heads, s_len = c.q_len, l_len = c.kv_len, p_len = c.past_len, t_len = c.total_len();
  const int64_t h = c.head_size, hv = c.v_head_size;
  if (t_len == 0) {
    std::fill(io.out, io.out + c.batch * s_len * n_heads * hv, 0.f);
    return Status::Ok();
  }
  const bool has_past = io.past_k != nullptr && p_len > 0;
  const bool concat_scratch = has_past && io.present_k == nullptr;
  float* scratch = ThreadScratchFloats(ScratchSlot::kOp1, size_t(c.scratch_floats(concat_scratch)));
  float* scores = scratch;
  float* mask = nullptr;
  float* rest = scores + s_len * t_len;
  if (c.mask != AttentionMask::kNone || c.causal) {
    mask = rest;
    rest += c.batch * s_len * t_len;
    QRT_RETURN_IF_ERROR(BuildMask(c, io.mask, mask));
  }
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t n = 0; n < n_heads; ++n) {
      const int64_t bn = b * n_heads + n;
      const float* k = io.k + bn * l_len * h;
      const float* v = io.v + bn * l_len * hv;
      if (io.present_k != nullptr) {
        const float* past_k = has_past ? io.past_k + bn * p_len * h : nullptr;
        const float* past_v = has_past ? io.past_v + bn * p_len * hv : nullptr;
        k = Concat(past_k, k, has_past ? p_len * h : 0, l_len * h, io.present_k + bn * t_len * h);
        v = Concat(past_v, v, has_past ? p_len * hv : 0, l_len * hv, io.present_v + bn * t_len * hv);
      } else if (has_past) {
        k = Concat(io.past_k + bn * p_len * h, k, p_len * h, l_len * h, rest);
        v = Concat(io.past_v + bn * p_len * hv, v, p_len * hv, l_len * hv, rest + t_len * h);
      }
      SgemmArgs qk;
      qk.m = s_len, qk.n = t_len, qk.k = h;
      qk.a = io.q + bn * s_len * h, qk.lda = h;
      qk.b = k, qk.ldb = h, qk.trans_b = true;
      qk.c = scores, qk.ldc = t_len;
      qk.alpha = c.scale;
      qk.one_row_kernels = c.scale == 1.f;  // MLAS's one-row kernels take alpha 1 only
      c.gemm(qk);
      for (int64_t s = 0; s < s_len; ++s) {
        float* row = scores + s * t_len;
        if (c.has_bias) {
          const float* bias =
              io.bias +
              (((c.bias_per_batch ? b : 0) * (c.bias_per_head ? n_heads : 1) + (c.bias_per_head ? n : 0)) * s_len + s) *
                  t_len;
          for (int64_t j = 0; j < t_len; ++j) row[j] = row[j] + bias[j];
        }
        if (mask != nullptr) {
          const float* m = mask + (b * s_len + s) * t_len;
          for (int64_t j = 0; j < t_len; ++j) row[j] = row[j] + m[j];
        }
        if (io.qk != nullptr) std::memcpy(io.qk + (bn * s_len + s) * t_len, row, size_t(t_len) * sizeof(float));
        c.softmax(t_len, row, row);
      }
      SgemmArgs pv;
      pv.m = s_len, pv.n = hv, pv.k = t_len;
      pv.a = scores, pv.lda = t_len;
      pv.b = v, pv.ldb = hv;
      pv.c = io.out + b * s_len * n_heads * hv + n * hv, pv.ldc = n_heads * hv;
      c.gemm(pv);
    }
  }
  return Status::Ok();
}

void PlanFlashAttention(AttentionCore& c, int64_t l2_bytes, Isa isa) {
  const int64_t heads_width = c.head_size + c.v_head_size;
  const int64_t kv = std::max<int64_t>(l2_bytes / (16 * heads_width), 1);
  c.flash_q_block = std::max<int64_t>(std::min({kv, heads_width, c.q_len}), 1);
  c.flash_kv_block = std::max<int64_t>(std::min(kv, c.kv_len), 1);
  c.sum_exp = SelectSoftmaxSumExp(isa);
}

void RunFlashAttention(const AttentionCore& c, const AttentionTensors& io) {
  const int64_t n_heads = c.heads, s_len = c.q_len, l_len = c.kv_len, h = c.head_size, hv = c.v_head_size;
  const int64_t qb = c.flash_q_block, kvb = c.flash_kv_block;
  if (l_len == 0) {
    std::fill(io.out, io.out + c.batch * s_len * n_heads * hv, 0.f);
    return;
  }
  float* scores = ThreadScratchFloats(ScratchSlot::kOp1, size_t(qb * kvb + qb * hv + 2 * qb));
  float* acc = scores + qb * kvb;
  float* maxima = acc + qb * hv;
  float* sums = maxima + qb;
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t n = 0; n < n_heads; ++n) {
      const int64_t bn = b * n_heads + n;
      const float* q = io.q + bn * s_len * h;
      const float* k = io.k + bn * l_len * h;
      const float* v = io.v + bn * l_len * hv;
      for (int64_t q0 = 0; q0 < s_len; q0 += qb) {
        const int64_t rows = std::min(qb, s_len - q0);
        std::fill(maxima, maxima + rows, std::numeric_limits<float>::lowest());
        for (int64_t k0 = 0; k0 < l_len; k0 += kvb) {
          const int64_t count = std::min(kvb, l_len - k0);
          SgemmArgs qk;
          qk.m = rows, qk.n = count, qk.k = h;
          qk.a = q + q0 * h, qk.lda = h;
          qk.b = k + k0 * h, qk.ldb = h, qk.trans_b = true;
          qk.c = scores, qk.ldc = count;
          qk.alpha = c.scale;
          qk.one_row_kernels = c.scale == 1.f;
          c.gemm(qk);
          for (int64_t r = 0; r < rows; ++r) {
            float* row = scores + r * count;
            float block_max = std::numeric_limits<float>::lowest();
            for (int64_t j = 0; j < count; ++j) block_max = std::max(block_max, row[j]);
            const float old = maxima[r];
            maxima[r] = std::max(old, block_max);
            const float sum = c.sum_exp(count, row, -maxima[r], row);
            if (k0 == 0) {
              sums[r] = sum;
              continue;
            }
            const float e = std::exp(old - maxima[r]);
            sums[r] = e * sums[r] + sum;
            for (int64_t j = 0; j < hv; ++j) acc[r * hv + j] = e * acc[r * hv + j];
          }
          SgemmArgs pv;
          pv.m = rows, pv.n = hv, pv.k = count;
          pv.a = scores, pv.lda = count;
          pv.b = v + k0 * hv, pv.ldb = hv;
          pv.c = acc, pv.ldc = hv;
          pv.accumulate = k0 > 0;
          c.gemm(pv);
        }
        for (int64_t r = 0; r < rows; ++r) {
          float* out = io.out + (b * s_len + q0 + r) * n_heads * hv + n * hv;
          for (int64_t j = 0; j < hv; ++j) out[j] = acc[r * hv + j] / sums[r];
        }
      }
    }
  }
}

}  // namespace qrt
