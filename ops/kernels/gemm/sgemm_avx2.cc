// AVX2 ordered GEMM, bit-identical to ref::Sgemm (sgemm.h). Every output element sees the
// same operations in the same order as in the reference; only which elements are computed
// side by side changes. The files are built with -ffp-contract=off, so a multiply followed by
// an add stays two roundings; _mm256_fmadd_ps is the one fused step of the m > 1 order.
#include <immintrin.h>

#include <algorithm>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/common/tile_width.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/kernels/gemm/sgemm_blocked.h"
#include "runtime/parallel.h"

namespace qrt {
namespace avx2 {
namespace {

// `masked` is a constant wherever these are inlined (the tile loops are unrolled).
inline __m256 Load(const float* p, __m256i mask, bool masked) {
  return masked ? _mm256_maskload_ps(p, mask) : _mm256_loadu_ps(p);
}

inline void Store(float* p, __m256i mask, bool masked, __m256 v) {
  if (masked)
    _mm256_maskstore_ps(p, mask, v);
  else
    _mm256_storeu_ps(p, v);
}

// ---- m > 1: R rows x V vectors of C over one k block ---------------------------------

// kMaskLoad: B's last vector is partial (read masked); kMaskStore: C's last vector is.
template <int R, int V, bool kMaskLoad, bool kMaskStore>
inline void Tile(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                 bool store, const float* alpha, const float* bias, __m256i mask) {
  __m256 acc[R][V];
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_ps();
  }
  for (int64_t p = 0; p < kb; ++p) {
    const float* bp = b + p * ldb;
    __m256 bv[V];
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) bv[v] = Load(bp + 8 * v, mask, kMaskLoad && v == V - 1);
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r * lda + p);
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_fmadd_ps(av, bv[v], acc[r][v]);
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) {
      float* cp = c + r * ldc + 8 * v;
      const bool masked = kMaskStore && v == V - 1;
      __m256 out = acc[r][v];
      if (alpha == nullptr)
        out = store ? out : _mm256_add_ps(out, Load(cp, mask, masked));
      else if (store)
        out = _mm256_mul_ps(out, _mm256_broadcast_ss(alpha));
      else
        out = _mm256_fmadd_ps(out, _mm256_broadcast_ss(alpha), Load(cp, mask, masked));
      if (bias != nullptr) out = _mm256_add_ps(out, _mm256_broadcast_ss(bias + r));
      Store(cp, mask, masked, out);
    }
  }
}

template <int R>
void RowsOfTiles(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                 int64_t cols, int64_t readable, bool store, const float* alpha, const float* bias) {
  const __m256i none = _mm256_setzero_si256();
  int64_t j = 0;
  for (; j + 24 <= cols; j += 24)
    Tile<R, 3, false, false>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, none);
  // The rest in one tile (as in sgemm_avx512.cc): last vector stored masked, read masked
  // unless B's row has padding there.
  const int64_t rest = cols - j;
  if (rest == 0) return;
  const int vectors = int((rest + 7) / 8);
  const __m256i mask = FirstLanes(rest % 8 ? rest % 8 : 8);
  const bool read_masked = readable < j + 8 * vectors;
  WithVectors<3>(vectors, [&](auto v) {
    constexpr int V = decltype(v)::value;
    if (read_masked)
      Tile<R, V, true, true>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, mask);
    else
      Tile<R, V, false, true>(a, lda, b + j, ldb, kb, c + j, ldc, store, alpha, bias, mask);
  });
}

void Avx2RowTiles(int rows, const float* a, int64_t lda, const float* b, int64_t ldb, int64_t kb, float* c, int64_t ldc,
                  int64_t cols, int64_t readable, bool store, const float* alpha, const float* bias) {
  switch (rows) {
    case 4:
      RowsOfTiles<4>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    case 3:
      RowsOfTiles<3>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    case 2:
      RowsOfTiles<2>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
    default:
      RowsOfTiles<1>(a, lda, b, ldb, kb, c, ldc, cols, readable, store, alpha, bias);
      break;
  }
}

// Strip rows are short (at most 64 floats, segments often 7 to 56): inlined vector copies
// beat a memmove call per piece (a plain loop would be turned back into one).
inline void CopyFloats(const float* src, int64_t n, float* dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_loadu_ps(src + i));
  if (i < n) {
    const __m256i tail = FirstLanes(n - i);
    _mm256_maskstore_ps(dst + i, tail, _mm256_maskload_ps(src + i, tail));
  }
}

// Columns [j, j + w) of B's row p, to out.
inline void PackRow(const SgemmArgs& g, const float* b, int64_t ldb, int64_t p, int64_t j, int64_t w, float* out) {
  if (g.b_rows == nullptr || g.b_segment <= 0) {
    CopyFloats((g.b_rows != nullptr ? g.b_rows[p] : b + p * ldb) + j, w, out);
    return;
  }
  const float* row = g.b_rows[p];
  int64_t segment = j / g.b_segment, at = j % g.b_segment;
  while (w > 0) {
    const int64_t run = std::min(w, g.b_segment - at);
    CopyFloats(row + segment * g.b_segment_step + at, run, out);
    out += run, w -= run, at = 0, ++segment;
  }
}

// Columns per pass (the unit split across threads): a k block of B this wide stays in L2.
constexpr int64_t kColumnsPerPass = 256;
// Columns per strip: a k block of B this wide (at most 128 x 64 floats, 32 KiB) stays in L1
// while every row tile of A runs over it.
constexpr int64_t kColumnsPerStrip = 64;
// Packed strip rows are padded to a multiple of this (a whole AVX-512 vector).
constexpr int64_t kPadTo = 16;

void Blocked(const SgemmArgs& g, const float* b, int64_t ldb, sgemm_detail::RowTilesFn tiles, int tile_rows) {
  if (g.k == 0) {
    for (int64_t i = 0; i < g.m; ++i) {
      float* row = g.c + i * g.ldc;
      if (!g.accumulate) std::fill(row, row + g.n, 0.f);
      if (g.bias != nullptr) {
        for (int64_t j = 0; j < g.n; ++j) row[j] = row[j] + g.bias[i];
      }
      if (g.epilogue != nullptr) g.epilogue->Apply(row, g.n, i);
    }
    return;
  }
  const int64_t block = SgemmBlockK(g);
  const float* alpha = g.alpha != 1.f ? &g.alpha : nullptr;
  for (int64_t p0 = 0; p0 < g.k; p0 += block) {
    const int64_t kb = std::min(block, g.k - p0);
    const bool store = p0 == 0 && !g.accumulate;
    const int64_t passes = (g.n + kColumnsPerPass - 1) / kColumnsPerPass;
    // Enough work per thread: at least ~1M multiply-adds.
    const int64_t min_passes =
        std::max<int64_t>(1, (int64_t(1) << 20) / std::max<int64_t>(1, g.m * kb * kColumnsPerPass));
    ParallelFor(g.threads, passes, 1, min_passes, [&](int64_t first, int64_t last) {
      for (int64_t j0 = first * kColumnsPerPass; j0 < std::min(g.n, last * kColumnsPerPass); j0 += kColumnsPerPass) {
        const int64_t cols = std::min(kColumnsPerPass, g.n - j0);
        // When several row tiles reuse it, the k block x cols panel of B is packed as strips
        // of kColumnsPerStrip columns, each contiguous (row p of strip s at s * kb * 64 + p * padded(w)):
        // a strip is then a sequential read that stays in L1 for all row tiles, where B's own
        // rows may be a whole image apart.
        // A packed strip's rows are padded with zeros to whole vectors, so the tiles read its
        // last vector unmasked (the padding's products land in lanes that are not stored).
        const bool pack = g.m > tile_rows || g.b_rows != nullptr;
        auto padded = [](int64_t w) { return (w + kPadTo - 1) / kPadTo * kPadTo; };
        float* panel = pack ? ThreadScratchFloats(ScratchSlot::kGemmPanel, size_t(kb * padded(cols))) : nullptr;
        if (pack) {
          for (int64_t s0 = 0; s0 < cols; s0 += kColumnsPerStrip) {
            const int64_t w = std::min(kColumnsPerStrip, cols - s0), wp = padded(w);
            float* strip = panel + s0 * kb;
            for (int64_t p = 0; p < kb; ++p) {
              PackRow(g, b, ldb, p0 + p, j0 + s0, w, strip + p * wp);
              for (int64_t z = w; z < wp; ++z) strip[p * wp + z] = 0.f;
            }
          }
        }
        for (int64_t s0 = 0; s0 < cols; s0 += kColumnsPerStrip) {
          const int64_t w = std::min(kColumnsPerStrip, cols - s0);
          const float* bs = pack ? panel + s0 * kb : b + p0 * ldb + j0 + s0;
          const int64_t lds = pack ? padded(w) : ldb;
          for (int64_t i0 = 0; i0 < g.m; i0 += tile_rows) {
            const int rows = int(std::min<int64_t>(tile_rows, g.m - i0));
            const float* bias = g.bias != nullptr && p0 + kb == g.k ? g.bias + i0 : nullptr;
            tiles(rows, g.a + i0 * g.lda + p0, g.lda, bs, lds, kb, g.c + i0 * g.ldc + j0 + s0, g.ldc, w,
                  pack ? padded(w) : w, store, alpha, bias);
          }
        }
        // The pass's columns are final after the last k block: map them while in cache.
        if (g.epilogue != nullptr && p0 + kb == g.k) {
          for (int64_t i = 0; i < g.m; ++i) g.epilogue->Apply(g.c + i * g.ldc + j0, cols, i);
        }
      }
    });
  }
}

// ---- m == 1, B not transposed: groups of 4, 2, 1 products ------------------------------

template <int V, bool kMasked>
void GroupsTile(const SgemmArgs& g, int64_t j, __m256i mask) {
  __m256 c[V];
  bool store = !g.accumulate;
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) c[v] = store ? _mm256_setzero_ps() : Load(g.c + j + 8 * v, mask, kMasked && v == V - 1);
  for (int64_t p = 0; p < g.k;) {
    const int64_t left = g.k - p;
    const int64_t size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    __m256 t[V];
    for (int64_t q = 0; q < size; ++q) {
      const __m256 a = _mm256_broadcast_ss(g.a + p + q);
      const float* b = g.b + (p + q) * g.ldb + j;
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) {
        const __m256 prod = _mm256_mul_ps(a, Load(b + 8 * v, mask, kMasked && v == V - 1));
        t[v] = q == 0 ? prod : _mm256_add_ps(t[v], prod);
      }
    }
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) c[v] = store ? t[v] : _mm256_add_ps(t[v], c[v]);
    store = false;
    p += size;
  }
  if (g.bias != nullptr) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) c[v] = _mm256_add_ps(c[v], _mm256_broadcast_ss(g.bias));
  }
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) Store(g.c + j + 8 * v, mask, kMasked && v == V - 1, c[v]);
}

void RowGroups(const SgemmArgs& g) {
  const __m256i none = _mm256_setzero_si256();
  int64_t j = 0;
  for (; j + 32 <= g.n; j += 32) GroupsTile<4, false>(g, j, none);
  for (; j + 8 <= g.n; j += 8) GroupsTile<1, false>(g, j, none);
  if (g.n > j) GroupsTile<1, true>(g, j, FirstLanes(g.n - j));
}

// ---- m == 1, B transposed: eight lane sums and a fixed tree ----------------------------

// Outputs [j, j + C) from their eight lane sums each, by the tree of each one's column group.
template <int C>
void FinishColumns(const SgemmArgs& g, int64_t j, const __m256 (&lanes)[C]) {
  alignas(32) float s[8];
  for (int c = 0; c < C; ++c) {
    _mm256_store_ps(s, lanes[c]);
    const float dot = SgemmRowLanesDot(s, j + c, g.n);
    float& out = g.c[j + c];
    out = g.accumulate ? dot + out : dot;
    if (g.bias != nullptr) out = out + g.bias[0];
  }
}

// Columns [j, j + C): C independent chains of lane sums, so that the adds overlap.
// column(c, p, tail) is column j + c of B' (row j + c of the transposed B) at p: 8 values, or
// with `tail` (not null) those of the lanes it selects and 0 elsewhere. Lanes past k add
// 0 * 0 = +0, which leaves a lane unchanged (a lane sum starting from +0 is never -0).
template <int C, class Column>
void LanesOfColumns(const SgemmArgs& g, int64_t full, const __m256i& tail, const Column& column) {
  __m256 lanes[C];
  for (int c = 0; c < C; ++c) lanes[c] = _mm256_setzero_ps();
  for (int64_t p = 0; p < full; p += 8) {
    const __m256 a = _mm256_loadu_ps(g.a + p);
    for (int c = 0; c < C; ++c) lanes[c] = _mm256_add_ps(lanes[c], _mm256_mul_ps(a, column(c, p, nullptr)));
  }
  if (full < g.k) {
    const __m256 a = _mm256_maskload_ps(g.a + full, tail);
    for (int c = 0; c < C; ++c) {
      lanes[c] = _mm256_add_ps(lanes[c], _mm256_mul_ps(a, column(c, full, &tail)));
    }
  }
  FinishColumns<C>(g, column.j, lanes);
}

// Every column, four at a time; columns(j, count) gives LanesOfColumns' column for `count`
// columns from j.
template <class Columns>
void RowLanesOf(const SgemmArgs& g, const Columns& columns) {
  const int64_t full = g.k / 8 * 8;
  const __m256i tail = FirstLanes(std::max<int64_t>(1, g.k - full));
  int64_t j = 0;
  for (; j + 4 <= g.n; j += 4) LanesOfColumns<4>(g, full, tail, columns(j, 4));
  for (; j < g.n; ++j) LanesOfColumns<1>(g, full, tail, columns(j, 1));
}

// B' as floats: transposed B's rows.
struct FloatColumns {
  const SgemmArgs& g;
  int64_t j;
  __m256 operator()(int c, int64_t p, const __m256i* tail) const {
    const float* at = g.b + (j + c) * g.ldb + p;
    return tail != nullptr ? _mm256_maskload_ps(at, *tail) : _mm256_loadu_ps(at);
  }
};

// B' rebuilt from codes: (float(code) - zp) * scale, the same floats (kZeroPoints false: every zp
// 0, float(code) - 0 being float(code)). The codes' padding is the zero point, so the tail's
// lanes past k are 0 like the masked loads of FloatColumns. The columns' scales and zero points
// are broadcast once, for up to four columns from j.
template <bool kSigned, bool kZeroPoints>
struct CodedColumns {
  const CodedB& b;
  int64_t j;
  __m256 scale[4], zero_point[4];
  bool whole;  // a group of four columns
  CodedColumns(const CodedB& codes, int64_t first, int64_t count) : b(codes), j(first), whole(count == 4) {
    for (int64_t c = 0; c < count; ++c) {
      scale[c] = _mm256_set1_ps(b.scales[j + c]);
      zero_point[c] = _mm256_set1_ps(b.zero_points[j + c]);
    }
  }
  __m256 operator()(int c, int64_t p, const __m256i*) const {
    // Calls for four columns start at a group (RowLanesOf): InterleaveCodedRows' layout.
    const uint8_t* at = b.codes + (whole ? j * b.stride + 4 * p + 8 * c : j * b.stride + p);
    // Once per cache line, the line 512 bytes on: in a model the codes (1.28 MB for
    // MobileNetV2's classifier) come from L3 or memory (docs/design.md has the measurement).
    if ((at - b.codes) % 64 == 0) _mm_prefetch(reinterpret_cast<const char*>(at + 512), _MM_HINT_T0);
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(at));
    const __m256i codes = kSigned ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    const __m256 values = _mm256_cvtepi32_ps(codes);
    return _mm256_mul_ps(kZeroPoints ? _mm256_sub_ps(values, zero_point[c]) : values, scale[c]);
  }
};

void RowLanes(const SgemmArgs& g) {
  RowLanesOf(g, [&](int64_t j, int64_t) { return FloatColumns{g, j}; });
}

template <bool kSigned, bool kZeroPoints>
void RowLanesCoded(const SgemmArgs& g, const CodedB& b) {
  RowLanesOf(g, [&](int64_t j, int64_t count) { return CodedColumns<kSigned, kZeroPoints>(b, j, count); });
}

template <int V, bool kMasked>
inline void OneRowTile(int64_t k, const float* a, const float* const* rows, int64_t j, const float* bias, float* c,
                       __m256i mask) {
  __m256 sum[V];
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) sum[v] = _mm256_setzero_ps();  // k == 0 leaves 0
  for (int64_t p = 0; p < k;) {
    const int64_t left = k - p;
    const int64_t size = left >= 4 ? 4 : left >= 2 ? 2 : 1;
    __m256 t[V];
    for (int64_t q = 0; q < size; ++q) {
      const __m256 av = _mm256_broadcast_ss(a + p + q);
      const float* b = rows[p + q] + j;
#pragma GCC unroll 16
      for (int v = 0; v < V; ++v) {
        const __m256 prod = _mm256_mul_ps(av, Load(b + 8 * v, mask, kMasked && v == V - 1));
        t[v] = q == 0 ? prod : _mm256_add_ps(t[v], prod);
      }
    }
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) sum[v] = p == 0 ? t[v] : _mm256_add_ps(t[v], sum[v]);
    p += size;
  }
  if (bias != nullptr) {
#pragma GCC unroll 16
    for (int v = 0; v < V; ++v) sum[v] = _mm256_add_ps(sum[v], _mm256_broadcast_ss(bias));
  }
#pragma GCC unroll 16
  for (int v = 0; v < V; ++v) Store(c + j + 8 * v, mask, kMasked && v == V - 1, sum[v]);
}

}  // namespace

void SgemmOneRow(int64_t k, const float* a, const float* const* rows, int64_t n, const float* bias, float* c) {
  const __m256i none = _mm256_setzero_si256();
  int64_t j = 0;
  for (; j + 32 <= n; j += 32) OneRowTile<4, false>(k, a, rows, j, bias, c, none);
  // The rest in one tile as wide as it needs, its last vector masked: its vectors' sums are
  // independent chains that overlap, where one vector at a time waits on each add.
  const int64_t rest = n - j;
  const __m256i mask = FirstLanes(rest % 8 ? rest % 8 : 8);
  WithVectors<4>((rest + 7) / 8, [&](auto v) { OneRowTile<decltype(v)::value, true>(k, a, rows, j, bias, c, mask); });
}

void Sgemm(const SgemmArgs& g) { sgemm_detail::SgemmWith(g, Avx2RowTiles, 4); }

void SgemmRowLanesCoded(const SgemmArgs& g, const CodedB& b) {
  if (g.m <= 0 || g.n <= 0) return;
  if (b.is_signed && b.zero_points_zero)
    RowLanesCoded<true, false>(g, b);
  else if (b.is_signed)
    RowLanesCoded<true, true>(g, b);
  else
    RowLanesCoded<false, true>(g, b);
}

}  // namespace avx2

namespace sgemm_detail {

void SgemmWith(const SgemmArgs& g, RowTilesFn tiles, int tile_rows) {
  if (g.m <= 0 || g.n <= 0) return;
  if (SgemmOneRowOrder(g)) {
    if (g.trans_b)
      avx2::RowLanes(g);
    else
      avx2::RowGroups(g);
    if (g.epilogue != nullptr) g.epilogue->Apply(g.c, g.n, 0);
    return;
  }
  if (!g.trans_b || g.b_rows != nullptr) {
    avx2::Blocked(g, g.b, g.ldb, tiles, tile_rows);
    return;
  }
  // m > 1 with B transposed (rare: Gemm with transB and several rows, a convolution whose
  // kernel covers its input): transpose B once; the order of the sums does not change.
  float* bt = ThreadScratchFloats(ScratchSlot::kGemmTransposedB, size_t(g.k * g.n));
  for (int64_t j = 0; j < g.n; ++j) {
    for (int64_t p = 0; p < g.k; ++p) bt[p * g.n + j] = g.b[j * g.ldb + p];
  }
  avx2::Blocked(g, bt, g.n, tiles, tile_rows);
}

}  // namespace sgemm_detail
}  // namespace qrt
