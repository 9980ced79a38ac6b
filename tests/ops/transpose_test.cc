// Transpose: int8, the default reversed permutation, a bad permutation, and every permutation of
// ranks 2 to 4 (tiled or mapped) of every element size against the definition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Transpose, TransposeInt8) {
  Attributes a;
  a.Set("perm", std::vector<int64_t>{1, 0});
  auto out = RunSingleNode("Transpose", 13, {Data(Tensor::FromVector<int8_t>({1, 2, 3, 4, 5, 6}, {2, 3}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{3, 2}));
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(Transpose, TransposeDefaultReversesAndBadPermFails) {
  // [1, 2, 2] -> [2, 2, 1]
  auto out = RunSingleNode("Transpose", 13, {Data(Tensor::FromVector<uint8_t>({1, 2, 3, 4}, {1, 2, 2}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 2, 1}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 3, 2, 4}));
  Attributes a;
  a.Set("perm", std::vector<int64_t>{0, 0, 1});
  auto bad = RunSingleNode("Transpose", 13, {Data(Tensor::FromVector<uint8_t>({1, 2, 3, 4}, {1, 2, 2}))}, a);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "not a permutation")) << bad.status().message();
}

// Every permutation of ranks 2 to 4, on odd sizes around the 16-element tiles, for each element
// size, against y[out index] = x[the input index it names] computed here.
TEST(Transpose, EveryPermutationOfEveryElementSizeMovesTheRightElements) {
  const std::vector<Dims> shapes = {{37, 21}, {3, 17, 33}, {2, 5, 19, 7}, {1, 1, 40, 3}};
  for (DataType t : {DataType::kUInt8, DataType::kFloat16, DataType::kFloat32, DataType::kInt64}) {
    for (const Dims& dims : shapes) {
      std::vector<int64_t> perm(dims.size());
      for (size_t i = 0; i < perm.size(); ++i) perm[i] = int64_t(i);
      do {
        Tensor x = Tensor::Allocate(t, dims).value();
        const size_t es = DataTypeSize(t);
        uint8_t* px = static_cast<uint8_t*>(x.raw());
        for (size_t i = 0; i < size_t(x.numel()) * es; ++i) px[i] = uint8_t(i * 131 + i / 7);
        Attributes a;
        a.Set("perm", perm);
        auto out = RunSingleNode("Transpose", 13, {Data(x.Clone())}, a);
        ASSERT_TRUE(out.ok()) << out.status().message();
        const Tensor& y = (*out)[0];
        const size_t r = dims.size();
        std::vector<int64_t> in_strides(r, 1), idx(r, 0);
        for (size_t d = r - 1; d-- > 0;) in_strides[d] = in_strides[d + 1] * dims[d + 1];
        Dims out_dims(r);
        for (size_t d = 0; d < r; ++d) out_dims[d] = dims[size_t(perm[d])];
        ASSERT_EQ(y.dims(), out_dims);
        const uint8_t* py = static_cast<const uint8_t*>(y.raw());
        for (int64_t e = 0; e < y.numel(); ++e) {
          int64_t src = 0;
          for (size_t d = 0; d < r; ++d) src += idx[d] * in_strides[size_t(perm[d])];
          ASSERT_EQ(std::memcmp(py + size_t(e) * es, px + size_t(src) * es, es), 0)
              << DimsToString(dims) << " perm " << DimsToString(perm) << " element " << e;
          for (size_t d = r; d-- > 0;) {
            if (++idx[d] < out_dims[d]) break;
            idx[d] = 0;
          }
        }
      } while (std::next_permutation(perm.begin(), perm.end()));
    }
  }
}

}  // namespace
}  // namespace qrt
