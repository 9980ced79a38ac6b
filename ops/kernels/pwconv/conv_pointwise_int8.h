// The 1x1 convolution of qrt:ConvQuantizeDequantize computed with 8-bit integers (AVX-512
// VNNI, or AVX2), giving the same bits as the ordered float convolution (conv_float.h) followed by its
// epilogue, which stays the specification.
//
// Where it applies: X and W are float32 values on 8-bit grids (runtime QuantGrid; X per tensor,
// W signed with zero point 0, per tensor or per output channel), so x_k = fl(s_x * d_k) and
// w_k = fl(s_w * e_k) for integers d_k, e_k; the epilogue starts with a fake quantization
// (scale s_y). X is checked at run time: a block of columns not on its grid (NaN, infinities,
// any value the producer did not make) runs the float path instead.
//
// Why it is exact. Per output, with u = 2^-24, K input channels, bias b, and r_k the number of
// roundings on term k's path to the reference's result: the reference cuts k into blocks of kb
// (sgemm.h), so term k meets the multiply-adds from its own to its block's end, one addition
// per later block sum and the bias: r_k <= kb + ceil(K / kb) (133 for the first of K = 576 at
// 14x14, 1 + 5 for the last of a block). Weighting each term by its own count, instead of all by
// the largest, about halves the bound.
//   - S = sum_k d_k e_k is exact in int32 (VPDPBUSD on the bytes d_k + offset, minus
//     offset * sum_k e_k; on AVX2, VPMADDWD on int16 pairs of d_k and of e_k, |d_k e_k| <=
//     255 * 128, two products per lane without saturation);
//   - the real value Z = sum_k x_k w_k + b differs from s_x s_w S + b by at most 2.01u P,
//     P = s_x s_w sum_k |d_k e_k| (each of x_k, w_k is within u of s_x d_k, s_w e_k);
//   - the reference's float result y_ref is within sum_k gamma_{r_k} |x_k w_k| + gamma_1 |b| of
//     Z (recursive summation), gamma_r <= 1.0005 r u (r <= 4098 as K <= 4096), and
//     |x_k w_k| <= (1 + 2.01u) s_x s_w |d_k e_k|;
//   - the kernel estimates y_ref / s_y, not y_ref: t = fl(fl(S) * M + B) with the run's constants
//     M = fl(fl(s_x s_w) * i), B = fl(b * i), i = fl(1 / s_y) (one multiply-add, where
//     fl(fl(S) * fl(s_x s_w) + b) then times i took two). Apart from the last rounding, which
//     is u|t| and left to the step rule's margin, t is within (4.02u P + 2.01u|b|) / s_y of
//     (s_x s_w S + b) / s_y: S, s_x s_w, i and M rounded once each on the P side, i and b * i on
//     the b side.
//   So y_ref / s_y is within 1.0005 u (s_x s_w sum_k (r_k + 7) |d_k e_k| + 3|b|) / s_y of t. The
//   kernel takes E = 1.01u (s_x s_w ||d||_2 ||(r + 10) e||_2 + 12|b|), which is larger by
//   Cauchy-Schwarz: ||d||_2 per output column at run time, ||(r + 10) e||_2 per channel at plan
//   time, in float, every rounding in forming E / s_y covered by the extra 3u per term and the
//   1% (PointwiseInt8Steps rounds its constants up). Then y_ref / s_y is in [t - E / s_y, t + E / s_y].
//   Scales are kept far from underflow and overflow (plan), where these relative bounds hold.
//   The fake quantization's step q(v) = clamp(rint(fl(v / s_y)), L, H) is monotonic in v. The
//   kernel's one-step rule (Steps in the .cc) proves that every v / s_y in that interval gives
//   the same step A; then q(y_ref) = A, and the first epilogue step's output, fl(A * s_y), is
//   the reference's. Every other output (near a rounding boundary) is computed as the reference
//   computes it; the epilogue's later steps then run on the same floats.
// Sampled running sums (AVX2, long sums: plan.sampled). Cauchy-Schwarz weights every term by all
// the roundings after it, but each of the reference's roundings meets a partial sum, and partial
// sums cancel. With P_j the reference's partial sums within a k block, its block error is at most
// u / (1 - u) sum_j |a_j| <= 1.0003 u sum_j |P_j| (a_j the computed ones, at most 4096 terms), and
// |P_j| <= s_x s_w (|T_j| + 2.01u sum_i<=j |d_i e_i|), T_j the exact integer partial sum in the
// block. The tile keeps T at the end of every group of 16 terms (groups do not straddle the
// reference's k blocks: k_block is a multiple of 16 or k fits one block). Inside a group of at
// most 16 terms from T_s to T_e, each |T_j| <= (|T_s| + |T_e| + A_g) / 2, A_g the group's
// sum |d e|: the group's partial sums add up to at most 8 (|T_s| + |T_e| + A_g), and a block's
// (its first T_s is 0) to 16 sum |T_e| + 8 A. The block sums' additions round partial sums of
// blocks, each at most |T_cum| at a block's end (all of them counted), the bias's addition
// s_x s_w |S| + |b|, the estimate t's roundings 4u s_x s_w |S| and 2u |b|, and the products'
// 2.01u s_x s_w sum |d e|. So, every second-order term inside the 1% and the margin,
//   E' = 1.01u (s_x s_w (W + 11 ||d||_2 ||e||_2) + 12 |b|),
//   W = 16 sum_groups |T_e - T_block start| + sum_blocks |T_cum| + 6 |S|,
// bounds y_ref / s_y - t in units of s_y as E did, and the AVX2 kernel tries it on the outputs
// the first bound leaves open before recomputing them (sum |d e| <= ||d|| ||e|| again).
// Exact sums (power-of-two scales, as Vitis AI quantizes). Where s_x and s_w[c] are powers of two
// and max|d| * sum_k |e_k| <= 2^24, every x_k w_k is d_k e_k s_x s_w exactly and every partial sum
// of the reference, in any order, an integer multiple of s_x s_w within 2^24 of them: exact. So
// y_ref = fl(s_x s_w S + b), one rounding. With s_y a power of two too, t is fl(y_ref / s_y) itself,
// the value the fake quantization rounds, and every output is proven (PointwiseInt8Steps). The
// bound alone could not prove them: with dyadic scales, outputs sit exactly on .5 ties.
// A clamp before the fake quantization (ReLU6) narrows the steps' range (ClampSteps in the .cc).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ops/kernels/common/byte_pairs.h"
#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/conv/output_epilogue.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "runtime/cpu_features.h"
#include "runtime/quant_grid.h"

namespace qrt {

// The step rule's constants for channel c at one output scale s_y (the header's argument):
// the estimate t = fl(S * multiplier + bias) of y / s_y, and the lanes proven where
// |t - rint(t)| < fl(limit - ||d||_2 * reach_per_norm): reach_per_norm >= norm_bounds[c] *
// error_factor / s_y and limit <= 0.5 - 2^-13 - bias_bounds[c] / s_y (the 2^-13, kStepMargin in
// conv/exact_int8_plan.h, the margin for the roundings of t, of the reference's v / s_y and of
// the limit itself).
// With sampled running sums (the header), lanes left open are tried again where
// |t - rint(t)| < fl(limit - ||d||_2 * sampled_reach_per_norm - W * per_sum), W the sampled sums'
// weight: sampled_reach_per_norm >= sampled_norm_bounds[c] * error_factor / s_y and per_sum >=
// sum_bounds[c] * error_factor / s_y.
struct PointwiseInt8Step {
  float multiplier, bias, reach_per_norm, limit;
  float sampled_reach_per_norm = 0, per_sum = 0;
};

// Terms per group of the sampled running sums (header); the AVX2 tile's most channels.
constexpr int64_t kPointwiseSampleTerms = 16, kPointwiseSampleRows = 6;

// What plan time knows: the integer weights and the per-channel constants of the argument.
struct PointwiseInt8Plan;
struct PointwiseInt8Args;
struct PointwiseInt8Scratch;
// A kernel's pass (avx512:: and avx2::PointwiseInt8Pass below).
using PointwiseInt8PassFn = void (*)(const PointwiseInt8Plan& plan, const PointwiseInt8Args& args, const float* x,
                                     const uint8_t* x_codes, float* y, uint8_t* codes, int64_t first, int64_t last,
                                     const OutputEpilogue* rest, const PointwiseInt8Scratch& scratch);

struct PointwiseInt8Plan {
  int64_t channels = 0, k = 0, quads = 0;  // output channels, input channels, ceil(k / 4)
  // X is the convolution's patch matrix of codes (BuildCodePatches, k = C x kernel size rows),
  // not X itself: a kernel other than 1x1, strides, dilations or padding.
  bool patches = false;
  // The kernel, chosen at plan time: AVX-512 VNNI on quads of bytes, AVX2 on quads of bytes
  // with split pairs (split_pairs below), or AVX2 on pairs of int16.
  PointwiseInt8PassFn pass = nullptr;
  bool pairs = false;           // weights and packed X in pairs of int16 (AVX2) rather than quads
  int64_t rows = 0;             // quads, or pairs = ceil(k / 2): the packed rows of X and W
  int64_t columns = 0;          // output positions per image
  int64_t k_block = 0;          // SgemmStrideK(columns, k): the reference's order
  int64_t blocks_per_pass = 1;  // of kPointwiseInt8Columns columns (the .cc: why)
  // X's grid: x = fl(d * x_scale), d in [d_low, d_high]; d + x_offset is the byte VPDPBUSD reads.
  float x_scale = 0, x_inverse = 0;
  int32_t d_low = 0, d_high = 0, x_offset = 0;
  bool x_signed = false;  // X's codes are int8
  // channels x rows, k ascending: four signed bytes e_k each (quads), or two int16 (pairs).
  std::vector<int32_t> weights;
  std::vector<int32_t> offset_sums;  // x_offset * sum_k e_k per channel (quads only)
  // The AVX2 byte kernel: its quads hold the weights split so that no VPMADDUBSW word leaves
  // int16 (common/byte_pairs.h), the excesses added back per channel after the sums; with
  // quad_pairs, no word of two quads added in int16 either, and the kernel adds them.
  bool split_pairs = false;
  bool quad_pairs = false;
  PairCorrections corrections;
  // AVX2: the tile keeps its sums at the end of every kPointwiseSampleTerms terms, the second
  // bound (header) for the outputs the first leaves open; where sums are long enough for the
  // first to leave many.
  bool sampled = false;
  int64_t groups = 0;                      // ceil(k / kPointwiseSampleTerms)
  std::vector<float> sum_bounds;           // >= x_scale * w_scale[c]
  std::vector<float> sampled_norm_bounds;  // >= 11 * x_scale * w_scale[c] * ||e||_2
  // The byte forms' samples hold sum (d + x_offset) e' (the split weights): channels x groups
  // of x_offset * sum_{k < group's end} e_k (the whole weights) to take back.
  std::vector<int32_t> offset_prefixes;
  std::vector<float> multipliers;  // fl(x_scale * w_scale[c])
  std::vector<bool> exact_sums;    // per channel: the reference's sums are exact (header)
  std::vector<float> norm_bounds;  // >= x_scale * w_scale[c] * ||(r + 10) e||_2 (r: the header)
  std::vector<float> biases;       // b[c], 0 without a bias
  std::vector<float> bias_bounds;  // >= 12 * error_factor * |b[c]|
  float error_factor = 0;          // >= 1.01 * 2^-24
  // The step rule's constants (PointwiseInt8Step) at the output scale known at plan time, if
  // any (empty otherwise, or if they are not finite): a run at that scale uses them as they are.
  float steps_scale = 0;
  std::vector<PointwiseInt8Step> steps;
};

// The plan for a group-1 convolution of geometry g (1x1, or any kernel through its patches) with
// constant float weights w (on w_grid), float
// bias (nullable) and input grid x_grid, with the best kernel under the ceiling `isa` (none below
// AVX2: ConvPointwiseInt8 then declines every run); null where the int8 path does not apply. output_scale: the fake
// quantization's scale where it is a constant (0 if not known until run time).
std::shared_ptr<const PointwiseInt8Plan> PlanPointwiseInt8(const ConvGeometry& g, const float* w,
                                                           const QuantGrid& w_grid, const QuantGrid& x_grid,
                                                           const float* bias, float output_scale = 0,
                                                           Isa isa = kIsaAuto);

// Fills steps[0, channels) for one output scale; false if a constant is not finite (the caller
// runs the float path).
bool PointwiseInt8Steps(const PointwiseInt8Plan& plan, float output_scale, PointwiseInt8Step* steps);

struct PointwiseInt8Args {
  const float* x = nullptr;  // batch x k x columns
  // Or X as the 8-bit codes of its grid (x = fl((q - zero point) * x_scale), the plan's grid),
  // in place of x: no element is off the grid.
  const void* x_codes = nullptr;
  const float* w = nullptr;  // channels x k, the float weights (for outputs computed as floats)
  const float* bias = nullptr;
  float* y = nullptr;  // batch x channels x columns
  // Or, with an epilogue of the fake quantization alone, its codes (QuantizeLinear's output:
  // code = step + zero point) in place of y, `quantize` the QuantizeLinear kernel of their type.
  void* codes = nullptr;
  QuantizeF32Fn quantize = nullptr;
  int64_t batch = 1;
  OutputEpilogue epilogue;     // epilogue.before is the fake quantization the argument needs
  bool before_signed = false;  // its quantized type
  SgemmFn gemm = nullptr;      // the float path for columns off X's grid
  int threads = 1;
};

// An int8 kernel is there (AVX2; AVX-512 VNNI has its own).
bool PointwiseInt8Available(Isa isa = kIsaAuto);
// The tier of the kernel PlanPointwiseInt8 picks under `isa` (kScalar: none).
Isa PointwiseInt8Tier(Isa isa);

namespace ref {
// The specification of ConvPointwiseInt8 on every CPU: the definition of the convolution
// (ref::ConvFloat) on X's floats (or its codes' floats, fl(d * x_scale)), then the epilogue, or the
// codes of its first step; args.gemm and args.threads unused. Always computes (true).
bool ConvPointwiseInt8(const PointwiseInt8Plan& plan, const PointwiseInt8Args& args);
}  // namespace ref

// Runs the convolution and its epilogue. Returns false, having written nothing, when the
// epilogue's scale rules the argument out for this run (the caller then runs the float path).
bool ConvPointwiseInt8(const PointwiseInt8Plan& plan, const PointwiseInt8Args& args);

// The SIMD part: blocks [first, last) of kPointwiseInt8Columns output columns of one image (x
// and y, or codes, at the image), at most plan.blocks_per_pass of them, with the caller's
// buffers; `rest` is the epilogue after its first step (null if none). The driver
// (conv_pointwise_int8.cc) owns threads and buffers (ThreadScratch).
constexpr int64_t kPointwiseInt8Columns = 64;
struct PointwiseInt8Scratch {
  const PointwiseInt8Step* steps;  // channels, at this run's output scale
  // A clamp before the fake quantization (epilogue.clamp): the steps' range [low, high] within
  // the quantized type's (the driver's ClampSteps: why); the outputs computed as floats clamp.
  bool clamp;
  float clamp_low, clamp_high;
  int32_t* packed;   // blocks x rows x 64
  float* norms;      // blocks x 64
  int32_t* open;     // blocks x 4 x channels
  int32_t* counts;   // blocks x 4
  float* floats;     // blocks x k x 64
  float* outputs;    // channels x 64: a block's outputs as floats, when codes are written
  int32_t* samples;  // plan.sampled: a tile's sums at each group's end, kPointwiseSampleRows x 2 x groups x 8
};
namespace avx512 {
void PointwiseInt8Pass(const PointwiseInt8Plan& plan, const PointwiseInt8Args& args, const float* x,
                       const uint8_t* x_codes, float* y, uint8_t* codes, int64_t first, int64_t last,
                       const OutputEpilogue* rest, const PointwiseInt8Scratch& scratch);
}  // namespace avx512
namespace avx2 {
void PointwiseInt8Pass(const PointwiseInt8Plan& plan, const PointwiseInt8Args& args, const float* x,
                       const uint8_t* x_codes, float* y, uint8_t* codes, int64_t first, int64_t last,
                       const OutputEpilogue* rest, const PointwiseInt8Scratch& scratch);
// Over quads of bytes with VPMADDUBSW (the plan's weights split so that no word leaves int16),
// two quads a step with plan.quad_pairs.
void PointwiseInt8PassBytes(const PointwiseInt8Plan& plan, const PointwiseInt8Args& args, const float* x,
                            const uint8_t* x_codes, float* y, uint8_t* codes, int64_t first, int64_t last,
                            const OutputEpilogue* rest, const PointwiseInt8Scratch& scratch);
}  // namespace avx2

// Columns [j0, j0 + cols) of one image (x, y) through the float GEMM and the whole epilogue; with
// codes, through the GEMM into `outputs` (channels x 64) and QuantizeLinear: the passes' path
// for a block off X's grid. Plain C++ (conv_pointwise_int8.cc).
void PointwiseInt8FloatColumns(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, float* y,
                               uint8_t* codes, float* outputs, int64_t j0, int64_t cols);

}  // namespace qrt
