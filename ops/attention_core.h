// The scaled dot-product attention that ONNX Runtime 1.30's CPU kernels of com.microsoft
// Attention, QAttention and MultiHeadAttention share, in its float order (docs/float-order.md):
// per batch b and head h, with Q [S, H], K and V the past rows then the new ones ([T, H], [T, Hv]):
//   scores = Q K^T * scale           the ordered GEMM, beta 0, alpha = scale (sgemm.h)
//   row   = (row + bias[s]) + mask[s] two plain float adds, each only where there is one
//   row   = softmax(row)              the Softmax op's row kernel
//   out[b, s, h*Hv ...] = row V        the ordered GEMM
// The mask is built per run as floats: 0 where a key is kept, mask_filter_value where the key
// mask drops it, and then, for every query row but the last, -FLT_MAX past the causal
// diagonal (written over the key mask's value), as ORT's CPU kernel does.
#pragma once

#include <cstdint>

#include "ops/kernels/eltwise/softmax.h"
#include "ops/kernels/gemm/sgemm.h"
#include "runtime/op_def.h"

namespace qrt {

enum class AttentionMask {
  kNone,
  kKeyEnd,       // [B]: keys at and after end[b] are dropped ([3B + 2]: its first B values)
  kKeyStartEnd,  // [2B]: also the keys before start[b] = mask[B + b] (Attention only)
  kKeys,         // [B, T]: key m of batch b kept where mask > 0
  kQueryKeys,    // [B, S, T]: the same per query row
};

struct AttentionCore {
  int64_t batch = 1, heads = 1, q_len = 1, kv_len = 1, past_len = 0, head_size = 1, v_head_size = 1;
  float scale = 1.f;
  float mask_filter_value = -10000.f;
  bool causal = false;  // unidirectional with more than one query row
  AttentionMask mask = AttentionMask::kNone;
  bool has_bias = false, bias_per_batch = false, bias_per_head = false;  // attention bias [B|1, N|1, S, T]
  SgemmFn gemm = nullptr;
  SoftmaxRowFn softmax = nullptr;
  // ORT's flash attention (RunFlashAttention): query rows and keys per block, and the softmax's
  // exp-and-sum step; 0 where the plain path runs.
  int64_t flash_q_block = 0, flash_kv_block = 0;
  SoftmaxSumExpFn sum_exp = nullptr;

  int64_t total_len() const { return past_len + kv_len; }
  // Floats of scratch RunAttentionCore needs (ThreadScratch's kOp1 slot).
  int64_t scratch_floats(bool concat_past) const;
};

// The attributes Attention, QAttention and MultiHeadAttention share: num_heads (positive),
// mask_filter_value and scale (0: the default, set by FinishAttentionCore) into `c`; returns
// unidirectional.
StatusOr<bool> ReadAttentionAttributes(const PrepareContext& ctx, AttentionCore& c);
// Once the dims are set: causal rows (unidirectional with more than one query row), the default
// scale 1 / sqrtf(head_size) computed in float as ORT does, and the kernels under ctx's ceiling.
void FinishAttentionCore(const PrepareContext& ctx, AttentionCore& c, bool unidirectional);

// Fills the core's fields shared by every op from its inputs' dims: the mask's format (key mask
// `mask_dims`, null when absent; [2B] only where `allow_start_end`; a [B|1, 1] mask counts as
// none where `dummy_2d_is_none`) and the attention bias's broadcast (`bias_dims`, null when
// absent). q_len, past_len and kv_len must be set before.
Status PrepareAttentionMaskAndBias(AttentionCore& c, const Dims* mask_dims, const Dims* bias_dims, bool allow_start_end,
                                   bool dummy_2d_is_none);

// Q [B, N, S, H], K [B, N, L, H], V [B, N, L, Hv]; past K and V [B, N, P, H|Hv] (or null); present
// K and V [B, N, T, H|Hv] (or null): the past rows then the new ones are copied there, and read
// from there (from scratch when there is past but no present). `out` is [B, S, N * Hv]; `qk`
// (optional, [B, N, S, T]) receives each score row before its softmax.
struct AttentionTensors {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  const float* past_k = nullptr;
  const float* past_v = nullptr;
  float* present_k = nullptr;
  float* present_v = nullptr;
  const int32_t* mask = nullptr;
  const float* bias = nullptr;
  float* out = nullptr;
  float* qk = nullptr;
};

// Fails only on a key mask whose end position is negative.
Status RunAttentionCore(const AttentionCore& c, const AttentionTensors& t);

// ORT's flash attention, which its MultiHeadAttention takes where there is no mask, attention
// bias, past, causal masking or output but the attention's: the block sizes from the reference
// CPU's L2 size (runtime/ort_cpu.h), in integers,
//   kv = max(L2 / (16 (H + Hv)), 1),  q = min(kv, H + Hv, S),  kv = min(kv, L),
// then per batch, head and block of query rows, for each block of keys from the first:
//   s = Q K^T * scale                         the ordered GEMM over this block (beta 0)
//   per row: m' = max(m, max s)  (m from -FLT_MAX);  s = exp~(s - m'), sum r (the softmax's
//            exp-and-sum kernel);  l = r for the first block, else e = expf(m - m') (libm),
//            l = e * l + r and O = e * O (each product rounded);  m = m'
//   O = s V (+ O)                              the ordered GEMM, accumulating after the first
// and out = O / l (a division: the plain path multiplies by 1 / sum before P V).
void PlanFlashAttention(AttentionCore& c, int64_t l2_bytes, Isa isa);
void RunFlashAttention(const AttentionCore& c, const AttentionTensors& t);

}  // namespace qrt
