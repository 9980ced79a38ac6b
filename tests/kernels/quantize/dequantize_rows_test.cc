// Rows of codes dequantized into a convolution's planes (dequantize_rows.h): the same floats as
// DequantizeLinear's reference kernel, (float(q) - float(zp)) * scale, for every row length and
// tail, both types, zero points at their ends and scales that round; nothing written past a row.
#include "ops/kernels/quantize/dequantize_rows.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ops/kernels/quantize/quantize_linear.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using testing::Bits;

struct Type {
  DataType type;
  DequantizeToF32Fn reference;
  int32_t zero_points[3];
};

const Type kTypes[] = {{DataType::kUInt8, ref::DequantizeU8ToF32, {0, 131, 255}},
                       {DataType::kInt8, ref::DequantizeS8ToF32, {-128, 3, 127}}};

// The kernels this CPU runs for `type`: the selected SIMD ones and the reference ones.
std::vector<DequantizeRowKernels> Kernels(DataType type) {
  return {SelectDequantizeRows(type, Isa::kScalar), SelectDequantizeRows(type, kIsaAuto)};
}

TEST(DequantizeRows, RowsAreDequantizeLinearsFloats) {
  std::mt19937 rng(testing::TestSeed());
  for (const Type& t : kTypes) {
    for (int32_t zp : t.zero_points) {
      for (float scale : {0.0213f, 3.f, 1e-30f}) {
        for (int64_t n = 0; n <= 70; ++n) {
          std::vector<uint8_t> q(size_t(n) + 1);
          for (uint8_t& b : q) b = uint8_t(rng());
          std::vector<float> want(size_t(n) + 1);
          t.reference(n, q.data(), scale, zp, want.data());
          for (const DequantizeRowKernels& k : Kernels(t.type)) {
            std::vector<float> got(size_t(n) + 1, -7.f);
            k.row(n, q.data(), scale, zp, got.data());
            for (int64_t i = 0; i < n; ++i) ASSERT_EQ(Bits(got[size_t(i)]), Bits(want[size_t(i)])) << n << " " << i;
            EXPECT_EQ(got[size_t(n)], -7.f) << "wrote past the row, n " << n;
          }
        }
      }
    }
  }
}

TEST(DequantizeRows, PairsAreTheRowsEvenAndOddFloats) {
  std::mt19937 rng(testing::TestSeed() + 1);
  for (const Type& t : kTypes) {
    for (int32_t zp : t.zero_points) {
      for (int64_t pairs = 0; pairs <= 40; ++pairs) {
        std::vector<uint8_t> q(size_t(2 * pairs) + 1);
        for (uint8_t& b : q) b = uint8_t(rng());
        std::vector<float> row(size_t(2 * pairs) + 1);
        t.reference(2 * pairs, q.data(), 0.37f, zp, row.data());
        for (const DequantizeRowKernels& k : Kernels(t.type)) {
          std::vector<float> even(size_t(pairs) + 1, -7.f), odd(size_t(pairs) + 1, -7.f);
          k.pairs(pairs, q.data(), 0.37f, zp, even.data(), odd.data());
          for (int64_t i = 0; i < pairs; ++i) {
            ASSERT_EQ(Bits(even[size_t(i)]), Bits(row[size_t(2 * i)])) << pairs << " " << i;
            ASSERT_EQ(Bits(odd[size_t(i)]), Bits(row[size_t(2 * i + 1)])) << pairs << " " << i;
          }
          EXPECT_EQ(even[size_t(pairs)], -7.f) << "wrote past the row, pairs " << pairs;
          EXPECT_EQ(odd[size_t(pairs)], -7.f) << "wrote past the row, pairs " << pairs;
        }
      }
    }
  }
}

TEST(DequantizeRows, OnlyEightBitCodes) {
  EXPECT_EQ(SelectDequantizeRows(DataType::kUInt16, kIsaAuto).row, nullptr);
  EXPECT_EQ(SelectDequantizeRows(DataType::kFloat32, Isa::kScalar).pairs, nullptr);
}

}  // namespace
}  // namespace qrt
