// AVX2 kernels of the exact int8 pointwise convolution (conv_pointwise_int8.h has the argument),
// for CPUs without AVX-512 VNNI. The pass is the AVX-512 kernel's (conv_pointwise_int8_avx512.cc
// explains its shape): blocks of 64 columns, packed X checked against its grid, tiles of
// channels summed in int32, each output proven or computed as the reference computes it. The
// sums come in two forms, chosen at plan time:
//   - int16 pairs: VPMADDWD on X's d and W's e of two rows of k per dword (|d e| <= 255 * 128,
//     so the pair sums cannot saturate and the int32 sum is exact, with no offset to take back);
//     tiles of 6 channels by one 16-column vector (12 accumulators);
//   - bytes: X's quads of bytes d + x_offset as the VNNI kernel packs them, VPMADDUBSW, then
//     VPMADDWD by 1 (with plan.quad_pairs on two quads' words added first), on weights the plan
//     split so that no word leaves int16 (common/byte_pairs.h), the split-off parts added back
//     per channel (Settle); tiles of 4 channels (3 with two quads a step). The byte multiply and
//     the word multiply overlap, so this form does twice the products a cycle where sums are
//     long.
// With long sums (plan.sampled) the tile also keeps its sums every 16 terms, and an output the
// first bound leaves open is tried with the second (the header's sampled running sums, Samples
// below) before it is recomputed.
// A 16-column vector of the driver's lists is two 8-lane registers. Built with -mavx2 -mfma: no
// library template is instantiated here (see the AVX-512 file).
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/kernels/common/byte_pairs_avx2.h"
#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/pwconv/conv_pointwise_int8.h"
#include "ops/kernels/quantize/quantizer_avx2.h"

namespace qrt::avx2 {
namespace {

constexpr int kTileRows = 6;     // output channels per tile
constexpr int kTileVectors = 4;  // vectors of 16 columns per block, two registers each
constexpr int64_t kBlock = 16 * kTileVectors;
static_assert(kBlock == kPointwiseInt8Columns, "the driver's block width");
constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Bits [0, n) of an 8-lane movemask, n clamped to [0, 8].
inline int LaneBits(int64_t n) { return n <= 0 ? 0 : n >= 8 ? 0xFF : (1 << n) - 1; }

// Packs columns [0, cols) of X (k rows) for VPMADDWD: entry (p, j) holds d of rows 2p and 2p+1
// at column j as two int16 (0 past k, where the weights are 0 too); with kBytes for VPMADDUBSW:
// entry (q, j) the bytes d + x_offset of rows 4q..4q+3 (PackCodeQuads' layout, d = 0 past k);
// norms[j] >= ||d||_2 (as in the AVX-512 kernel: squares summed in float, raised by 2^-11
// before the square root); floats (k x 64) the columns' floats. Only the first V vectors of 16
// columns are written. element(k, half, valid, &x, &d) gives row k's 8 columns at 8 * half
// (lanes past cols as d = 0) and returns the movemask of its lanes off the grid. False if an
// element is off the grid.
template <int V, bool kBytes, class Element>
bool PackColumns(const PointwiseInt8Plan& p, int64_t cols, int32_t* out, float* norms, float* floats,
                 const Element& element) {
  constexpr int H = 2 * V;                   // 8-lane halves
  constexpr int64_t kRows = kBytes ? 4 : 2;  // rows of k per packed row
  const __m256i offset = _mm256_set1_epi32(p.x_offset);
  __m256i valid[H];
  __m256 squares[H];
  for (int h = 0; h < H; ++h) valid[h] = FirstLanes(cols - 8 * h), squares[h] = _mm256_setzero_ps();
  int off_grid = 0;
  for (int64_t q = 0; q < p.rows; ++q) {
    for (int h = 0; h < H; ++h) {
      __m256i packed = _mm256_setzero_si256();
      for (int64_t j = 0; j < kRows; ++j) {
        const int64_t k = kRows * q + j;
        __m256 x, d = _mm256_setzero_ps();
        if (k < p.k) {
          off_grid |= element(k, h, valid[h], &x, &d);
          _mm256_store_ps(floats + k * kBlock + 8 * h, x);
          squares[h] = _mm256_fmadd_ps(d, d, squares[h]);
        }
        const __m256i v = _mm256_cvtps_epi32(d);
        const __m256i field = kBytes   ? _mm256_sll_epi32(_mm256_add_epi32(v, offset), _mm_cvtsi32_si128(int(8 * j)))
                              : j == 0 ? _mm256_and_si256(v, _mm256_set1_epi32(0xFFFF))
                                       : _mm256_slli_epi32(v, 16);
        packed = _mm256_or_si256(packed, field);
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + q * kBlock + 8 * h), packed);
    }
  }
  for (int h = 0; h < H; ++h) {
    const __m256 raised = _mm256_mul_ps(squares[h], _mm256_set1_ps(1.f + 1.f / 2048.f));
    _mm256_storeu_ps(norms + 8 * h, _mm256_sqrt_ps(raised));
  }
  return off_grid == 0;
}

// PackColumns from X's floats (rows ld apart), each checked against the grid as the AVX-512
// kernel checks it. Lanes past cols load 0, which is on every grid (d = 0).
template <int V, bool kBytes>
bool Pack(const PointwiseInt8Plan& p, const float* x, int64_t ld, int64_t cols, int32_t* out, float* norms,
          float* floats) {
  const __m256 inverse = _mm256_set1_ps(p.x_inverse), scale = _mm256_set1_ps(p.x_scale);
  const __m256 low = _mm256_set1_ps(float(p.d_low)), high = _mm256_set1_ps(float(p.d_high));
  const __m256 magic = _mm256_set1_ps(12582912.0f);  // 1.5 * 2^23: (t + magic) - magic = rint(t)
  return PackColumns<V, kBytes>(p, cols, out, norms, floats,
                                [&](int64_t k, int h, __m256i valid, __m256* xv, __m256* d) {
                                  const float* from = x + k * ld + 8 * h;
                                  *xv = cols >= 8 * (h + 1) ? _mm256_loadu_ps(from) : _mm256_maskload_ps(from, valid);
                                  const __m256 t = _mm256_min_ps(high, _mm256_max_ps(low, _mm256_mul_ps(*xv, inverse)));
                                  *d = _mm256_sub_ps(_mm256_add_ps(t, magic), magic);
                                  // As DequantizeLinear computes it: (float(q) - float(zp)) * s = fl(d * s). NaN
                                  // differs.
                                  return _mm256_movemask_ps(_mm256_cmp_ps(_mm256_mul_ps(*d, scale), *xv, _CMP_NEQ_UQ));
                                });
}

// Row k of a block of X's codes (rows ld apart, cols columns) at vector v: 16 bytes d + x_offset
// (int8 codes with the top bit flipped); columns past cols and rows past k hold x_offset (d = 0),
// taken from a copy where the row ends (there is no masked byte load).
struct CodeRows {
  const PointwiseInt8Plan& p;
  const uint8_t* q;
  int64_t ld, cols;
  __m128i operator()(int64_t k, int v) const {
    const uint8_t flip = p.x_signed ? 0x80 : 0;
    const __m128i flips = _mm_set1_epi8(char(flip));
    if (k >= p.k) return _mm_set1_epi8(char(p.x_offset));
    const uint8_t* from = q + k * ld + 16 * v;
    const int64_t n = cols - 16 * v;
    if (n >= 16) return _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(from)), flips);
    alignas(16) uint8_t tail[16];
    std::memset(tail, uint8_t(p.x_offset) ^ flip, sizeof(tail));
    std::memcpy(tail, from, size_t(std::max<int64_t>(n, 0)));
    return _mm_xor_si128(_mm_load_si128(reinterpret_cast<const __m128i*>(tail)), flips);
  }
};

// Packs columns [0, cols) of X's codes (one byte per element, rows ld apart) as PackColumns
// does, in integers: d = (q ^ flip) - offset as int16, rows 2p and 2p+1 interleaved by bytes
// before they are widened, and norms[j] >= ||d||_2 from the exact int32 sum of squares
// (VPMADDWD of each pair with itself: k * 255^2 < 2^31), which float conversion, the raise by
// 2^-11 and the square root round by far less than the raise. The floats are not made here
// (FloatsOf, for the blocks with outputs to recompute): with few input channels, widening
// every code to a float cost more than the sums. Lanes past cols read the byte that gives d = 0
// (from a copy: there is no masked byte load), and so does row k past an odd k.
template <int V>
void PackCodePairs(const PointwiseInt8Plan& p, const uint8_t* q, int64_t ld, int64_t cols, int32_t* out, float* norms) {
  const __m256i offset = _mm256_set1_epi16(int16_t(p.x_offset));
  const CodeRows load{p, q, ld, cols};
  __m256i squares[V][2];
  for (int v = 0; v < V; ++v) squares[v][0] = squares[v][1] = _mm256_setzero_si256();
  for (int64_t r = 0; r < p.rows; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __m128i a = load(2 * r, v), b = load(2 * r + 1, v);
      const __m256i lo = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_unpacklo_epi8(a, b)), offset);
      const __m256i hi = _mm256_sub_epi16(_mm256_cvtepu8_epi16(_mm_unpackhi_epi8(a, b)), offset);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * kBlock + 16 * v), lo);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + r * kBlock + 16 * v + 8), hi);
      squares[v][0] = _mm256_add_epi32(squares[v][0], _mm256_madd_epi16(lo, lo));
      squares[v][1] = _mm256_add_epi32(squares[v][1], _mm256_madd_epi16(hi, hi));
    }
  }
  const __m256 raise = _mm256_set1_ps(1.f + 1.f / 2048.f);
  for (int v = 0; v < V; ++v) {
    for (int h = 0; h < 2; ++h) {
      const __m256 raised = _mm256_mul_ps(_mm256_cvtepi32_ps(squares[v][h]), raise);
      _mm256_storeu_ps(norms + 16 * v + 8 * h, _mm256_sqrt_ps(raised));
    }
  }
}

// The floats (k x 64) of a packed block's 8-column halves in `halves` (bit h: columns 8h..8h+7;
// the block as int16 pairs, or with kBytes quads of bytes d + x_offset): fl(d * s_x), as
// DequantizeLinear makes them. Only the halves with an output to recompute are read.
template <bool kBytes>
void FloatsOf(const PointwiseInt8Plan& p, const int32_t* packed, int halves, float* floats) {
  constexpr int64_t kRows = kBytes ? 4 : 2;
  const __m256 scale = _mm256_set1_ps(p.x_scale);
  const __m256i offset = _mm256_set1_epi32(p.x_offset), low_byte = _mm256_set1_epi32(0xFF);
  for (; halves != 0; halves &= halves - 1) {
    const int h = __builtin_ctz(unsigned(halves));
    for (int64_t r = 0; r < p.rows; ++r) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(packed + r * kBlock + 8 * h));
      for (int64_t j = 0; j < kRows && kRows * r + j < p.k; ++j) {
        const __m256i d =
            kBytes   ? _mm256_sub_epi32(_mm256_and_si256(_mm256_srl_epi32(v, _mm_cvtsi32_si128(int(8 * j))), low_byte),
                                        offset)
            : j == 0 ? _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16)
                     : _mm256_srai_epi32(v, 16);
        _mm256_store_ps(floats + (kRows * r + j) * kBlock + 8 * h, _mm256_mul_ps(_mm256_cvtepi32_ps(d), scale));
      }
    }
  }
}

// Adds packed rows [q, end) (x at row q, advanced with it) of one vector to the tile's sums.
template <int R, bool kBytes, bool kOneHalf, bool kQuadPairs>
[[gnu::always_inline]] inline void AddRows(const int32_t*& x, int64_t& q, int64_t end, const int32_t* w,
                                           int64_t w_stride, __m256i (&acc)[R][2]) {
  const __m256i ones = _mm256_set1_epi16(1);
  // Bytes, two quads a step: their words added before one VPMADDWD widens them (a quarter fewer
  // multiplies), which the plan's split keeps within int16 (plan.quad_pairs).
  for (; kBytes && kQuadPairs && q + 2 <= end; q += 2, x += 2 * kBlock) {
    const __m256i a0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + kBlock));
    const __m256i a1 = kOneHalf ? a0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 8));
    const __m256i b1 = kOneHalf ? b0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + kBlock + 8));
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256i wa = _mm256_set1_epi32(w[r * w_stride + q]), wb = _mm256_set1_epi32(w[r * w_stride + q + 1]);
      const __m256i p0 = _mm256_add_epi16(_mm256_maddubs_epi16(a0, wa), _mm256_maddubs_epi16(b0, wb));
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(p0, ones));
      if (kOneHalf) continue;
      const __m256i p1 = _mm256_add_epi16(_mm256_maddubs_epi16(a1, wa), _mm256_maddubs_epi16(b1, wb));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(p1, ones));
    }
  }
  for (; q < end; ++q, x += kBlock) {
    const __m256i x0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i x1 = kOneHalf ? x0 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + 8));
#pragma GCC unroll 6
    for (int r = 0; r < R; ++r) {
      const __m256i wr = _mm256_set1_epi32(w[r * w_stride + q]);
      const __m256i p0 = kBytes ? _mm256_madd_epi16(_mm256_maddubs_epi16(x0, wr), ones) : _mm256_madd_epi16(x0, wr);
      acc[r][0] = _mm256_add_epi32(acc[r][0], p0);
      if (kOneHalf) continue;
      const __m256i p1 = kBytes ? _mm256_madd_epi16(_mm256_maddubs_epi16(x1, wr), ones) : _mm256_madd_epi16(x1, wr);
      acc[r][1] = _mm256_add_epi32(acc[r][1], p1);
    }
  }
}

// out[r][h] = the int32 sums over every packed row (pairs of int16, or with kBytes quads of
// bytes) of one vector of 16 columns (x at its first column in the packed block) times row r's
// weights: VPMADDWD, or VPMADDUBSW then VPMADDWD by 1 (no word can leave int16: the plan's
// split). The sums live in registers. kOneHalf: the vector's first 8 columns only (a block's last
// vector with at most 8 valid, as 7 x 7's 49th column), the other half's sums 0. kSampled: the
// sums also stored at the end of every group of kPointwiseSampleTerms terms (the header's
// sampled running sums), group g's of row r's half h at samples + ((2r + h) * groups + g) * 8: each
// row's half in a run of its own, as Samples::Open reads it.
template <int R, bool kBytes = false, bool kOneHalf = false, bool kQuadPairs = false, bool kSampled = false>
void Tile(const int32_t* x, int64_t rows, const int32_t* w, int64_t w_stride, __m256i (&out)[kTileRows][2],
          int32_t* samples) {
  __m256i acc[R][2];
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  int64_t q = 0;
  if constexpr (!kSampled) {
    AddRows<R, kBytes, kOneHalf, kQuadPairs>(x, q, rows, w, w_stride, acc);
  } else {
    constexpr int64_t kGroupRows = kPointwiseSampleTerms / (kBytes ? 4 : 2);  // packed rows per group
    const int64_t run = 8 * ((rows + kGroupRows - 1) / kGroupRows);           // ints per row's half
    for (int64_t end = std::min(rows, kGroupRows); q < rows; end = std::min(rows, end + kGroupRows), samples += 8) {
      AddRows<R, kBytes, kOneHalf, kQuadPairs>(x, q, end, w, w_stride, acc);
#pragma GCC unroll 6
      for (int r = 0; r < R; ++r) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(samples + 2 * r * run), acc[r][0]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(samples + (2 * r + 1) * run), acc[r][1]);
      }
    }
  }
#pragma GCC unroll 6
  for (int r = 0; r < R; ++r) out[r][0] = acc[r][0], out[r][1] = acc[r][1];
}
static_assert(kTileRows == kPointwiseSampleRows, "the driver's samples");

using TileFn = void (*)(const int32_t*, int64_t, const int32_t*, int64_t, __m256i (&)[kTileRows][2], int32_t*);
// [rows], for the whole vector or (kHalf) its first half, with or without samples.
template <bool kHalf, bool kSampled>
constexpr TileFn kPairTileSet[kTileRows + 1] = {nullptr,
                                                Tile<1, false, kHalf, false, kSampled>,
                                                Tile<2, false, kHalf, false, kSampled>,
                                                Tile<3, false, kHalf, false, kSampled>,
                                                Tile<4, false, kHalf, false, kSampled>,
                                                Tile<5, false, kHalf, false, kSampled>,
                                                Tile<6, false, kHalf, false, kSampled>};

// ---- The byte form: X as VPDPBUSD's quads (bytes d + x_offset, as the AVX-512 VNNI kernel
// packs them), summed with VPMADDUBSW + VPMADDWD(1). VPMADDUBSW adds two byte products into a
// saturating int16, and two quads' words are added before widening; the plan's weights keep
// each word's four weights within 128 of either sign (SplitSaturatingQuadPairs), so no sum can
// leave int16 (255 * 128 < 2^15), and add the rest back from their correction lists.
// On Zen 4 the byte multiply and the word multiply overlap: twice VPMADDWD's products a cycle.

// X's codes (rows ld apart) as quads of bytes for columns [0, cols): entry (q, j) = the bytes of
// rows 4q..4q+3 at column j (rows past k and columns past cols hold the byte of d = 0); norms[j]
// >= ||d||_2 from the exact int32 sums of d^2, as PackCodePairs makes them.
void PackCodeQuads(const PointwiseInt8Plan& p, const uint8_t* q, int64_t ld, int64_t cols, int32_t* out, float* norms) {
  const __m256i offset = _mm256_set1_epi16(int16_t(p.x_offset));
  const int vectors = int((cols + 15) / 16);
  const CodeRows load{p, q, ld, cols};
  auto square = [&](__m128i pairs) {  // 8 columns' two rows as int16 d, squared and added
    const __m256i d = _mm256_sub_epi16(_mm256_cvtepu8_epi16(pairs), offset);
    return _mm256_madd_epi16(d, d);
  };
  __m256i squares[kTileVectors][2];
  for (int v = 0; v < vectors; ++v) squares[v][0] = squares[v][1] = _mm256_setzero_si256();
  for (int64_t quad = 0; quad < p.quads; ++quad) {
    for (int v = 0; v < vectors; ++v) {
      const __m128i r[4] = {load(4 * quad, v), load(4 * quad + 1, v), load(4 * quad + 2, v), load(4 * quad + 3, v)};
      __m256i quads[2];
      Quads16(r, quads);
      int32_t* to = out + quad * kBlock + 16 * v;
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to), quads[0]);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + 8), quads[1]);
      // Rows 4q, 4q + 1 and 4q + 2, 4q + 3 as int16 pairs per column: columns 0-7, then 8-15.
      squares[v][0] = _mm256_add_epi32(squares[v][0], _mm256_add_epi32(square(_mm_unpacklo_epi8(r[0], r[1])),
                                                                       square(_mm_unpacklo_epi8(r[2], r[3]))));
      squares[v][1] = _mm256_add_epi32(squares[v][1], _mm256_add_epi32(square(_mm_unpackhi_epi8(r[0], r[1])),
                                                                       square(_mm_unpackhi_epi8(r[2], r[3]))));
    }
  }
  const __m256 raise = _mm256_set1_ps(1.f + 1.f / 2048.f);
  for (int v = 0; v < vectors; ++v) {
    for (int h = 0; h < 2; ++h) {
      const __m256 raised = _mm256_mul_ps(_mm256_cvtepi32_ps(squares[v][h]), raise);
      _mm256_storeu_ps(norms + 16 * v + 8 * h, _mm256_sqrt_ps(raised));
    }
  }
}

// Channels per byte tile: a quad a step 4 (8 accumulators, two X registers, the weights, 1s,
// products), two quads a step 3 (6 accumulators, four X registers, two weights, 1s, two
// products: 16 registers).
constexpr int kByteTileRows[2] = {4, 3};

// [quad pairs][rows], for the whole vector or (kHalf) its first half, with or without samples.
template <bool kHalf, bool kSampled>
constexpr TileFn kByteTileSet[2][5] = {
    {nullptr, Tile<1, true, kHalf, false, kSampled>, Tile<2, true, kHalf, false, kSampled>,
     Tile<3, true, kHalf, false, kSampled>, Tile<4, true, kHalf, false, kSampled>},
    {nullptr, Tile<1, true, kHalf, true, kSampled>, Tile<2, true, kHalf, true, kSampled>,
     Tile<3, true, kHalf, true, kSampled>, nullptr}};

// The tile for `rows` channels of a vector (its first half only with `half`).
template <bool kBytes, bool kSampled>
TileFn TileFor(const PointwiseInt8Plan& p, int rows, bool half) {
  if constexpr (kBytes) {
    return (half ? kByteTileSet<true, kSampled> : kByteTileSet<false, kSampled>)[p.quad_pairs][rows];
  } else {
    return (half ? kPairTileSet<true, kSampled> : kPairTileSet<false, kSampled>)[rows];
  }
}

// A byte tile's sums made d's: minus x_offset * sum_k e_k (the bytes are d + x_offset), plus the
// weights' parts the plan kept out of the quads (channel c's correction list: byte times e).
void Settle(const PointwiseInt8Plan& p, const int32_t* x, int rows, int64_t c0, __m256i (&acc)[kTileRows][2]) {
  for (int r = 0; r < rows; ++r) {
    const __m256i offset_sum = _mm256_set1_epi32(p.offset_sums[size_t(c0 + r)]);
    acc[r][0] = _mm256_sub_epi32(acc[r][0], offset_sum);
    acc[r][1] = _mm256_sub_epi32(acc[r][1], offset_sum);
    AddPairCorrections(p.corrections, c0 + r, x, kBlock, acc[r]);
  }
}

struct ChannelConstants {
  __m256 multiplier, bias, reach_per_norm, limit;
  ChannelConstants(const PointwiseInt8Step& s)
      : multiplier(_mm256_set1_ps(s.multiplier)),
        bias(_mm256_set1_ps(s.bias)),
        reach_per_norm(_mm256_set1_ps(s.reach_per_norm)),
        limit(_mm256_set1_ps(s.limit)) {}
};

// |t - rint(t)|: the estimate's distance from its step (exact below 2^23; NaN stays NaN).
inline __m256 DistanceFromStep(__m256 t) {
  return _mm256_andnot_ps(_mm256_set1_ps(-0.f), _mm256_sub_ps(t, _mm256_round_ps(t, kNearest)));
}

// 8 lanes' steps by the one-step rule of the AVX-512 kernel's Steps (its comment has the
// argument): t = fl(S * M + B), clamped with kClamp; returns t and, all ones, the lanes not
// proven (NaN never is), lanes past the valid ones included.
template <bool kClamp>
inline __m256 Steps(const ChannelConstants& k, __m256i acc, __m256 norms, const Quantizer& rule, __m256* estimate) {
  __m256 t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc), k.multiplier, k.bias);
  if (kClamp) t = _mm256_min_ps(rule.high, _mm256_max_ps(rule.low, t));
  *estimate = t;
  const __m256 off = DistanceFromStep(t);
  const __m256 limit = _mm256_fnmadd_ps(norms, k.reach_per_norm, k.limit);
  return _mm256_cmp_ps(off, limit, _CMP_NLT_UQ);
}

// The words of _mm256_packs_epi32(a0, a1) (by 128-bit lane: a0[0..3] a1[0..3] | a0[4..7]
// a1[4..7]) as 16 bytes in column order, saturated to the code's type.
inline __m128i NarrowWords(__m256i words, bool is_signed) {
  const __m256i ordered = _mm256_permute4x64_epi64(words, 0xD8);
  const __m128i lo = _mm256_castsi256_si128(ordered), hi = _mm256_extracti128_si256(ordered, 1);
  return is_signed ? _mm_packs_epi16(lo, hi) : _mm_packus_epi16(lo, hi);
}

// Two halves of steps (int32) as 16 codes in column order: saturated to int16, plus the zero
// point (saturating: a step already at an int16 bound stays beyond the code's range), then
// saturated to the code's type, as clamp(A + zero point) over the type's range.
struct CodePacker {
  __m256i zero_point;  // int16 lanes
  bool is_signed;
  __m128i operator()(__m256i a0, __m256i a1) const {
    return NarrowWords(_mm256_adds_epi16(_mm256_packs_epi32(a0, a1), zero_point), is_signed);
  }
};

// QuantizeLinear of floats as its AVX2 kernel computes it (Quantizer::Codes,
// quantize_linear_avx2.cc): 16 (two halves) or 8 codes in column order.
struct CodeQuantizer {
  Quantizer rule;  // the quantized type's whole range: no clamp narrows it
  bool is_signed;
  // Every code is inside its type's range: the packs only narrow.
  __m128i Codes(__m256 y0, __m256 y1) const {
    return NarrowWords(_mm256_packs_epi32(rule.Codes(y0), rule.Codes(y1)), is_signed);
  }
  __m128i Codes8(__m256 y) const {  // the first 8 bytes
    const __m256i q = rule.Codes(y);
    return NarrowWords(_mm256_packs_epi32(q, q), is_signed);
  }
};

// The first `lanes` (<= 16) of 16 codes to `to`.
inline void StoreCodes(__m128i bytes, int64_t lanes, uint8_t* to) {
  if (lanes >= 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to), bytes);
  } else if (lanes == 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(to), bytes);
  } else {
    alignas(16) uint8_t row[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(row), bytes);
    std::memcpy(to, row, size_t(std::max<int64_t>(lanes, 0)));
  }
}

// Computes N (<= 6) channels' outputs at the 16 columns of one vector (x: their k rows, 64
// floats apart; y or codes at its first column) as the ordered GEMM does (sgemm.h, m > 1: a
// fused multiply-add chain per k block, block sums in order, then the bias), each lane one
// output; then the first epilogue step. Both halves at once: 2N independent chains hide the
// multiply-add latency that one half's N chains leave exposed. Lanes past `valid` (a count)
// are not written (their floats are zeros, packed so).
template <int N>
void ReferenceVector(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const CodeQuantizer& code, const float* x,
                     float* y, uint8_t* codes, const int32_t* channels, int64_t valid) {
  const float* w[N];
  for (int i = 0; i < N; ++i) w[i] = a.w + channels[i] * p.k;
  __m256 c[N][2], acc[N][2];
  for (int i = 0; i < N; ++i) c[i][0] = c[i][1] = _mm256_setzero_ps();  // k >= 1: always replaced
  for (int64_t p0 = 0; p0 < p.k; p0 += p.k_block) {
    for (int i = 0; i < N; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (int64_t k = p0; k < std::min(p.k, p0 + p.k_block); ++k) {
      const __m256 x0 = _mm256_load_ps(x + k * kBlock), x1 = _mm256_load_ps(x + k * kBlock + 8);
#pragma GCC unroll 6
      for (int i = 0; i < N; ++i) {
        const __m256 wk = _mm256_set1_ps(w[i][k]);
        acc[i][0] = _mm256_fmadd_ps(wk, x0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(wk, x1, acc[i][1]);
      }
    }
    for (int i = 0; i < N; ++i) {
      for (int h = 0; h < 2; ++h) c[i][h] = p0 == 0 ? acc[i][h] : _mm256_add_ps(acc[i][h], c[i][h]);
    }
  }
  const int64_t lanes = std::min<int64_t>(valid, 16);
  for (int i = 0; i < N; ++i) {
    for (int h = 0; h < 2 && a.bias != nullptr; ++h)
      c[i][h] = _mm256_add_ps(c[i][h], _mm256_set1_ps(a.bias[channels[i]]));
  }
  if (codes != nullptr) {  // QuantizeLinear of the reference's floats
    for (int i = 0; i < N; ++i) StoreCodes(code.Codes(c[i][0], c[i][1]), lanes, codes + channels[i] * p.columns);
    return;
  }
  // The N channels' outputs in one call of the epilogue (a call per channel of 16 values cost
  // more than their sums at small k).
  alignas(32) float out[16 * N];
  for (int i = 0; i < N; ++i) {
    for (int h = 0; h < 2; ++h) _mm256_store_ps(out + 16 * i + 8 * h, c[i][h]);
  }
  a.epilogue.Head().Apply(out, 16 * N, 0);  // the clamp, if any, and the fake quantization
  for (int i = 0; i < N; ++i) std::memcpy(y + channels[i] * p.columns, out + 16 * i, size_t(lanes) * sizeof(float));
}

// ReferenceVector for N (<= 8) channels at one half (8 columns from x, y or codes) of the vector:
// where only that half has an unproven output (most open vectors have one or two). The halves'
// x rows are shared, so the N chains read one vector and N weights a step.
template <int N>
void ReferenceHalf(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const CodeQuantizer& code, const float* x,
                   float* y, uint8_t* codes, const int32_t* channels, int64_t valid) {
  const float* w[N];
  for (int i = 0; i < N; ++i) w[i] = a.w + channels[i] * p.k;
  __m256 c[N], acc[N];
  for (int i = 0; i < N; ++i) c[i] = _mm256_setzero_ps();  // k >= 1: always replaced
  for (int64_t p0 = 0; p0 < p.k; p0 += p.k_block) {
    for (int i = 0; i < N; ++i) acc[i] = _mm256_setzero_ps();
    for (int64_t k = p0; k < std::min(p.k, p0 + p.k_block); ++k) {
      const __m256 xk = _mm256_load_ps(x + k * kBlock);
#pragma GCC unroll 8
      for (int i = 0; i < N; ++i) acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(w[i][k]), xk, acc[i]);
    }
    for (int i = 0; i < N; ++i) c[i] = p0 == 0 ? acc[i] : _mm256_add_ps(acc[i], c[i]);
  }
  const int64_t lanes = std::clamp<int64_t>(valid, 0, 8);
  for (int i = 0; i < N; ++i) {
    if (a.bias != nullptr) c[i] = _mm256_add_ps(c[i], _mm256_set1_ps(a.bias[channels[i]]));
  }
  if (codes != nullptr) {  // QuantizeLinear of the reference's floats
    for (int i = 0; i < N; ++i) StoreCodes(code.Codes8(c[i]), lanes, codes + channels[i] * p.columns);
    return;
  }
  alignas(32) float out[8 * N];
  for (int i = 0; i < N; ++i) _mm256_store_ps(out + 8 * i, c[i]);
  a.epilogue.Head().Apply(out, 8 * N, 0);  // the clamp, if any, and the fake quantization
  for (int i = 0; i < N; ++i) std::memcpy(y + channels[i] * p.columns, out + 8 * i, size_t(lanes) * sizeof(float));
}

using ReferenceFn = void (*)(const PointwiseInt8Plan&, const PointwiseInt8Args&, const CodeQuantizer&, const float*,
                             float*, uint8_t*, const int32_t*, int64_t);
constexpr int kReferenceChannels = 6, kReferenceHalfChannels = 8;
constexpr ReferenceFn kReference[kReferenceChannels + 1] = {nullptr,
                                                            ReferenceVector<1>,
                                                            ReferenceVector<2>,
                                                            ReferenceVector<3>,
                                                            ReferenceVector<4>,
                                                            ReferenceVector<5>,
                                                            ReferenceVector<6>};
constexpr ReferenceFn kReferenceHalf[kReferenceHalfChannels + 1] = {
    nullptr,          ReferenceHalf<1>, ReferenceHalf<2>, ReferenceHalf<3>, ReferenceHalf<4>,
    ReferenceHalf<5>, ReferenceHalf<6>, ReferenceHalf<7>, ReferenceHalf<8>};

// One half of a vector whose outputs are recomputed: a channel's 8 outputs from x (its k rows,
// 64 floats apart), the first `lanes` of them written to y or to codes.
struct OpenHalf {
  const float* w;  // the channel's float weights
  const float* x;
  float bias;
  float* y;
  uint8_t* codes;
  int64_t lanes;
};

// Computes N (<= 8) halves' outputs as the ordered GEMM does (sgemm.h, m > 1: a fused
// multiply-add chain per k block, block sums in order, then the bias), each lane one output;
// then the first epilogue step. Any halves, of any channels and vectors: a chain is latency
// bound (one multiply-add waits on the last), so N of them side by side, not one after another
// (most open vectors have one or two open halves).
template <int N>
void RecomputeHalves(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const CodeQuantizer& code,
                     const OpenHalf* open) {
  __m256 c[N], acc[N];
  for (int i = 0; i < N; ++i) c[i] = _mm256_setzero_ps();  // k >= 1: always replaced
  for (int64_t p0 = 0; p0 < p.k; p0 += p.k_block) {
    for (int i = 0; i < N; ++i) acc[i] = _mm256_setzero_ps();
    for (int64_t k = p0; k < std::min(p.k, p0 + p.k_block); ++k) {
#pragma GCC unroll 8
      for (int i = 0; i < N; ++i) {
        acc[i] = _mm256_fmadd_ps(_mm256_set1_ps(open[i].w[k]), _mm256_load_ps(open[i].x + k * kBlock), acc[i]);
      }
    }
    for (int i = 0; i < N; ++i) c[i] = p0 == 0 ? acc[i] : _mm256_add_ps(acc[i], c[i]);
  }
  for (int i = 0; i < N && a.bias != nullptr; ++i) c[i] = _mm256_add_ps(c[i], _mm256_set1_ps(open[i].bias));
  if (open[0].codes != nullptr) {  // QuantizeLinear of the reference's floats
    for (int i = 0; i < N; ++i) StoreCodes(code.Codes8(c[i]), open[i].lanes, open[i].codes);
    return;
  }
  // The N halves' outputs in one call of the epilogue (a call per 8 values cost more than their
  // sums at small k).
  alignas(32) float out[8 * N];
  for (int i = 0; i < N; ++i) _mm256_store_ps(out + 8 * i, c[i]);
  a.epilogue.Head().Apply(out, 8 * N, 0);  // the clamp, if any, and the fake quantization
  for (int i = 0; i < N; ++i) std::memcpy(open[i].y, out + 8 * i, size_t(open[i].lanes) * sizeof(float));
}

using RecomputeFn = void (*)(const PointwiseInt8Plan&, const PointwiseInt8Args&, const CodeQuantizer&, const OpenHalf*);
constexpr int kRecomputeHalves = 8;
constexpr RecomputeFn kRecompute[kRecomputeHalves + 1] = {nullptr,
                                                          RecomputeHalves<1>,
                                                          RecomputeHalves<2>,
                                                          RecomputeHalves<3>,
                                                          RecomputeHalves<4>,
                                                          RecomputeHalves<5>,
                                                          RecomputeHalves<6>,
                                                          RecomputeHalves<7>,
                                                          RecomputeHalves<8>};

// Recomputes a block's open outputs (`cols` columns at j0; x its floats, k x 64): each vector v's
// list (count[v] entries 4 * channel + the mask of its open halves). Where several channels of a
// vector are open in both halves, or in one half, they share their x rows (ReferenceVector,
// ReferenceHalf); the few others (most open vectors have one or two open halves) go by the half,
// eight chains at a time from any vectors (RecomputeHalves).
void RecomputeOpen(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const CodeQuantizer& code, const float* x,
                   float* y, uint8_t* codes, int64_t j0, int64_t cols, int32_t* open, const int32_t* count) {
  // Below these the shared rows give fewer than eight chains' worth of throughput.
  constexpr int64_t kSharedVectors = 3, kSharedHalves = 5;
  OpenHalf batch[kRecomputeHalves];
  int n = 0;
  auto add_half = [&](int64_t c, int v, int h) {
    const int64_t at = c * p.columns + j0 + 16 * v + 8 * h;
    batch[n++] = {a.w + c * p.k,
                  x + 16 * v + 8 * h,
                  a.bias != nullptr ? a.bias[c] : 0.f,
                  y != nullptr ? y + at : nullptr,
                  codes != nullptr ? codes + at : nullptr,
                  std::clamp<int64_t>(cols - 16 * v - 8 * h, 0, 8)};
    if (n == kRecomputeHalves) kRecompute[n](p, a, code, batch), n = 0;
  };
  for (int v = 0; 16 * v < cols; ++v) {
    int32_t* list = open + v * p.channels;
    // Three groups in place: [0, lo) open in both halves, [lo, hi) in half 0 only, [hi, n) in half 1.
    int64_t lo = 0, mid = 0, hi = count[v];
    while (mid < hi) {
      const int mask = list[mid] & 3;
      if (mask == 3)
        std::swap(list[lo++], list[mid++]);
      else if (mask == 1)
        ++mid;
      else
        std::swap(list[mid], list[--hi]);
    }
    for (int64_t i = 0; i < count[v]; ++i) list[i] >>= 2;
    const int64_t at = 16 * v, valid = cols - at;
    float* y_at = y != nullptr ? y + j0 + at : nullptr;
    uint8_t* codes_at = codes != nullptr ? codes + j0 + at : nullptr;
    int64_t i = 0;
    for (; lo - i >= kSharedVectors; i += std::min<int64_t>(lo - i, kReferenceChannels)) {
      kReference[std::min<int64_t>(lo - i, kReferenceChannels)](p, a, code, x + at, y_at, codes_at, list + i, valid);
    }
    for (; i < lo; ++i) add_half(list[i], v, 0), add_half(list[i], v, 1);
    for (int h = 0; h < 2; ++h) {
      const int64_t first = h == 0 ? lo : hi, last = h == 0 ? hi : count[v];
      for (i = first; last - i >= kSharedHalves; i += std::min<int64_t>(last - i, kReferenceHalfChannels)) {
        kReferenceHalf[std::min<int64_t>(last - i, kReferenceHalfChannels)](
            p, a, code, x + at + 8 * h, y_at != nullptr ? y_at + 8 * h : nullptr,
            codes_at != nullptr ? codes_at + 8 * h : nullptr, list + i, valid - 8 * h);
      }
      for (; i < last; ++i) add_half(list[i], v, h);
    }
  }
  if (n > 0) kRecompute[n](p, a, code, batch);
}

// The second bound (the header's sampled running sums) for one tile's outputs at one vector: the
// tile's samples (Tile) and the packed X they came from (for the split weights' corrections).
struct Samples {
  const PointwiseInt8Plan& p;
  const int32_t* sums;  // kTileRows x 2 x groups x 8 (Tile)
  const int32_t* x;     // the vector's packed X (quads, kBlock apart)

  // The lanes (movemask) of half h whose estimate t the second bound leaves open (NaN included);
  // sum: the tile's settled sums S. Out of line: inlined, its registers crowded the proof's.
  [[gnu::noinline, gnu::cold]] int Open(const PointwiseInt8Step& s, int64_t c, int r, int h, __m256 norms, __m256 t,
                                        __m256i sum) const {
    // Row r's (channel c's) exact integer sums at each group's end: the byte forms' sums less
    // x_offset times the weights' prefix, plus the split-off parts (byte times excess, the plan
    // keeps them in k order) of the groups so far.
    const int32_t* prefix = p.pairs ? nullptr : p.offset_prefixes.data() + c * p.groups;
    const PairCorrections& fix = p.corrections;
    int32_t next = p.pairs ? 0 : fix.start[size_t(c)];
    const int32_t entries_end = p.pairs ? 0 : fix.start[size_t(c) + 1];
    auto group_of = [&](int32_t i) { return i < entries_end ? fix.k[size_t(i)] / kPointwiseSampleTerms : p.groups; };
    int64_t next_group = group_of(next);
    const __m256i low_byte = _mm256_set1_epi32(0xFF);
    const int64_t per_block = p.k <= p.k_block ? p.groups : p.k_block / kPointwiseSampleTerms;
    const int32_t* at = sums + (2 * r + h) * p.groups * 8;
    __m256i exact = _mm256_setzero_si256(), start = exact, parts = exact;  // start: T at the k block's start
    __m256 groups = _mm256_setzero_ps(), blocks = _mm256_setzero_ps();
    for (int64_t g0 = 0; g0 < p.groups; g0 += per_block) {
      const int64_t g1 = std::min(p.groups, g0 + per_block);
      // A block's |T_e - T_start| add up in int32: each is a partial sum of the block, at most
      // 16 (g - g0 + 1) * 255 * 128, so a block of n <= 64 groups (the plan keeps every k block,
      // or a k that fits one, within 1024 terms) adds up to at most 522240 n (n + 1) / 2 < 2^31.
      __m256i block = _mm256_setzero_si256();
      for (int64_t g = g0; g < g1; ++g, at += 8) {
        for (; g == next_group; next_group = group_of(++next)) {
          const int32_t k = fix.k[size_t(next)];
          const __m256i quad = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + (k / 4) * kBlock + 8 * h));
          const __m256i byte = _mm256_and_si256(_mm256_srl_epi32(quad, _mm_cvtsi32_si128(8 * (k % 4))), low_byte);
          parts = _mm256_add_epi32(parts, _mm256_mullo_epi32(byte, _mm256_set1_epi32(fix.e[size_t(next)])));
        }
        exact = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
        if (prefix != nullptr) exact = _mm256_add_epi32(_mm256_sub_epi32(exact, _mm256_set1_epi32(prefix[g])), parts);
        block = _mm256_add_epi32(block, _mm256_abs_epi32(_mm256_sub_epi32(exact, start)));
      }
      // |T| < 4096 * 255 * 128 < 2^27; each conversion rounds by u.
      groups = _mm256_add_ps(groups, _mm256_cvtepi32_ps(block));
      blocks = _mm256_add_ps(blocks, _mm256_cvtepi32_ps(_mm256_abs_epi32(exact)));
      start = exact;
    }
    // The last group's exact sum is S itself: where not, the samples were misread, and no lane
    // is taken on their word.
    const int mismatch = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(exact, sum))) ^ 0xFF;
    const __m256 total = _mm256_cvtepi32_ps(_mm256_abs_epi32(exact));  // |S|
    // W = 16 sum |T_e - T_start| + sum |T_cum| + 6 |S|, raised by 2^-10 past every rounding of
    // these float sums (at most 2 * 32 blocks + 4 terms: relative error < 2^-17).
    const __m256 w = _mm256_fmadd_ps(_mm256_set1_ps(float(kPointwiseSampleTerms)), groups,
                                     _mm256_fmadd_ps(_mm256_set1_ps(6.f), total, blocks));
    const __m256 raised = _mm256_mul_ps(w, _mm256_set1_ps(1.f + 1.f / 1024.f));
    const __m256 limit =
        _mm256_fnmadd_ps(raised, _mm256_set1_ps(s.per_sum),
                         _mm256_fnmadd_ps(norms, _mm256_set1_ps(s.sampled_reach_per_norm), _mm256_set1_ps(s.limit)));
    return _mm256_movemask_ps(_mm256_cmp_ps(DistanceFromStep(t), limit, _CMP_NLT_UQ)) | mismatch;
  }
};

// A tile's outputs (channels c0.., `rows` of them) at one vector of 16 columns (`cols` of them
// valid, y or codes at its first column): each written, fl(A * s_y) to y or the code to
// `codes`, and where a lane is not proven its channel added to the vector's open list (as
// 4 * channel + the mask of its halves with an open lane).
template <bool kCodes, bool kSampled>
void FinishTile(const PointwiseInt8Plan& p, const PointwiseInt8Step* steps, const __m256i (&acc)[kTileRows][2],
                int rows, int64_t c0, const Quantizer& rule, const float* norm_values, int64_t cols, float* y,
                uint8_t* codes, const CodePacker& pack, const Samples& samples, int32_t* open, int32_t* count) {
  const __m256 norms[2] = {_mm256_loadu_ps(norm_values), _mm256_loadu_ps(norm_values + 8)};
  const int valid = LaneBits(cols) | LaneBits(cols - 8) << 8;  // bit 8h + i: lane i of half h
  const int64_t columns = p.columns;
  for (int r = 0; r < rows; ++r) {
    const int64_t c = c0 + r;
    const ChannelConstants k(steps[c]);
    __m256 t[2];
    const __m256 unproven0 = Steps<!kCodes>(k, acc[r][0], norms[0], rule, &t[0]);
    const __m256 unproven1 = Steps<!kCodes>(k, acc[r][1], norms[1], rule, &t[1]);
    const int lanes = (_mm256_movemask_ps(unproven0) | _mm256_movemask_ps(unproven1) << 8) & valid;
    if (kCodes) {
      StoreCodes(pack(_mm256_cvtps_epi32(t[0]), _mm256_cvtps_epi32(t[1])), cols, codes + c * columns);  // A: to even
    } else {
      for (int h = 0; h < 2; ++h) {
        // As the reference's quantizer: (t + 1.5 * 2^23) - 1.5 * 2^23.
        const __m256 step = _mm256_mul_ps(_mm256_sub_ps(_mm256_add_ps(t[h], rule.magic), rule.magic), rule.scale);
        float* to = y + c * columns + 8 * h;
        // VMASKMOVPS stores are slow on AMD (microcoded): a full half takes a plain store.
        if (cols >= 8 * (h + 1))
          _mm256_storeu_ps(to, step);
        else
          _mm256_maskstore_ps(to, FirstLanes(cols - 8 * h), step);
      }
    }
    if (__builtin_expect(lanes == 0, 1)) continue;                  // about 1% of a tile's rows have an open lane
    int halves = ((lanes & 0xFF) != 0) | ((lanes >> 8) != 0) << 1;  // bit h: half h has an unproven lane
    // The second bound, from the tile's running sums, where the first left a lane open.
    for (int h = 0; h < 2 && kSampled; ++h) {
      if ((halves >> h & 1) != 0 &&
          (samples.Open(steps[c], c, r, h, norms[h], t[h], acc[r][h]) & (valid >> 8 * h & 0xFF)) == 0) {
        halves &= ~(1 << h);
      }
    }
    if (halves != 0) open[(*count)++] = int32_t(4 * c + halves);
  }
}

}  // namespace

namespace {

// The pass over int16 pairs (VPMADDWD) or, kBytes, over quads of bytes (VPMADDUBSW); kSampled:
// plan.sampled.
template <bool kBytes, bool kSampled>
void Pass(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, const uint8_t* x_codes, float* y,
          uint8_t* codes, int64_t first, int64_t last, const OutputEpilogue* rest,
          const PointwiseInt8Scratch& scratch) {
  using PackFn = bool (*)(const PointwiseInt8Plan&, const float*, int64_t, int64_t, int32_t*, float*, float*);
  constexpr PackFn kPack[kTileVectors + 1] = {nullptr, Pack<1, kBytes>, Pack<2, kBytes>, Pack<3, kBytes>,
                                              Pack<4, kBytes>};
  using PackCodesFn = void (*)(const PointwiseInt8Plan&, const uint8_t*, int64_t, int64_t, int32_t*, float*);
  constexpr PackCodesFn kPackCodes[kTileVectors + 1] = {nullptr, PackCodePairs<1>, PackCodePairs<2>, PackCodePairs<3>,
                                                        PackCodePairs<4>};
  const int tile_rows = kBytes ? kByteTileRows[p.quad_pairs] : kTileRows;
  const int64_t blocks = last - first;
  auto columns_of = [&](int64_t b) { return std::min(kBlock, p.columns - (first + b) * kBlock); };
  auto packed_of = [&](int64_t b) { return scratch.packed + b * p.rows * kBlock; };
  auto floats_of = [&](int64_t b) { return scratch.floats + b * p.k * kBlock; };
  // open[(4b + v) * channels + i], i < count[4b + v]: the channels with an output near a
  // rounding boundary in vector v of block b (4 * channel + its halves' mask). A block off its
  // grid has count -1.
  int32_t* open = scratch.open;
  int32_t* count = scratch.counts;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t j0 = (first + b) * kBlock, cols = columns_of(b);
    bool on_grid = true;
    if (x_codes != nullptr && kBytes) {
      PackCodeQuads(p, x_codes + j0, p.columns, cols, packed_of(b), scratch.norms + b * kBlock);
    } else if (x_codes != nullptr) {
      kPackCodes[(cols + 15) / 16](p, x_codes + j0, p.columns, cols, packed_of(b), scratch.norms + b * kBlock);
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
    rule.low = _mm256_max_ps(rule.low, _mm256_set1_ps(scratch.clamp_low));
    rule.high = _mm256_min_ps(rule.high, _mm256_set1_ps(scratch.clamp_high));
  }
  const CodePacker pack{_mm256_set1_epi16(int16_t(fq.zero_point)), a.before_signed};
  const CodeQuantizer code{Quantizer(fq.scale, fq.zero_point, a.before_signed), a.before_signed};
  const bool with_codes = codes != nullptr;
  __m256i acc[kTileRows][2];
  for (int64_t c0 = 0; c0 < p.channels; c0 += tile_rows) {
    const int rows = int(std::min<int64_t>(tile_rows, p.channels - c0));
    for (int64_t b = 0; b < blocks; ++b) {
      if (count[4 * b] < 0) continue;
      const int64_t j0 = (first + b) * kBlock, cols = columns_of(b);
      for (int v = 0; 16 * v < cols; ++v) {
        TileFor<kBytes, kSampled>(p, rows, cols - 16 * v <= 8)(
            packed_of(b) + 16 * v, p.rows, p.weights.data() + c0 * p.rows, p.rows, acc, scratch.samples);
        if (kBytes) Settle(p, packed_of(b) + 16 * v, rows, c0, acc);
        const int64_t at = j0 + 16 * v;
        int32_t* list = open + (4 * b + v) * p.channels;
        const Samples samples{p, scratch.samples, packed_of(b) + 16 * v};
        if (with_codes) {
          FinishTile<true, kSampled>(p, scratch.steps, acc, rows, c0, rule, scratch.norms + b * kBlock + 16 * v,
                                     cols - 16 * v, nullptr, codes + at, pack, samples, list, count + 4 * b + v);
        } else {
          FinishTile<false, kSampled>(p, scratch.steps, acc, rows, c0, rule, scratch.norms + b * kBlock + 16 * v,
                                      cols - 16 * v, y + at, nullptr, pack, samples, list, count + 4 * b + v);
        }
      }
    }
  }
  // Those halves are recomputed whole, as the reference computes them (their proven lanes get the
  // same values again).
  for (int64_t b = 0; b < blocks; ++b) {
    if (count[4 * b] < 0) continue;
    const int64_t j0 = (first + b) * kBlock, cols = columns_of(b);
    if (x_codes != nullptr) {  // the floats of the halves with an open output
      int halves = 0;
      for (int v = 0; v < kTileVectors; ++v) {
        const int32_t* list = open + (4 * b + v) * p.channels;
        for (int32_t i = 0; i < count[4 * b + v]; ++i) halves |= (list[i] & 3) << 2 * v;
      }
      FloatsOf<kBytes>(p, packed_of(b), halves, floats_of(b));
    }
    RecomputeOpen(p, a, code, floats_of(b), with_codes ? nullptr : y, with_codes ? codes : nullptr, j0, cols,
                  open + 4 * b * p.channels, count + 4 * b);
    if (rest != nullptr) {
      for (int64_t c = 0; c < p.channels; ++c) rest->Apply(y + j0 + c * p.columns, cols, c);
    }
  }
}

}  // namespace

void PointwiseInt8Pass(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x, const uint8_t* x_codes,
                       float* y, uint8_t* codes, int64_t first, int64_t last, const OutputEpilogue* rest,
                       const PointwiseInt8Scratch& scratch) {
  (p.sampled ? Pass<false, true> : Pass<false, false>)(p, a, x, x_codes, y, codes, first, last, rest, scratch);
}

void PointwiseInt8PassBytes(const PointwiseInt8Plan& p, const PointwiseInt8Args& a, const float* x,
                            const uint8_t* x_codes, float* y, uint8_t* codes, int64_t first, int64_t last,
                            const OutputEpilogue* rest, const PointwiseInt8Scratch& scratch) {
  (p.sampled ? Pass<true, true> : Pass<true, false>)(p, a, x, x_codes, y, codes, first, last, rest, scratch);
}

}  // namespace qrt::avx2
