// The run driver shared by the SIMD QuantizedMul / QuantizedAdd kernels (AVX2,
// AVX-512): walks a run in blocks of K::kBlock outputs, streams large outputs
// with non-temporal stores after an aligned head, and runs partial blocks on
// zero-padded copies, so every output goes through the same block code. Also
// the dtype/op/rule dispatch to a kernel instantiation.
//
// Included only by the ISA files; everything is a template of the kernel class,
// so each file instantiates its own code with its own compiler flags.
//
// The kernel class template K<TA, TB, TC, Op, Rule, AInc, BInc, Bounded>
// provides:
//   static constexpr int64_t kBlock;                   outputs per block (=
//   bytes; 8-bit C) K(const void* a, const void* b, const
//   QuantizedBinaryParams& p); template <bool kStream> void Block(const TA* a,
//   const TB* b, uint8_t* c) const;
//     kBlock outputs from a, b (kBlock elements each if AInc/BInc, else their
//     first element); kStream: c is kBlock-aligned, store non-temporally.
//   static void Fence();                              orders the non-temporal
//   stores
#pragma once

#include <cstdint>
#include <cstring>

#include "ops/kernels/qbinary/quantized_binary.h"

namespace qrt {
namespace quantized_binary_blocks {

using Op = QuantizedBinaryOp;
using Rule = Requantize;

template <template <class, class, class, Op, Rule, bool, bool, bool> class K, class TA, class TB, class TC, Op O,
          Rule R, bool AInc, bool BInc, bool Bounded>
void RunInc(int64_t n, const void *av, const void *bv, void *cv, const QuantizedBinaryParams &p) {
  using Kernel = K<TA, TB, TC, O, R, AInc, BInc, Bounded>;
  constexpr int64_t kBlock = Kernel::kBlock;
  const TA *a = static_cast<const TA *>(av);
  const TB *b = static_cast<const TB *>(bv);
  uint8_t *c = static_cast<uint8_t *>(cv);
  const Kernel k(av, bv, p);
  // Outputs [at, at + len), len < kBlock, through a zero-padded block.
  auto partial = [&](int64_t at, int64_t len) {
    alignas(64) TA ba[kBlock] = {};
    alignas(64) TB bb[kBlock] = {};
    alignas(64) uint8_t bc[kBlock];
    if (AInc) std::memcpy(ba, a + at, static_cast<size_t>(len) * sizeof(TA));
    if (BInc) std::memcpy(bb, b + at, static_cast<size_t>(len) * sizeof(TB));
    k.template Block<false>(AInc ? ba : a, BInc ? bb : b, bc);
    std::memcpy(c + at, bc, static_cast<size_t>(len));
  };
  int64_t i = 0;
  if (p.stream_output && n >= 8 * kBlock) {
    const int64_t head =
        static_cast<int64_t>((kBlock - (reinterpret_cast<uintptr_t>(c) & (kBlock - 1))) & (kBlock - 1));
    if (head) partial(0, head);
    for (i = head; i + kBlock <= n; i += kBlock) {
      k.template Block<true>(a + (AInc ? i : 0), b + (BInc ? i : 0), c + i);
    }
    Kernel::Fence();
  } else {
    for (; i + kBlock <= n; i += kBlock) k.template Block<false>(a + (AInc ? i : 0), b + (BInc ? i : 0), c + i);
  }
  if (i < n) partial(i, n - i);
}

template <template <class, class, class, Op, Rule, bool, bool, bool> class K, class TA, class TB, class TC, Op O,
          Rule R, bool Bounded>
void RunBounded(int64_t n, const void *a, int64_t a_inc, const void *b, int64_t b_inc, void *c,
                const QuantizedBinaryParams &p) {
  if (a_inc && b_inc) {
    RunInc<K, TA, TB, TC, O, R, true, true, Bounded>(n, a, b, c, p);
  } else if (a_inc) {
    RunInc<K, TA, TB, TC, O, R, true, false, Bounded>(n, a, b, c, p);
  } else if (b_inc) {
    RunInc<K, TA, TB, TC, O, R, false, true, Bounded>(n, a, b, c, p);
  } else {
    RunInc<K, TA, TB, TC, O, R, false, false, Bounded>(n, a, b, c, p);
  }
}

template <template <class, class, class, Op, Rule, bool, bool, bool> class K, class TA, class TB, class TC, Op O,
          Rule R>
void Run(int64_t n, const void *a, int64_t a_inc, const void *b, int64_t b_inc, void *c,
         const QuantizedBinaryParams &p) {
  if (p.bounded) {
    RunBounded<K, TA, TB, TC, O, R, true>(n, a, a_inc, b, b_inc, c, p);
  } else {
    RunBounded<K, TA, TB, TC, O, R, false>(n, a, a_inc, b, b_inc, c, p);
  }
}

template <template <class, class, class, Op, Rule, bool, bool, bool> class K, class TA, class TB, class TC>
QuantizedBinaryFn ForOpRule(Op op, Rule rule) {
  const bool mul = op == Op::kMul;
  switch (rule) {
    case Rule::kReciprocal:
      return mul ? Run<K, TA, TB, TC, Op::kMul, Rule::kReciprocal> : Run<K, TA, TB, TC, Op::kAdd, Rule::kReciprocal>;
    case Rule::kDivide:
      return mul ? Run<K, TA, TB, TC, Op::kMul, Rule::kDivide> : Run<K, TA, TB, TC, Op::kAdd, Rule::kDivide>;
    case Rule::kCombined:
      return mul ? Run<K, TA, TB, TC, Op::kMul, Rule::kCombined> : Run<K, TA, TB, TC, Op::kAdd, Rule::kCombined>;
  }
  return nullptr;
}

// The instantiation of K for 8-bit A, B and C; nullptr for any other dtype.
template <template <class, class, class, Op, Rule, bool, bool, bool> class K>
QuantizedBinaryFn Pick(Op op, Rule rule, DataType a, DataType b, DataType c) {
  auto is8 = [](DataType t) { return t == DataType::kUInt8 || t == DataType::kInt8; };
  if (!is8(a) || !is8(b) || !is8(c)) return nullptr;
  const int key = (a == DataType::kInt8) * 4 + (b == DataType::kInt8) * 2 + (c == DataType::kInt8);
  using u8 = uint8_t;
  using s8 = int8_t;
  switch (key) {
    case 0:
      return ForOpRule<K, u8, u8, u8>(op, rule);
    case 1:
      return ForOpRule<K, u8, u8, s8>(op, rule);
    case 2:
      return ForOpRule<K, u8, s8, u8>(op, rule);
    case 3:
      return ForOpRule<K, u8, s8, s8>(op, rule);
    case 4:
      return ForOpRule<K, s8, u8, u8>(op, rule);
    case 5:
      return ForOpRule<K, s8, u8, s8>(op, rule);
    case 6:
      return ForOpRule<K, s8, s8, u8>(op, rule);
    default:
      return ForOpRule<K, s8, s8, s8>(op, rule);
  }
}

}  // namespace quantized_binary_blocks
}  // namespace qrt
