// The per-pair Cast loops against the per-element reference, for every pair of dtypes, on
// the values where conversions go wrong: limits, one past them, ties, NaN, infinities, -0.
#include "ops/kernels/cast/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "runtime/float8.h"
#include "runtime/half.h"

namespace qrt {
namespace {

const std::vector<DataType> kTypes = {DataType::kFloat32,    DataType::kFloat64,        DataType::kFloat16,
                                      DataType::kBFloat16,   DataType::kFloat8E4M3FN,   DataType::kFloat8E4M3FNUZ,
                                      DataType::kFloat8E5M2, DataType::kFloat8E5M2FNUZ, DataType::kBool,
                                      DataType::kInt8,       DataType::kUInt8,          DataType::kInt16,
                                      DataType::kUInt16,     DataType::kInt32,          DataType::kInt64,
                                      DataType::kUInt32,     DataType::kUInt64};

// Interesting doubles, and the same written into a tensor of `t` (the nearest representable
// value: what a Cast from double to t gives, by the reference).
const std::vector<double> kValues = {0.0,
                                     -0.0,
                                     0.5,
                                     1.5,
                                     2.5,
                                     -0.5,
                                     -1.5,
                                     -2.7,
                                     127.0,
                                     128.0,
                                     255.0,
                                     256.0,
                                     -128.0,
                                     -129.0,
                                     300.7,
                                     -300.7,
                                     32767.5,
                                     65535.0,
                                     65536.0,
                                     -32769.0,
                                     1e9,
                                     3e9,
                                     -3e9,
                                     4294967296,
                                     9.3e18,
                                     1.9e19,
                                     -9.3e18,
                                     1e30,
                                     -1e30,
                                     1e-30,
                                     448.0,
                                     464.0,
                                     57344.0,
                                     65504.0,
                                     3.4e38,
                                     1e300,
                                     1.0 / 3,
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN()};

std::vector<uint8_t> Filled(DataType t) {
  std::vector<uint8_t> bytes(kValues.size() * DataTypeSize(t));
  ref::CastElements(DataType::kFloat64, t, kValues.data(), bytes.data(), int64_t(kValues.size()), true);
  return bytes;
}

TEST(CastKernel, EveryPairMatchesTheReferenceBitForBit) {
  for (DataType from : kTypes) {
    const std::vector<uint8_t> x = Filled(from);
    const int64_t n = int64_t(kValues.size());
    for (DataType to : kTypes) {
      for (bool saturate : {true, false}) {
        std::vector<uint8_t> want(size_t(n) * DataTypeSize(to), 0xAB), got(want.size(), 0xCD);
        ref::CastElements(from, to, x.data(), want.data(), n, saturate);
        const CastFn fn = SelectCast(from, to);
        ASSERT_NE(fn, nullptr) << DataTypeName(from) << " -> " << DataTypeName(to);
        fn(x.data(), got.data(), n, saturate);
        EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size()))
            << DataTypeName(from) << " -> " << DataTypeName(to) << " saturate " << saturate;
      }
    }
  }
}

TEST(CastKernel, FourBitTypesHaveNoLoop) {
  EXPECT_EQ(SelectCast(DataType::kInt4, DataType::kFloat32), nullptr);
  EXPECT_EQ(SelectCast(DataType::kFloat32, DataType::kUInt4), nullptr);
}

template <class From, class To>
std::vector<To> Cast(DataType from, DataType to, std::vector<From> x) {
  std::vector<To> y(x.size());
  SelectCast(from, to)(x.data(), y.data(), int64_t(x.size()), true);
  return y;
}

TEST(CastKernel, FloatToIntegerTruncatesAndSaturates) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ((Cast<float, int8_t>(DataType::kFloat32, DataType::kInt8, {-1.9f, 1.9f, 300.f, -300.f, nan, -inf})),
            (std::vector<int8_t>{-1, 1, 127, -128, 0, -128}));
  EXPECT_EQ((Cast<float, uint8_t>(DataType::kFloat32, DataType::kUInt8, {-0.5f, 255.9f, 256.f, inf})),
            (std::vector<uint8_t>{0, 255, 255, 255}));
  EXPECT_EQ((Cast<double, int64_t>(DataType::kFloat64, DataType::kInt64, {1e300, -1e300, -7.99})),
            (std::vector<int64_t>{INT64_MAX, INT64_MIN, -7}));
}

TEST(CastKernel, IntegersKeepLowBitsAndRoundOnceToFloat) {
  EXPECT_EQ((Cast<int32_t, int8_t>(DataType::kInt32, DataType::kInt8, {300, -129, 127})),
            (std::vector<int8_t>{44, 127, 127}));
  EXPECT_EQ((Cast<int32_t, float>(DataType::kInt32, DataType::kFloat32, {16777217, -16777219, 7})),
            (std::vector<float>{16777216.f, -16777220.f, 7.f}));
  // int64 2^53 + 2^29 + 1 rounds once to float (2^53 + 2^30); via double it would tie twice, to 2^53.
  const int64_t v = (int64_t(1) << 53) + (int64_t(1) << 29) + 1;
  EXPECT_EQ((Cast<int64_t, float>(DataType::kInt64, DataType::kFloat32, {v})[0]), 9007200328482816.f);
  // uint64 above INT64_MAX converts by its unsigned value.
  EXPECT_EQ((Cast<uint64_t, float>(DataType::kUInt64, DataType::kFloat32, {UINT64_MAX})[0]), 18446744073709551616.f);
  EXPECT_EQ((Cast<uint64_t, double>(DataType::kUInt64, DataType::kFloat64, {uint64_t(1) << 63})[0]),
            9223372036854775808.0);
}

TEST(CastKernel, BoolAndHalfConversions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ((Cast<float, uint8_t>(DataType::kFloat32, DataType::kBool, {0.f, -0.f, 1e-40f, nan})),
            (std::vector<uint8_t>{0, 0, 1, 1}));
  EXPECT_EQ((Cast<uint8_t, int32_t>(DataType::kBool, DataType::kInt32, {0, 1, 7})), (std::vector<int32_t>{0, 1, 1}));
  // 1 + 2^-11 is a tie between the float16 values 1 and 1 + 2^-10: to even, 1.
  EXPECT_EQ((Cast<float, uint16_t>(DataType::kFloat32, DataType::kFloat16, {1.f + 0x1p-11f, 65520.f})),
            (std::vector<uint16_t>{0x3C00, 0x7C00}));
}

TEST(CastKernel, LongTensorsAndEmptyOnes) {
  std::vector<int32_t> x(1000003);
  for (size_t i = 0; i < x.size(); ++i) x[i] = int32_t(i * 2654435761u);
  std::vector<float> want(x.size()), got(x.size());
  ref::CastElements(DataType::kInt32, DataType::kFloat32, x.data(), want.data(), int64_t(x.size()), true);
  SelectCast(DataType::kInt32, DataType::kFloat32)(x.data(), got.data(), int64_t(x.size()), true);
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * 4));
  SelectCast(DataType::kInt32, DataType::kFloat32)(x.data(), got.data(), 0, true);  // nothing written
  EXPECT_EQ(0, std::memcmp(want.data(), got.data(), 4));
}

}  // namespace
}  // namespace qrt
