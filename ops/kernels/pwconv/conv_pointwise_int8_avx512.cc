// AVX-512 VNNI kernel of the exact int8 pointwise convolution (conv_pointwise_int8.h has the
// argument). Picked only where the CPU has AVX512_VNNI (PointwiseInt8Available). The driver,
// threads and buffers are in conv_pointwise_int8.cc, built for the baseline ISA: no library
// template (std::vector, std::function) is instantiated here, where the linker could keep an
// AVX-512 copy for callers on any CPU.
//
// Per image, the output columns go in blocks of 64, and the blocks in passes (the plan sizes a
// pass so that its packed X and floats stay in L1): each block of X is checked against its grid
// and packed as bytes for VPDPBUSD, then tiles of 6 channels sum in int32 over every block of the
// pass, and each output is either proven (written as fl(q * s_y)) or computed as the reference
// computes it. Going over the pass's blocks within a tile writes each output row in runs of
// several blocks: with one block for all channels at a time, the stores went to as many rows as
// there are channels (96 to 1280), more than the hardware follows as streams, and missed. A
// block off its grid runs the float GEMM with
// the whole epilogue.
#include <algorithm>
#include <cmath>

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/pwconv/conv_pointwise_int8.h"
#include "ops/kernels/quantize/quantizer_avx512.h"

namespace qrt::avx512 {
namespace {

constexpr int kTileRows = 6;     // output channels per tile
constexpr int kTileVectors = 4;  // vectors of 16 columns per tile
constexpr int64_t kBlock = 16 * kTileVectors;
static_assert(kBlock == kPointwiseInt8Columns, "the driver's block width");

// Packs columns [0, cols) of X (k rows) for VPDPBUSD: entry (q, j) holds the bytes d + offset
// of rows 4q..4q+3 at column j (0 past k, where the weights are 0 too); norms[j] >= ||d||_2 of
// column j (the squares summed in float, each partial sum then within k * 2^-24 <= 2^-12 of the
// exact one, below it at worst: the sum is raised by 2^-11 before the square root, so the norm
// is an upper bound); floats (k x 64) the columns' floats, 0 past cols, for the outputs computed
// as floats (aligned rows, where X's rows are `columns` apart: loads straddling cache lines, or a
// copy made later, slowed those chains). Only the first V = ceil(cols / 16) vectors of columns
// are written: no one reads the rest. element(k, v, valid, &x, &d, &byte) gives row k's vector v
// (lanes outside `valid`, past cols, as d = 0) and returns its lanes off the grid.
// False if an element is off the grid.
template <int V, class Element>
bool PackColumns(const PointwiseInt8Plan& p, int64_t cols, int32_t* out, float* norms, float* floats,
                 const Element& element) {
  __mmask16 valid[V];
  __m512 squares[V];
  for (int v = 0; v < V; ++v) valid[v] = FirstLanes(cols - 16 * v), squares[v] = _mm512_setzero_ps();
  __mmask16 off_grid = 0;
  for (int64_t q = 0; q < p.quads; ++q) {
    __m512i quad[V];
    for (int v = 0; v < V; ++v) quad[v] = _mm512_setzero_si512();
    for (int64_t j = 0; j < 4 && 4 * q + j < p.k; ++j) {
      const __m512i shift = _mm512_set1_epi32(int(8 * j));
      for (int v = 0; v < V; ++v) {
        __m512 x, d;
        __m512i byte;
        off_grid |= element(4 * q + j, v, valid[v], &x, &d, &byte);
        _mm512_store_ps(floats + (4 * q + j) * kBlock + 16 * v, x);
        squares[v] = _mm512_fmadd_ps(d, d, squares[v]);
        quad[v] = _mm512_or_si512(quad[v], j == 0 ? byte : _mm512_sllv_epi32(byte, shift));
      }
    }
    for (int v = 0; v < V; ++v) _mm512_storeu_si512(out + q * kBlock + 16 * v, quad[v]);
  }
  for (int v = 0; v < V; ++v) {
    const __m512 raised = _mm512_mul_ps(squares[v], _mm512_set1_ps(1.f + 1.f / 2048.f));
    _mm512_storeu_ps(norms + 16 * v, _mm512_sqrt_ps(raised));
  }
  return off_grid == 0;
}

// PackColumns from X's floats (row stride ld), each checked against the grid: d = rint(x / s_x)
// clamped to the type's range, and x must be fl(d * s_x). Lanes past cols load 0, which is on
// every grid (d = 0).
template <int V>
bool Pack(const PointwiseInt8Plan& p, const float* x, int64_t ld, int64_t cols, int32_t* out, float* norms,
          float* floats) {
  const __m512 inverse = _mm512_set1_ps(p.x_inverse), scale = _mm512_set1_ps(p.x_scale);
  const __m512 low = _mm512_set1_ps(float(p.d_low)), high = _mm512_set1_ps(float(p.d_high));
  const __m512 magic = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23: (t + magic) - magic = rint(t)
  const __m512i offset = _mm512_set1_epi32(p.x_offset);
  return PackColumns<V>(p, cols, out, norms, floats,
                        [&](int64_t k, int v, __mmask16 valid, __m512* xv, __m512* d, __m512i* byte) {
                          *xv = _mm512_maskz_loadu_ps(valid, x + k * ld + 16 * v);
                          const __m512 t = _mm512_min_ps(high, _mm512_max_ps(low, _mm512_mul_ps(*xv, inverse)));
                          *d = _mm512_sub_ps(_mm512_add_ps(t, magic), magic);
                          *byte = _mm512_add_epi32(_mm512_cvtps_epi32(*d), offset);
                          // As DequantizeLinear computes it: (float(q) - float(zp)) * s = fl(d * s). NaN differs.
                          return _mm512_cmp_ps_mask(_mm512_mul_ps(*d, scale), *xv, _CMP_NEQ_UQ);
                        });
}

// X's codes (one byte per element, rows ld apart) packed for VPDPBUSD by byte shuffles: four
// rows of 64 codes interleaved into dwords (the unpacks work within 128-bit lanes, so vector v's
// columns 16v..16v+15 are gathered back from lane v of each unpacked vector), and norms[j] >=
// ||d||_2 of column j from the exact sum of d^2 (VPDPWSSD on the dwords' bytes as int16, d =
// byte - offset). The byte VPDPBUSD reads is d + offset = q - (type's lowest): the code itself for
// uint8, the code + 128 (top bit flipped) for int8. Columns past cols and rows past k hold the
// byte `offset` (d = 0). The floats the recomputation needs are made only where it runs
// (CodeFloats).
void PackCodes(const PointwiseInt8Plan& p, const uint8_t* q, int64_t ld, int64_t cols, int32_t* out, float* norms) {
  const __mmask64 valid = cols >= kBlock ? ~__mmask64(0) : (__mmask64(1) << cols) - 1;
  const __m512i flip = _mm512_set1_epi8(char(p.x_signed ? 0x80 : 0));
  const __m512i zero_d = _mm512_set1_epi8(char(p.x_offset));
  const __m512i loaded_zero_d = _mm512_xor_si512(zero_d, flip);  // flipped back when loaded
  const __m512i offset16 = _mm512_set1_epi16(int16_t(p.x_offset)), low_bytes = _mm512_set1_epi32(0x00FF00FF);
  auto row = [&](int64_t k) {
    if (k >= p.k) return zero_d;
    return _mm512_xor_si512(_mm512_mask_loadu_epi8(loaded_zero_d, valid, q + k * ld), flip);
  };
  __m512i squares[kTileVectors];
  for (int v = 0; v < kTileVectors; ++v) squares[v] = _mm512_setzero_si512();
  for (int64_t quad = 0; quad < p.quads; ++quad) {
    const __m512i r0 = row(4 * quad), r1 = row(4 * quad + 1), r2 = row(4 * quad + 2), r3 = row(4 * quad + 3);
    const __m512i a = _mm512_unpacklo_epi8(r0, r1), b = _mm512_unpackhi_epi8(r0, r1);
    const __m512i c = _mm512_unpacklo_epi8(r2, r3), d = _mm512_unpackhi_epi8(r2, r3);
    // t[i], lane L: the dwords of columns 16L + 4i .. 16L + 4i + 3.
    const __m512i t0 = _mm512_unpacklo_epi16(a, c), t1 = _mm512_unpackhi_epi16(a, c);
    const __m512i t2 = _mm512_unpacklo_epi16(b, d), t3 = _mm512_unpackhi_epi16(b, d);
    const __m512i u0 = _mm512_shuffle_i32x4(t0, t1, 0x44), u1 = _mm512_shuffle_i32x4(t0, t1, 0xEE);
    const __m512i u2 = _mm512_shuffle_i32x4(t2, t3, 0x44), u3 = _mm512_shuffle_i32x4(t2, t3, 0xEE);
    const __m512i vectors[kTileVectors] = {_mm512_shuffle_i32x4(u0, u2, 0x88), _mm512_shuffle_i32x4(u0, u2, 0xDD),
                                           _mm512_shuffle_i32x4(u1, u3, 0x88), _mm512_shuffle_i32x4(u1, u3, 0xDD)};
    for (int v = 0; v < kTileVectors; ++v) {
      _mm512_storeu_si512(out + quad * kBlock + 16 * v, vectors[v]);
      const __m512i even = _mm512_sub_epi16(_mm512_and_si512(vectors[v], low_bytes), offset16);
      const __m512i odd = _mm512_sub_epi16(_mm512_srli_epi16(vectors[v], 8), offset16);
      squares[v] = _mm512_dpwssd_epi32(_mm512_dpwssd_epi32(squares[v], even, even), odd, odd);
    }
  }
  // The sums are exact (k 255^2 < 2^31); converted to float they round by at most 2^-24, which
  // the raise by 2^-11 covers, so the norm stays an upper bound.
  for (int v = 0; v < kTileVectors; ++v) {
    const __m512 raised = _mm512_mul_ps(_mm512_cvtepi32_ps(squares[v]), _mm512_set1_ps(1.f + 1.f / 2048.f));
    _mm512_storeu_ps(norms + 16 * v, _mm512_sqrt_ps(raised));
  }
}

// The floats of a block of X's codes (k x 64, 0 past cols), as DequantizeLinear makes them,
// fl(d * s_x): what the recomputation reads.
void CodeFloats(const PointwiseInt8Plan& p, const uint8_t* q, int64_t ld, int64_t cols, float* floats) {
  const __m512 scale = _mm512_set1_ps(p.x_scale);
  const __m512i offset = _mm512_set1_epi32(p.x_offset);
  const __m128i flip = _mm_set1_epi8(char(p.x_signed ? 0x80 : 0));
  for (int64_t k = 0; k < p.k; ++k) {
    for (int v = 0; 16 * v < cols; ++v) {
      const __mmask16 valid = FirstLanes(cols - 16 * v);
      const __m128i codes = _mm512_castsi512_si128(_mm512_maskz_loadu_epi8(__mmask64(valid), q + k * ld + 16 * v));
      const __m512i byte = _mm512_mask_cvtepu8_epi32(offset, valid, _mm_xor_si128(codes, flip));
      _mm512_store_ps(floats + k * kBlock + 16 * v,
                      _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(byte, offset)), scale));
    }
  }
}

// out[r][v] = sum over quads of the packed bytes x (columns 16v..16v+15) times row r's
// weights, for the block's first V vectors (a block at the end of a row may hold fewer than
// four). The sums live in registers (a local array fully unrolled); writing through `out`
// inside the loop made GCC store every accumulator after every VPDPBUSD.
template <int R, int V>
void Tile(const int32_t* x, int64_t quads, const int32_t* w, int64_t w_stride,
          __m512i (&out)[kTileRows][kTileVectors]) {
  __m512i acc[R][V];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[r][v] = _mm512_setzero_si512();
  }
  for (int64_t q = 0; q < quads; ++q, x += kBlock) {
    __m512i xv[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) xv[v] = _mm512_loadu_si512(x + 16 * v);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m512i wr = _mm512_set1_epi32(w[r * w_stride + q]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], xv[v], wr);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) out[r][v] = acc[r][v];
  }
}

using TileFn = void (*)(const int32_t*, int64_t, const int32_t*, int64_t, __m512i (&)[kTileRows][kTileVectors]);
template <int R>
constexpr TileFn kTilesOfRows[kTileVectors + 1] = {nullptr, Tile<R, 1>, Tile<R, 2>, Tile<R, 3>, Tile<R, 4>};
// kTiles[rows][vectors]
constexpr const TileFn* kTiles[kTileRows + 1] = {nullptr,         kTilesOfRows<1>, kTilesOfRows<2>, kTilesOfRows<3>,
                                                 kTilesOfRows<4>, kTilesOfRows<5>, kTilesOfRows<6>};

// Channel c's constants, broadcast once for all its vectors (read through the plan inside the
// loop, they were loaded again after every store: the compiler cannot tell the outputs from them).
struct ChannelConstants {
  __m512i offset_sum;
  __m512 multiplier, bias, reach_per_norm, limit;
  ChannelConstants(const PointwiseInt8Plan& p, const PointwiseInt8Step* steps, int64_t c)
      : offset_sum(_mm512_set1_epi32(p.offset_sums[size_t(c)])),
        multiplier(_mm512_set1_ps(steps[c].multiplier)),
        bias(_mm512_set1_ps(steps[c].bias)),
        reach_per_norm(_mm512_set1_ps(steps[c].reach_per_norm)),
        limit(_mm512_set1_ps(steps[c].limit)) {}
};

// Channel c's 16 steps from their int32 sums, by the one-step rule: t = fl(S * M + B) estimates
// y_ref / s_y (the header), clamped to [L, H] with kClamp, and A = rint(t). Where |t - A| <
// fl(limit - ||d|| * reach_per_norm), which is at most 0.5 - 2^-13 - E / s_y, every v / s_y
// within E / s_y of t has the step A: while |t| < 2^9 the roundings of t and of the reference's
// fl(v / s_y) move it by under 2^-14, so it stays strictly inside A's rounding interval; where t
// was clamped to H (or L), fl(v / s_y) stays above H - 0.5 (below L + 0.5) and saturates to it;
// past 2^9, t and v / s_y both lie beyond every 8-bit step and saturate to the same end
// (kStepMargin, conv/exact_int8_plan.h). Unclamped, a proven t is below 2^20 in magnitude: E >=
// 10.1u |s_x s_w S + b| (Cauchy-Schwarz, and r_k + 10 >= 10), so E / s_y < 0.5 bounds it, and
// the caller saturates A as QuantizeLinear would (t of a lane not proven may be anything: it is
// recomputed). Returns t and the `valid` lanes not proven (NaN is never proven).
template <bool kClamp>
inline __mmask16 Steps(const ChannelConstants& k, __m512i acc, __m512 norms, const Quantizer& rule, __mmask16 valid,
                       __m512* estimate) {
  const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, k.offset_sum));
  __m512 t = _mm512_fmadd_ps(sum, k.multiplier, k.bias);
  if (kClamp) t = _mm512_min_ps(rule.high, _mm512_max_ps(rule.low, t));
  *estimate = t;
  const __m512 off = _mm512_abs_ps(_mm512_reduce_ps(t, kNearest));  // |t - A|, exact
  const __m512 limit = _mm512_fnmadd_ps(norms, k.reach_per_norm, k.limit);
  return _mm512_mask_cmp_ps_mask(valid, off, limit, _CMP_NLT_UQ);
}

// Four vectors of codes as 64 bytes in column order, each dword saturated to 0..255 and the top
// bit flipped by `flip` (int8 codes are kept + 128, so saturating to 0..255 saturates both types
// at their ends as QuantizeLinear does). The dwords are clamped first: a proven estimate may lie
// 2^15 steps or more past the end, and the word pack's 32768..65535 are negative to the byte
// pack, which would make them 0. The packs interleave 128-bit lanes: lane l holds columns
// 4l..4l+3 of each vector, so dword 4l + v holds vector v's; the permutation puts vector v's 16
// bytes at 16v.
inline __m512i PackCodeVectors(const __m512i (&code)[kTileVectors], __m512i flip) {
  const __m512i zero = _mm512_setzero_si512(), top = _mm512_set1_epi32(255);
  __m512i c[kTileVectors];
  for (int v = 0; v < kTileVectors; ++v) c[v] = _mm512_min_epi32(_mm512_max_epi32(code[v], zero), top);
  const __m512i words01 = _mm512_packus_epi32(c[0], c[1]), words23 = _mm512_packus_epi32(c[2], c[3]);
  const __m512i bytes = _mm512_packus_epi16(words01, words23);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_xor_si512(_mm512_permutexvar_epi32(order, bytes), flip);
}

// Computes N (<= 8) channels' outputs at one vector of 16 columns (x: its k rows, 64 floats
// apart, y at its first column) as the ordered GEMM does (sgemm.h, m > 1: a fused multiply-add chain
// per k block, block sums in order, then the bias), each lane one output, the chains
// interleaved so that their latencies overlap and sharing each load of X; then the first
// epilogue step. Lanes past the block's columns are not written.
template <int N>
void ReferenceVectors(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, float* y, uint8_t* codes,
                      const int32_t* channels, __mmask16 valid) {
  const float* w[N];
  for (int i = 0; i < N; ++i) w[i] = a.w + channels[i] * p.k;
  __m512 c[N], acc[N];
  for (int i = 0; i < N; ++i) c[i] = _mm512_setzero_ps();  // k >= 1: always replaced
  for (int64_t p0 = 0; p0 < p.k; p0 += p.k_block) {
    for (int i = 0; i < N; ++i) acc[i] = _mm512_setzero_ps();
    for (int64_t k = p0; k < std::min(p.k, p0 + p.k_block); ++k) {
      const __m512 xv = _mm512_load_ps(x + k * kBlock);
#pragma GCC unroll 8
      for (int i = 0; i < N; ++i) acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(w[i][k]), xv, acc[i]);
    }
    for (int i = 0; i < N; ++i) c[i] = p0 == 0 ? acc[i] : _mm512_add_ps(acc[i], c[i]);
  }
  const FakeQuantStep& fq = a.epilogue.before;
  const OutputEpilogue head = a.epilogue.Head();
  for (int i = 0; i < N; ++i) {
    if (a.bias != nullptr) c[i] = _mm512_add_ps(c[i], _mm512_set1_ps(a.bias[channels[i]]));
    alignas(64) float out[16];
    _mm512_store_ps(out, c[i]);
    if (codes != nullptr) {  // QuantizeLinear of the reference's floats
      uint8_t q[16];
      a.quantize(16, out, fq.scale, fq.zero_point, q);
      uint8_t* to = codes + channels[i] * p.columns;
      for (int l = 0; l < 16; ++l) {
        if (valid >> l & 1) to[l] = q[l];
      }
      continue;
    }
    head.Apply(out, 16, 0);  // the clamp, if any, and the fake quantization
    _mm512_mask_storeu_ps(y + channels[i] * p.columns, valid, _mm512_load_ps(out));
  }
}

using ReferenceFn = void (*)(const PointwiseInt8Plan&, const PointwiseInt8Args&, const float*, float*, uint8_t*,
                             const int32_t*, __mmask16);
constexpr ReferenceFn kReference[9] = {nullptr,
                                       ReferenceVectors<1>,
                                       ReferenceVectors<2>,
                                       ReferenceVectors<3>,
                                       ReferenceVectors<4>,
                                       ReferenceVectors<5>,
                                       ReferenceVectors<6>,
                                       ReferenceVectors<7>,
                                       ReferenceVectors<8>};

// How codes are made from the steps: code = A + add, add the zero point (int8 codes + 128, flipped
// back once packed, so that the unsigned packs saturate both types to their range, as
// QuantizeLinear saturates).
struct CodeForm {
  __m512i add, flip;
};

// A tile's outputs (channels c0.., `rows` of them, the block's first V vectors of columns): each
// written, fl(A * s_y) to y or the code to `codes` (a row's four vectors as one 64-byte store),
// and where a lane is not proven its channel added to the vector's open list (open + v *
// channels, count[v]). V is a constant so that the counts stay in registers (through memory,
// each update waited on the last).
template <int V, bool kCodes>
void FinishTile(const PointwiseInt8Plan& p, const PointwiseInt8Step* steps,
                const __m512i (&acc)[kTileRows][kTileVectors], int rows, int64_t c0, const Quantizer& rule,
                const float* norm_values, int64_t cols, float* y, uint8_t* codes, const CodeForm& form, int32_t* open,
                int32_t* count) {
  __m512 norms[V];
  __mmask16 valid[V];
  int32_t n[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    norms[v] = _mm512_load_ps(norm_values + 16 * v), valid[v] = FirstLanes(cols - 16 * v), n[v] = count[v];
  }
  const __mmask64 row_bytes = cols >= 64 ? ~__mmask64(0) : (__mmask64(1) << cols) - 1;
  for (int r = 0; r < rows; ++r) {
    const int64_t c = c0 + r;
    const ChannelConstants k(p, steps, c);
    __m512i code[kTileVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kTileVectors; ++v) code[v] = _mm512_setzero_si512();
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      __m512 t;
      const __mmask16 unproven = Steps<!kCodes>(k, acc[r][v], norms[v], rule, valid[v], &t);
      if (kCodes) {
        code[v] = _mm512_add_epi32(_mm512_cvtps_epi32(t), form.add);  // A: rounds to nearest even
      } else {
        // As the reference's quantizer: (t + 1.5 * 2^23) - 1.5 * 2^23, +0 for t in (-0.5, 0) where
        // rounding t itself gave -0.
        const __m512 step = _mm512_sub_ps(_mm512_add_ps(t, rule.magic), rule.magic);
        _mm512_mask_storeu_ps(y + c * p.columns + 16 * v, valid[v], _mm512_mul_ps(step, rule.scale));
      }
      open[v * p.channels + n[v]] = int32_t(c);  // kept only if a lane is open: no branch to mispredict
      n[v] += unproven != 0;
    }
    if (kCodes) {
      const __m512i bytes = PackCodeVectors(code, form.flip);
      uint8_t* to = codes + c * p.columns;
      if (V == kTileVectors && cols >= 64)
        _mm512_storeu_si512(to, bytes);
      else
        _mm512_mask_storeu_epi8(to, row_bytes, bytes);
    }
  }
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) count[v] = n[v];
}

using FinishTileFn = void (*)(const PointwiseInt8Plan&, const PointwiseInt8Step*,
                              const __m512i (&)[kTileRows][kTileVectors], int, int64_t, const Quantizer&, const float*,
                              int64_t, float*, uint8_t*, const CodeForm&, int32_t*, int32_t*);
// kFinishTiles[codes][vectors]
constexpr FinishTileFn kFinishTiles[2][kTileVectors + 1] = {
    {nullptr, FinishTile<1, false>, FinishTile<2, false>, FinishTile<3, false>, FinishTile<4, false>},
    {nullptr, FinishTile<1, true>, FinishTile<2, true>, FinishTile<3, true>, FinishTile<4, true>}};

}  // namespace

void PointwiseInt8Pass(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, const uint8_t* x_codes,
                       float* y, uint8_t* codes, int64_t first, int64_t last, const OutputEpilogue* rest,
                       const PointwiseInt8Scratch& scratch) {
  using PackFn = bool (*)(const PointwiseInt8Plan&, const float*, int64_t, int64_t, int32_t*, float*, float*);
  constexpr PackFn kPack[kTileVectors + 1] = {nullptr, Pack<1>, Pack<2>, Pack<3>, Pack<4>};
  const int64_t blocks = last - first;
  auto columns_of = [&](int64_t b) { return std::min(kBlock, p.columns - (first + b) * kBlock); };
  auto packed_of = [&](int64_t b) { return scratch.packed + b * p.quads * kBlock; };
  auto floats_of = [&](int64_t b) { return scratch.floats + b * p.k * kBlock; };
  // open[(4b + v) * channels + i], i < count[4b + v]: the channels with an output near a
  // rounding boundary in vector v of block b. A block off its grid has count -1.
  int32_t* open = scratch.open;
  int32_t* count = scratch.counts;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t j0 = (first + b) * kBlock, cols = columns_of(b);
    bool on_grid = true;
    if (x_codes != nullptr) {
      PackCodes(p, x_codes + j0, p.columns, cols, packed_of(b), scratch.norms + b * kBlock);
    } else {
      on_grid =
          kPack[(cols + 15) / 16](p, x + j0, p.columns, cols, packed_of(b), scratch.norms + b * kBlock, floats_of(b));
    }
    for (int v = 0; v < kTileVectors; ++v) count[4 * b + v] = on_grid ? 0 : -1;
    if (!on_grid) PointwiseInt8FloatColumns(p, a, x, y, codes, scratch.outputs, j0, cols);
  }
  const FakeQuantStep& fq = a.epilogue.before;
  Quantizer rule(fq.scale, fq.zero_point, a.before_signed);
  if (scratch.clamp) {  // the steps' range narrowed (PointwiseInt8Scratch)
    rule.low = _mm512_max_ps(rule.low, _mm512_set1_ps(scratch.clamp_low));
    rule.high = _mm512_min_ps(rule.high, _mm512_set1_ps(scratch.clamp_high));
  }
  const int32_t kept_offset = a.before_signed ? 128 : 0;  // int8 codes kept + 128 until packed
  const CodeForm form{_mm512_set1_epi32(fq.zero_point + kept_offset), _mm512_set1_epi8(char(kept_offset))};
  const bool with_codes = codes != nullptr;
  __m512i acc[kTileRows][kTileVectors];
  for (int64_t c0 = 0; c0 < p.channels; c0 += kTileRows) {
    const int rows = int(std::min<int64_t>(kTileRows, p.channels - c0));
    for (int64_t b = 0; b < blocks; ++b) {
      if (count[4 * b] < 0) continue;
      const int64_t cols = columns_of(b);
      const int vectors = int((cols + 15) / 16);
      kTiles[rows][vectors](packed_of(b), p.quads, p.weights.data() + c0 * p.quads, p.quads, acc);
      const int64_t j0 = (first + b) * kBlock;
      kFinishTiles[with_codes][vectors](p, scratch.steps, acc, rows, c0, rule, scratch.norms + b * kBlock, cols,
                                        with_codes ? nullptr : y + j0, with_codes ? codes + j0 : nullptr, form,
                                        open + 4 * b * p.channels, count + 4 * b);
    }
  }
  // Those vectors are recomputed whole, as the reference does (their proven lanes get the same
  // values again).
  for (int64_t b = 0; b < blocks; ++b) {
    if (count[4 * b] < 0) continue;
    const int64_t j0 = (first + b) * kBlock, cols = columns_of(b);
    if (x_codes != nullptr && count[4 * b] + count[4 * b + 1] + count[4 * b + 2] + count[4 * b + 3] > 0) {
      CodeFloats(p, x_codes + j0, p.columns, cols, floats_of(b));
    }
    for (int v = 0; 16 * v < cols; ++v) {
      const int32_t* list = open + (4 * b + v) * p.channels;
      const int64_t n = count[4 * b + v];
      for (int64_t i = 0; i < n; i += 8) {
        kReference[n - i < 8 ? n - i : 8](p, a, floats_of(b) + 16 * v, with_codes ? nullptr : y + j0 + 16 * v,
                                          with_codes ? codes + j0 + 16 * v : nullptr, list + i,
                                          FirstLanes(cols - 16 * v));
      }
    }
    if (rest != nullptr) {
      for (int64_t c = 0; c < p.channels; ++c) rest->Apply(y + j0 + c * p.columns, cols, c);
    }
  }
}

}  // namespace qrt::avx512
