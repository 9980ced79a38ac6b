// The steps of MatMulNBits' int8 path (accuracy_level 4) for the SIMD kernels: ref::MatMulNbitsInt8's
// lane layouts cut into steps of at most 128 k, each one FMA per lane. Out of line in a file built
// for the baseline ISA (nbits_reduce.h says why).
#pragma once

#include <cstdint>

#include "ops/kernels/nbits/matmul_nbits.h"

namespace qrt::nbits {

// Which 16-bit words (two k codes of A or W each: a byte's low and high nibble) lane l sums, the
// words counted in the step's bytes. Every lane sums two words, one for kBytes.
enum class Int8Layout : uint8_t {
  kSpan,    // words l and 16 + l: 128 k of one block of 128 or more; a tail block of 64 or 32 k
  kGroups,  // l = 4g + 2s + t: words 16s + 4g + t and that + 2: 128 k over blocks of 32 or 16
  kPairs,   // l = 4g + 2h + r: words 16r + 4g + h and that + 2: two blocks of 64 (or 128 k of
            // one block of 128 or more, ORT's order without AVX512_VNNI)
  kBytes,   // lane l < 8 takes byte l: a tail block of 16
};

struct Int8Step {
  Int8Layout layout = Int8Layout::kSpan;
  uint8_t blocks = 1;           // blocks the step spans (1, 2, 4 or 8)
  uint8_t bytes = 64;           // code bytes it reads: 64, 32, 16 or 8
  uint8_t lane_block[16] = {};  // lane -> its block, counted from `block`
  int64_t block = 0;            // first block
  int64_t offset = 0;           // byte offset in a column's codes: the first k / 2
};

struct Int8Plan {
  int64_t count = 0;    // steps
  int64_t fold_at = 0;  // with eight_lanes, lanes l + 8 fold into l before step fold_at
  bool eight_lanes = false;
};

// Steps for blocks of `block` (16..256) and `blocks` blocks: at most this many.
int64_t Int8StepCapacity(int64_t block, int64_t blocks);
// `vnni_spans`: blocks of 128 and more as ORT with AVX512_VNNI takes them (kSpan), else kPairs.
Int8Plan MakeInt8Plan(int64_t block, int64_t blocks, bool vnni_spans, Int8Step* steps);

// VPERMW's index for `layout` (not kBytes): output words 2l and 2l + 1 are lane l's words.
void Int8WordIndex(Int8Layout layout, int16_t index[32]);

// The int8 path in the order of ORT on a CPU without AVX-512 (ref::MatMulNbitsInt8Lanes8): every
// step gives 8 lanes one exact partial sum each, of the step's code bytes (offset on) arranged as:
enum class Lanes8Kind : uint8_t {
  kChunk,  // 32 bytes (64 k); lane l their dword {0, 1, 4, 5, 2, 3, 6, 7}[l] (8 k)
  kQuads,  // 16 bytes (a block of 32); lane l bytes 2l, 2l + 1 (4 k)
  kPairs,  // 8 bytes (a block of 16); lane l byte l (2 k)
  // 32 bytes, two blocks of 32 one after the other, each as kQuads (ORT's one-row kernel with zero
  // points): lane l bytes 2l, 2l + 1 of the first block, then of the second.
  kQuadPair,
};

struct Lanes8Step {
  Lanes8Kind kind = Lanes8Kind::kChunk;
  uint8_t span = 1;            // blocks the step spans (1, 2 or 4)
  int32_t lane_block[8] = {};  // lane -> its block, counted from `block`
  int64_t block = 0;           // first block
  int64_t offset = 0;          // byte offset in a column's codes: the first k / 2
};

// Steps for blocks of `block` (16..256), `blocks` blocks: at most this many.
int64_t Lanes8StepCapacity(int64_t block, int64_t blocks);
// `block_steps`: blocks of 32 a block at a time (ORT's one-row kernel with zero points).
int64_t MakeLanes8Plan(int64_t block, int64_t blocks, bool block_steps, Lanes8Step* steps);
// The step byte (from `offset`) a kind leaves at position p (0..31) of its 8 dwords (kQuadPair:
// bytes in order, lane l's words l and 8 + l); -1: none.
int Lanes8SourceByte(Lanes8Kind kind, int p);
// Whether ORT takes its one-row kernels (codes minus zero point, no block sums) for m rows.
inline bool Lanes8OneRow(int64_t m, int64_t block) { return m == 1 && block >= 32; }
// One row of Y by ref::MatMulNbitsInt8Lanes8, in the one-row or the several-row order.
void Lanes8RowByReference(const NbitsWeights& w, const float* row, bool one_row, const float* bias, float* y);

// A row of A quantized per block as ORT's CompInt8 does (every CPU class alike): amax = max |a|,
// sa = amax / 127, qa = rint(a * (127 / amax)) (0 when amax is 0; a partial last block padded
// with zeros), asum = sa * float(sum qa). qa has blocks * block entries, sa and asum blocks.
void QuantizeRowReference(const NbitsWeights& w, const float* row, int32_t* qa, float* sa, float* asum);

// One row of Y by `reference` (ref::MatMulNbitsInt8 or its NoVnni order; all columns), for a row
// whose int8 codes leave -127..127 (A not finite, or 127 / amax overflowing): `paired` says
// whether the row is one of a pair (index < m / 2 * 2), which picks its 16-lane reduction.
void Int8RowByReference(NbitsInt8Fn reference, const NbitsWeights& w, const float* row, bool paired, const float* bias,
                        float* y);

}  // namespace qrt::nbits
