// AVX-512 VNNI kernel of the exact int8 pointwise convolution (conv_pointwise_int8.h has the
// argument). Picked only where the CPU has AVX512_VNNI (PointwiseInt8Available). The driver,
// threads and buffers are in conv_pointwise_int8.cc, built for the baseline ISA: no library
// template (std::vector, std::function) is instantiated here, where the linker could keep an
// AVX-512 copy for callers on any CPU.
//
// Per image, the output columns go in blocks of 64: a block of X is checked against its grid
// and packed as bytes for VPDPBUSD (it then stays in L1 while every output channel reads it),
// then tiles of 6 channels x 64 columns sum in int32, and each output is either proven
// (written as fl(q * s_y)) or computed as the reference computes it. A block off its grid runs
// the float GEMM with the whole epilogue.
#include <algorithm>
#include <cmath>

#include "ops/kernels/avx512_intrinsics.h"
#include "ops/kernels/conv_pointwise_int8.h"
#include "ops/kernels/quantizer_avx512.h"

namespace qrt::avx512 {
namespace {

constexpr int kTileRows = 6;     // output channels per tile
constexpr int kTileVectors = 4;  // vectors of 16 columns per tile
constexpr int64_t kBlock = 16 * kTileVectors;
static_assert(kBlock == kPointwiseInt8Columns, "the driver's block width");

// Packs columns [0, cols) of X (k rows, row stride ld) for VPDPBUSD: entry (q, j) holds the
// bytes d + offset of rows 4q..4q+3 at column j (0 past k, where the weights are 0 too);
// norms[j] >= ||d||_2 of column j (the squares summed in float, each partial sum then within
// k * 2^-24 <= 2^-12 of the exact one, below it at worst: the sum is raised by 2^-11 before the
// square root, so the norm is an upper bound); floats (k x 64) the columns as they are, 0 past
// cols, for the outputs computed as floats (contiguous and in cache, where X's rows are a plane
// apart).
// False if an element is not fl(d * s_x) for a d in range.
bool Pack(const PointwiseInt8Plan& p, const float* x, int64_t ld, int64_t cols, int32_t* out, float* norms,
          float* floats) {
  const __m512 inverse = _mm512_set1_ps(p.x_inverse), scale = _mm512_set1_ps(p.x_scale);
  const __m512 low = _mm512_set1_ps(float(p.d_low)), high = _mm512_set1_ps(float(p.d_high));
  const __m512 magic = _mm512_set1_ps(12582912.0f);  // 1.5 * 2^23: (t + magic) - magic = rint(t)
  const __m512i offset = _mm512_set1_epi32(p.x_offset);
  __mmask16 valid[kTileVectors];
  __m512 squares[kTileVectors];
  for (int v = 0; v < kTileVectors; ++v) valid[v] = FirstLanes(cols - 16 * v), squares[v] = _mm512_setzero_ps();
  __mmask16 off_grid = 0;
  for (int64_t q = 0; q < p.quads; ++q) {
    __m512i quad[kTileVectors];
    for (int v = 0; v < kTileVectors; ++v) quad[v] = _mm512_setzero_si512();
    for (int64_t j = 0; j < 4 && 4 * q + j < p.k; ++j) {
      const float* row = x + (4 * q + j) * ld;
      const __m512i shift = _mm512_set1_epi32(int(8 * j));
      for (int v = 0; v < kTileVectors; ++v) {
        // Lanes past cols load 0, which is on every grid (d = 0).
        const __m512 xv = _mm512_maskz_loadu_ps(valid[v], row + 16 * v);
        _mm512_storeu_ps(floats + (4 * q + j) * kBlock + 16 * v, xv);
        const __m512 t = _mm512_min_ps(high, _mm512_max_ps(low, _mm512_mul_ps(xv, inverse)));
        const __m512 d = _mm512_sub_ps(_mm512_add_ps(t, magic), magic);
        // As DequantizeLinear computes it: (float(q) - float(zp)) * s = fl(d * s). NaN differs.
        off_grid |= _mm512_cmp_ps_mask(_mm512_mul_ps(d, scale), xv, _CMP_NEQ_UQ);
        squares[v] = _mm512_fmadd_ps(d, d, squares[v]);
        const __m512i byte = _mm512_add_epi32(_mm512_cvtps_epi32(d), offset);
        quad[v] = _mm512_or_si512(quad[v], j == 0 ? byte : _mm512_sllv_epi32(byte, shift));
      }
    }
    for (int v = 0; v < kTileVectors; ++v) _mm512_storeu_si512(out + q * kBlock + 16 * v, quad[v]);
  }
  for (int v = 0; v < kTileVectors; ++v) {
    const __m512 raised = _mm512_mul_ps(squares[v], _mm512_set1_ps(1.f + 1.f / 2048.f));
    _mm512_storeu_ps(norms + 16 * v, _mm512_sqrt_ps(raised));
  }
  return off_grid == 0;
}

// out[r][v] = sum over quads of the packed bytes x (columns 16v..16v+15) times row r's weights.
// The sums live in registers (a local array fully unrolled); writing through `out` inside the
// loop made GCC store every accumulator after every VPDPBUSD.
template <int R>
void Tile(const int32_t* x, int64_t quads, const int32_t* w, int64_t w_stride, __m512i (&out)[kTileRows][kTileVectors]) {
  __m512i acc[R][kTileVectors];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kTileVectors; ++v) acc[r][v] = _mm512_setzero_si512();
  }
  for (int64_t q = 0; q < quads; ++q, x += kBlock) {
    const __m512i x0 = _mm512_loadu_si512(x), x1 = _mm512_loadu_si512(x + 16);
    const __m512i x2 = _mm512_loadu_si512(x + 32), x3 = _mm512_loadu_si512(x + 48);
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m512i wr = _mm512_set1_epi32(w[r * w_stride + q]);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], x0, wr);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], x1, wr);
      acc[r][2] = _mm512_dpbusd_epi32(acc[r][2], x2, wr);
      acc[r][3] = _mm512_dpbusd_epi32(acc[r][3], x3, wr);
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kTileVectors; ++v) out[r][v] = acc[r][v];
  }
}

using TileFn = void (*)(const int32_t*, int64_t, const int32_t*, int64_t, __m512i (&)[kTileRows][kTileVectors]);
constexpr TileFn kTiles[kTileRows + 1] = {nullptr, Tile<1>, Tile<2>, Tile<3>, Tile<4>, Tile<5>, Tile<6>};

// Channel c's 16 outputs from their int32 sums: writes fl(A * s_y) to the `valid` lanes and
// returns the lanes whose step is not proven. The rule, with the fake quantization's constants
// (`rule`, its Quantizer): t = clamp(fl(y * fl(1/s_y)), L, H), A = rint(t), r = fl(E * fl(1/s_y)).
// Where |t - A| + r < 0.5 - 2^-11, every v in [y - E, y + E] has the step A: the products'
// roundings move v / s_y by under 2^-14 (|t| <= 255, r < 0.5), so fl(v / s_y) stays strictly
// inside A's rounding interval; where t was clamped to H (or L), fl(v / s_y) stays above
// H - 0.5 (below L + 0.5) and saturates to it. NaN is never conclusive.
inline __mmask16 Finish(const PointwiseInt8Plan& p, int64_t c, __m512i acc, __m512 norms, const Quantizer& rule,
                        __mmask16 valid, float* out) {
  const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc, _mm512_set1_epi32(p.offset_sums[size_t(c)])));
  const __m512 y = _mm512_fmadd_ps(sum, _mm512_set1_ps(p.multipliers[size_t(c)]), _mm512_set1_ps(p.biases[size_t(c)]));
  const __m512 bound = _mm512_mul_ps(norms, _mm512_set1_ps(p.norm_bounds[size_t(c)]));
  const __m512 e = _mm512_fmadd_ps(bound, _mm512_set1_ps(p.error_factor), _mm512_set1_ps(p.bias_bounds[size_t(c)]));
  const __m512 t = _mm512_min_ps(rule.high, _mm512_max_ps(rule.low, _mm512_mul_ps(y, rule.inverse)));
  const __m512 step = _mm512_sub_ps(_mm512_add_ps(t, rule.magic), rule.magic);
  const __m512 reach = _mm512_add_ps(_mm512_abs_ps(_mm512_sub_ps(t, step)), _mm512_mul_ps(e, rule.inverse));
  const __mmask16 proven = _mm512_cmp_ps_mask(reach, rule.inside, _CMP_LT_OQ);
  _mm512_mask_storeu_ps(out, valid, _mm512_mul_ps(step, rule.scale));
  return valid & __mmask16(~proven);
}

// Columns [j0, j0 + cols) of one image (x, y) through the float GEMM and the whole epilogue.
void FloatColumns(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, float* y, int64_t j0,
                  int64_t cols) {
  SgemmArgs g;
  g.m = p.channels;
  g.n = cols;
  g.k = p.k;
  g.a = a.w;
  g.lda = p.k;
  g.b = x + j0;
  g.ldb = p.columns;
  g.c = y + j0;
  g.ldc = p.columns;
  g.rule_n = p.columns;
  g.bias = a.bias;
  g.epilogue = &a.epilogue;
  a.gemm(g);
}

// The outputs of channel c, columns 16v..16v+15 of the block: one tile vector.
struct TileVector {  // PointwiseInt8Scratch::open holds two int32 per entry
  int32_t c, v;
};
static_assert(sizeof(TileVector) == 2 * sizeof(int32_t), "open entries are int32 pairs");

// Computes `count` (<= 8) tile vectors as the ordered GEMM does (sgemm.h, m > 1: a fused
// multiply-add chain per k block, block sums in order, then the bias), each lane one output,
// the chains interleaved so that their latencies overlap; then the first epilogue step. Lanes
// past the block's columns are neither read nor written.
template <int N>
void ReferenceVectors(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* floats, float* y,
                      const TileVector* tv, const __mmask16* valid) {
  __m512 c[N], acc[N];
  for (int64_t p0 = 0; p0 < p.k; p0 += p.k_block) {
    for (int i = 0; i < N; ++i) acc[i] = _mm512_setzero_ps();
    for (int64_t k = p0; k < std::min(p.k, p0 + p.k_block); ++k) {
#pragma GCC unroll 8
      for (int i = 0; i < N; ++i) {
        const __m512 xv = _mm512_loadu_ps(floats + k * kBlock + 16 * tv[i].v);
        acc[i] = _mm512_fmadd_ps(_mm512_set1_ps(a.w[tv[i].c * p.k + k]), xv, acc[i]);
      }
    }
    for (int i = 0; i < N; ++i) c[i] = p0 == 0 ? acc[i] : _mm512_add_ps(acc[i], c[i]);
  }
  const FakeQuantStep& fq = a.epilogue.before;
  for (int i = 0; i < N; ++i) {
    if (a.bias != nullptr) c[i] = _mm512_add_ps(c[i], _mm512_set1_ps(a.bias[tv[i].c]));
    alignas(64) float out[16];
    _mm512_store_ps(out, c[i]);
    fq.map(16, out, fq.scale, fq.zero_point, out);
    _mm512_mask_storeu_ps(y + tv[i].c * p.columns + 16 * tv[i].v, valid[tv[i].v], _mm512_load_ps(out));
  }
}

using ReferenceFn = void (*)(const PointwiseInt8Plan&, const PointwiseInt8Args&, const float*, float*,
                             const TileVector*, const __mmask16*);
constexpr ReferenceFn kReference[9] = {nullptr,
                                       ReferenceVectors<1>,
                                       ReferenceVectors<2>,
                                       ReferenceVectors<3>,
                                       ReferenceVectors<4>,
                                       ReferenceVectors<5>,
                                       ReferenceVectors<6>,
                                       ReferenceVectors<7>,
                                       ReferenceVectors<8>};

}  // namespace

void PointwiseInt8Block(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, float* y_image,
                        int64_t j0, const OutputEpilogue* rest, const PointwiseInt8Scratch& scratch) {
  const int64_t cols = std::min(kBlock, p.columns - j0);
  alignas(64) float norm_values[kBlock];
  if (!Pack(p, x + j0, p.columns, cols, scratch.packed, norm_values, scratch.floats)) {
    FloatColumns(p, a, x, y_image, j0, cols);
    return;
  }
  const FakeQuantStep& fq = a.epilogue.before;
  const Quantizer rule(fq.scale, fq.zero_point, a.before_signed);
  __m512 norms[kTileVectors];
  __mmask16 valid[kTileVectors];
  for (int v = 0; v < kTileVectors; ++v) norms[v] = _mm512_load_ps(norm_values + 16 * v), valid[v] = FirstLanes(cols - 16 * v);
  float* y = y_image + j0;
  TileVector* open = reinterpret_cast<TileVector*>(scratch.open);
  int64_t count = 0;
  __m512i acc[kTileRows][kTileVectors];
  for (int64_t c0 = 0; c0 < p.channels; c0 += kTileRows) {
    const int rows = int(std::min<int64_t>(kTileRows, p.channels - c0));
    kTiles[rows](scratch.packed, p.quads, p.weights.data() + c0 * p.quads, p.quads, acc);
    for (int r = 0; r < rows; ++r) {
      const int64_t c = c0 + r;
      for (int v = 0; v < kTileVectors && valid[v] != 0; ++v) {
        const __mmask16 unproven = Finish(p, c, acc[r][v], norms[v], rule, valid[v], y + c * p.columns + 16 * v);
        open[count] = {int32_t(c), v};  // kept only if a lane is open: no branch to mispredict
        count += unproven != 0;
      }
    }
  }
  // Vectors with an output near a rounding boundary: recomputed whole, as the reference does
  // (their proven lanes get the same values again).
  for (int64_t i = 0; i < count; i += 8) {
    kReference[count - i < 8 ? count - i : 8](p, a, scratch.floats, y, open + i, valid);
  }
  if (rest != nullptr) {
    for (int64_t c = 0; c < p.channels; ++c) rest->Apply(y + c * p.columns, cols, c);
  }
}

}  // namespace qrt::avx512
