// MatMulNBits' int8 path (accuracy_level 4) in the order of ORT on a CPU without AVX-512, with
// AVX2: bit-identical to ref::MatMulNbitsInt8Lanes8. Every step gives each of 8 lanes an exact
// partial sum (nbits_int8.h's Lanes8Step): the codes' nibbles, arranged per step kind, against A's
// codes arranged alike once per row (even k, odd k), by VPMADDUBSW (a pair at most 2 * 15 * 127),
// the two words added (at most 7620), VPMADDWD. ORT's one-row kernels multiply A's codes by the
// weight codes minus the zero point: the same sum is the codes' sum minus zero point x the lane's
// sum of A's codes, exact in int32.
#include <immintrin.h>

#include <cstring>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_int8.h"
#include "ops/kernels/nbits/nbits_int8_avx2.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::avx2 {
namespace {

using nbits::Lanes8Kind;
using nbits::Lanes8Step;

// A row's bytes per step: even-k codes (32), odd-k codes (32), the lanes' code sums (8 int32),
// the lanes' scales sa (8 floats).
constexpr int64_t kStepBytes = 128;

// The step's code bytes at p, lane l's in dword l.
template <Lanes8Kind kKind>
inline __m256i Codes(const uint8_t* p) {
  if constexpr (kKind == Lanes8Kind::kChunk)
    return _mm256_permute4x64_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), 0xD8);
  if constexpr (kKind == Lanes8Kind::kQuads)
    return _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
}

// A column's scales of a step's lanes: its blocks' from p (the step's first block).
template <int kSpan>
inline __m256 LaneScales(const float* p, __m256i index) {
  if constexpr (kSpan == 1) return _mm256_broadcast_ss(p);
  const __m128 blocks =
      kSpan == 4 ? _mm_loadu_ps(p) : _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  return _mm256_permutevar8x32_ps(_mm256_castps128_ps256(blocks), index);
}

void ArrangeRow(const Lanes8Step* steps, int64_t count, const int8_t* qa, const float* sa, uint8_t* out) {
  for (int64_t s = 0; s < count; ++s) {
    const Lanes8Step& st = steps[s];
    uint8_t* dst = out + kStepBytes * s;
    int32_t sums[8] = {};
    int16_t word_sums[16] = {};
    for (int p = 0; p < 32; ++p) {
      const int src = nbits::Lanes8SourceByte(st.kind, p);
      const int8_t even = src < 0 ? 0 : qa[2 * (st.offset + src)], odd = src < 0 ? 0 : qa[2 * (st.offset + src) + 1];
      dst[p] = uint8_t(even);
      dst[32 + p] = uint8_t(odd);
      sums[p / 4] += even + odd;
      word_sums[p / 2] = int16_t(word_sums[p / 2] + even + odd);
    }
    float scales[8];
    for (int l = 0; l < 8; ++l) scales[l] = sa[st.block + st.lane_block[l]];
    if (st.kind == Lanes8Kind::kQuadPair) {  // per word, and the two blocks' scales
      std::memcpy(dst + 64, word_sums, sizeof word_sums);
      for (int l = 0; l < 8; ++l) scales[l] = sa[st.block + l % 2];
    } else {
      std::memcpy(dst + 64, sums, sizeof sums);
    }
    std::memcpy(dst + 96, scales, sizeof scales);
  }
}

// A row's arranged codes of a step (ArrangeRow), loaded once for every column.
struct RowStep {
  __m256i even, odd, sums;
  __m256 sa;
};

inline RowStep LoadRowStep(const uint8_t* q) {
  return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(q)),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32)),
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 64)),
          _mm256_loadu_ps(reinterpret_cast<const float*>(q + 96))};
}

// Two blocks of 32, one row with zero points: each lane's sums fit int16 (at most 4 * 15 * 127
// either way), words 0-7 the first block's lanes, 8-15 the second's; two FMAs per lane, in block
// order.
template <int C>
void RunQuadPairs(const Lanes8Step* steps, int64_t s0, int64_t s1, const uint8_t* qa, const uint8_t* const* codes,
                  const float* const* scales, const uint8_t* const* zero_points, __m256 (&acc_io)[1][C]) {
  __m256 acc[C];  // in registers: the caller's array would be stored after every FMA
  for (int c = 0; c < C; ++c) acc[c] = acc_io[0][c];
  const __m256i nibble = _mm256_set1_epi8(15), low_nibble = _mm256_set1_epi16(15);
  const __m256i nibble_shift = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
  for (int64_t s = s0; s < s1; ++s) {
    const Lanes8Step& st = steps[s];
    const RowStep q = LoadRowStep(qa + kStepBytes * s);
    const __m256 sa0 = _mm256_permute_ps(q.sa, 0x00), sa1 = _mm256_permute_ps(q.sa, 0x55);
    for (int c = 0; c < C; ++c) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(codes[c] + st.offset));
      const __m256i lo = _mm256_and_si256(x, nibble), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);
      // Blocks 2i and 2i + 1 share a byte: its low nibble in words 0-7, its high one in 8-15.
      const __m256i byte = _mm256_set1_epi16(int16_t(zero_points[c][st.block / 2]));
      const __m256i z = _mm256_and_si256(_mm256_srlv_epi32(byte, nibble_shift), low_nibble);
      __m256i words = _mm256_add_epi16(_mm256_maddubs_epi16(lo, q.even), _mm256_maddubs_epi16(hi, q.odd));
      words = _mm256_sub_epi16(words, _mm256_mullo_epi16(q.sums, z));
      const __m256 p0 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_castsi256_si128(words)));
      const __m256 p1 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm256_extracti128_si256(words, 1)));
      const __m256 sb0 = _mm256_broadcast_ss(scales[c] + st.block), sb1 = _mm256_broadcast_ss(scales[c] + st.block + 1);
      acc[c] = _mm256_fmadd_ps(p0, _mm256_mul_ps(sa0, sb0), acc[c]);
      acc[c] = _mm256_fmadd_ps(p1, _mm256_mul_ps(sa1, sb1), acc[c]);
    }
  }
  for (int c = 0; c < C; ++c) acc_io[0][c] = acc[c];
}

// Steps [s0, s1), all of one kind and span, for R rows x C columns: each column's codes, scales
// and zero points (null: 8) from its pointers.
template <int R, int C, bool kOneRow, Lanes8Kind kKind, int kSpan>
void RunSteps(const Lanes8Step* steps, int64_t s0, int64_t s1, const uint8_t* const* qa, const uint8_t* const* codes,
              const float* const* scales, const uint8_t* const* zero_points, __m256 (&acc_io)[R][C]) {
  __m256 acc[R][C];  // in registers: the caller's array would be stored after every FMA
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = acc_io[r][c];
  const __m256i nibble = _mm256_set1_epi8(15), ones = _mm256_set1_epi16(1);
  for (int64_t s = s0; s < s1; ++s) {
    const Lanes8Step& st = steps[s];
    const __m256i index = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(st.lane_block));
    RowStep q[R];
    for (int r = 0; r < R; ++r) q[r] = LoadRowStep(qa[r] + kStepBytes * s);
    for (int c = 0; c < C; ++c) {
      const __m256i x = Codes<kKind>(codes[c] + st.offset);
      const __m256i lo = _mm256_and_si256(x, nibble), hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);
      const __m256 sb = LaneScales<kSpan>(scales[c] + st.block, index);
      __m256i zero_point = _mm256_setzero_si256();
      if constexpr (kOneRow) {
        const int64_t b = st.block;
        zero_point = _mm256_set1_epi32(zero_points[c] ? (zero_points[c][b / 2] >> (4 * (b % 2))) & 15 : 8);
      }
      for (int r = 0; r < R; ++r) {
        const __m256i words = _mm256_add_epi16(_mm256_maddubs_epi16(lo, q[r].even), _mm256_maddubs_epi16(hi, q[r].odd));
        __m256i p = _mm256_madd_epi16(words, ones);
        // One row: minus zero point x the lane's code sum (|sum| <= 1016: VPMADDWD).
        if constexpr (kOneRow) p = _mm256_sub_epi32(p, _mm256_madd_epi16(q[r].sums, zero_point));
        acc[r][c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(p), _mm256_mul_ps(q[r].sa, sb), acc[r][c]);
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc_io[r][c] = acc[r][c];
}

// A plan's steps of one kind and span, [begin, end): the plan has a few (nbits_int8.cc).
struct Run {
  Lanes8Kind kind;
  int span;
  int64_t begin, end;
};
constexpr int kMaxRuns = 4;

int SplitRuns(const Lanes8Step* steps, int64_t count, Run* runs) {
  int n = 0;
  for (int64_t s0 = 0; s0 < count;) {
    int64_t s1 = s0 + 1;
    while (s1 < count && steps[s1].kind == steps[s0].kind && steps[s1].span == steps[s0].span) ++s1;
    runs[n++] = {steps[s0].kind, steps[s0].span, s0, s1};
    s0 = s1;
  }
  return n;
}

// R rows x C columns (j0..): each (row, column)'s 8 lanes after the last step, each run a loop
// of its own.
template <int R, int C, bool kOneRow>
void Tile(const NbitsWeights& w, const Lanes8Step* steps, const Run* runs, int run_count, const uint8_t* const* qa,
          int64_t j0, float* lanes) {
  const int64_t row_bytes = w.blocks * (w.block / 2), zp_row = (w.blocks + 1) / 2;
  const uint8_t* codes[C];
  const float* scales[C];
  const uint8_t* zero_points[C];
  for (int c = 0; c < C; ++c) {
    codes[c] = w.codes + (j0 + c) * row_bytes;
    scales[c] = w.scales + (j0 + c) * w.blocks;
    zero_points[c] = w.zero_points != nullptr ? w.zero_points + (j0 + c) * zp_row : nullptr;
  }
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  for (int i = 0; i < run_count; ++i) {
    const Run& run = runs[i];
    const int64_t s0 = run.begin, s1 = run.end;
    if (run.kind == Lanes8Kind::kChunk && run.span == 4)
      RunSteps<R, C, kOneRow, Lanes8Kind::kChunk, 4>(steps, s0, s1, qa, codes, scales, zero_points, acc);
    else if (run.kind == Lanes8Kind::kChunk && run.span == 2)
      RunSteps<R, C, kOneRow, Lanes8Kind::kChunk, 2>(steps, s0, s1, qa, codes, scales, zero_points, acc);
    else if (run.kind == Lanes8Kind::kChunk)
      RunSteps<R, C, kOneRow, Lanes8Kind::kChunk, 1>(steps, s0, s1, qa, codes, scales, zero_points, acc);
    else if (run.kind == Lanes8Kind::kQuadPair) {
      if constexpr (R == 1) RunQuadPairs<C>(steps, s0, s1, qa[0], codes, scales, zero_points, acc);  // one row only
    } else if (run.kind == Lanes8Kind::kQuads)
      RunSteps<R, C, kOneRow, Lanes8Kind::kQuads, 1>(steps, s0, s1, qa, codes, scales, zero_points, acc);
    else
      RunSteps<R, C, kOneRow, Lanes8Kind::kPairs, 1>(steps, s0, s1, qa, codes, scales, zero_points, acc);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) _mm256_storeu_ps(lanes + 8 * (r * C + c), acc[r][c]);
}

template <int R, int C>
void Tiles(const NbitsWeights& w, const Lanes8Step* steps, int64_t count, const Run* runs, int run_count, bool one_row,
           const uint8_t* qa, int64_t i0, int64_t j0, const float* bias, float* y) {
  alignas(32) float lanes[8 * R * C];
  const uint8_t* rows[R];
  for (int r = 0; r < R; ++r) rows[r] = qa + (i0 + r) * kStepBytes * count;
  if (one_row)
    Tile<R, C, true>(w, steps, runs, run_count, rows, j0, lanes);
  else
    Tile<R, C, false>(w, steps, runs, run_count, rows, j0, lanes);
  const int64_t whole_groups = w.n / 4 * 4;
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      const int64_t j = j0 + c;
      const float* x = lanes + 8 * (r * C + c);
      const float v = j < whole_groups ? nbits::FoldGroups8(x) : nbits::Tree8(x);
      y[(i0 + r) * w.n + j] = bias ? v + bias[j] : v;
    }
  }
}

}  // namespace

void MatMulNbitsInt8Lanes8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  const bool one_row = nbits::Lanes8OneRow(m, w.block);
  const int64_t capacity = nbits::Lanes8StepCapacity(w.block, w.blocks);
  Lanes8Step* steps = ThreadScratchArray<Lanes8Step>(ScratchSlot::kOp1, size_t(capacity));
  const int64_t count = nbits::MakeLanes8Plan(w.block, w.blocks, one_row && w.zero_points != nullptr, steps);
  const int64_t qa_row = kStepBytes * count;
  Run runs[kMaxRuns];
  const int run_count = SplitRuns(steps, count, runs);
  const nbits_int8::Int8Scratch scratch = nbits_int8::TakeInt8Scratch(w, m, qa_row);
  uint8_t* qa = scratch.arranged;
  int8_t* natural = scratch.natural;
  float *sa = scratch.sa, *asum = scratch.asum, *nz = scratch.nz, *irregular = scratch.irregular;
  for (int64_t i = 0; i < m; ++i) {
    const bool regular = nbits_int8::QuantizeRow(w, a + i * w.k, natural, sa + i * w.blocks, asum + i * w.blocks);
    irregular[i] = regular ? 0.f : 1.f;
    ArrangeRow(steps, count, natural, sa + i * w.blocks, qa + i * qa_row);
  }
  constexpr int kCols = 4;
  int64_t j0 = 0;
  for (; j0 + kCols <= w.n; j0 += kCols) {
    int64_t i0 = 0;
    for (; i0 + 2 <= m; i0 += 2) Tiles<2, kCols>(w, steps, count, runs, run_count, one_row, qa, i0, j0, bias, y);
    for (; i0 < m; ++i0) Tiles<1, kCols>(w, steps, count, runs, run_count, one_row, qa, i0, j0, bias, y);
  }
  for (; j0 < w.n; ++j0) {
    for (int64_t i0 = 0; i0 < m; ++i0) Tiles<1, 1>(w, steps, count, runs, run_count, one_row, qa, i0, j0, bias, y);
  }
  if (!one_row) nbits_int8::AddZeroPointShare(w, m, asum, nz, y);
  for (int64_t i = 0; i < m; ++i) {
    if (irregular[i] != 0.f) nbits::Lanes8RowByReference(w, a + i * w.k, one_row, bias, y + i * w.n);
  }
}

}  // namespace qrt::avx2
