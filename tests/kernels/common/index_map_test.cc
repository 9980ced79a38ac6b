#include "ops/kernels/common/index_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace qrt {
namespace {

// The definition: output element o is the input at the sum of its axes' table entries, or the
// fill where any entry is kIndexMapFill.
template <class T>
std::vector<T> Defined(const IndexMap& map, const std::vector<T>& in, T fill) {
  const int64_t total = ElementCount(map.out_dims);
  std::vector<T> out(static_cast<size_t>(total));
  const size_t r = map.out_dims.size();
  std::vector<int64_t> idx(r, 0);
  for (int64_t o = 0; o < total; ++o) {
    int64_t off = 0;
    bool filled = false;
    for (size_t d = 0; d < r; ++d) {
      const int64_t e = map.tables[d][size_t(idx[d])];
      filled |= e == kIndexMapFill;
      off += filled ? 0 : e;
    }
    out[size_t(o)] = filled ? fill : in[size_t(off)];
    for (size_t d = r; d-- > 0;) {
      if (++idx[d] < map.out_dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// Nearest upscaling of an [c, h, w] tensor by integer factors (fy, fx), the rows and columns of
// the last `fill_rows` output rows and `fill_cols` columns filled instead.
IndexMap Upscale(int64_t c, int64_t h, int64_t w, int64_t fy, int64_t fx, int64_t fill_rows = 0,
                 int64_t fill_cols = 0) {
  IndexMap map;
  map.out_dims = {c, h * fy + fill_rows, w * fx + fill_cols};
  map.tables.resize(3);
  for (int64_t i = 0; i < c; ++i) map.tables[0].push_back(i * h * w);
  for (int64_t i = 0; i < h * fy; ++i) map.tables[1].push_back(i / fy * w);
  for (int64_t i = 0; i < fill_rows; ++i) map.tables[1].push_back(kIndexMapFill);
  for (int64_t i = 0; i < w * fx; ++i) map.tables[2].push_back(i / fx);
  for (int64_t i = 0; i < fill_cols; ++i) map.tables[2].push_back(kIndexMapFill);
  FinishIndexMap(map);
  return map;
}

template <class T>
void ExpectDefined(const IndexMap& map, int64_t in_elements) {
  std::vector<T> in(static_cast<size_t>(in_elements));
  std::mt19937 rng(7);
  for (T& v : in) v = T(rng());
  const T fill = T(0x5A);
  std::vector<T> out(size_t(ElementCount(map.out_dims)), T(0x11));
  RunIndexMap(map, sizeof(T), in.data(), out.data(), &fill);
  EXPECT_EQ(out, Defined(map, in, fill));
}

TEST(IndexMap, FinishFindsTheInnerForm) {
  EXPECT_TRUE(Upscale(2, 3, 5, 2, 1).inner_contiguous);
  EXPECT_EQ(Upscale(2, 3, 5, 2, 1).inner_repeat, 0);
  EXPECT_EQ(Upscale(2, 3, 5, 1, 2).inner_repeat, 2);
  EXPECT_FALSE(Upscale(2, 3, 5, 1, 2).inner_contiguous);
  EXPECT_EQ(Upscale(2, 3, 5, 3, 3).inner_repeat, 3);
  EXPECT_EQ(Upscale(1, 1, 1, 1, 4).inner_repeat, 4);        // one element broadcast along the row
  EXPECT_EQ(Upscale(2, 3, 5, 1, 2, 0, 1).inner_repeat, 0);  // a fill: the general loop
  IndexMap cut;  // 0 + o / 2 with the last run cut short (an odd width): a repeat
  cut.out_dims = {3};
  cut.tables = {{0, 0, 1}};
  FinishIndexMap(cut);
  EXPECT_EQ(cut.inner_repeat, 2);
  IndexMap uneven;  // runs of 2, then 1, then 1: not a repeat
  uneven.out_dims = {4};
  uneven.tables = {{0, 0, 1, 2}};
  FinishIndexMap(uneven);
  EXPECT_EQ(uneven.inner_repeat, 0);
  EXPECT_FALSE(uneven.inner_contiguous);
  IndexMap skip;  // 0, 0, 2, 2: a repeat of a strided row is not 0 + o / 2
  skip.out_dims = {4};
  skip.tables = {{0, 0, 2, 2}};
  FinishIndexMap(skip);
  EXPECT_EQ(skip.inner_repeat, 0);
}

TEST(IndexMap, UpscalingEqualsTheDefinition) {
  for (int64_t fy : {1, 2, 3}) {
    for (int64_t fx : {1, 2, 3, 4}) {
      for (int64_t w : {1, 5, 7, 16}) {
        SCOPED_TRACE(testing::Message() << "fy " << fy << " fx " << fx << " w " << w);
        ExpectDefined<float>(Upscale(3, 4, w, fy, fx), 3 * 4 * w);
        ExpectDefined<uint8_t>(Upscale(3, 4, w, fy, fx), 3 * 4 * w);
        ExpectDefined<uint16_t>(Upscale(2, 3, w, fy, fx), 2 * 3 * w);
        ExpectDefined<uint64_t>(Upscale(2, 3, w, fy, fx), 2 * 3 * w);
      }
    }
  }
}

TEST(IndexMap, FilledRowsAndColumnsEqualTheDefinition) {
  ExpectDefined<float>(Upscale(2, 3, 5, 2, 2, 2, 0), 30);  // filled rows repeat as filled rows
  ExpectDefined<float>(Upscale(2, 3, 5, 2, 2, 0, 3), 30);
  ExpectDefined<uint8_t>(Upscale(2, 3, 5, 2, 2, 1, 1), 30);
}

TEST(IndexMap, ARowRepeatedAcrossAnOuterAxisIsCopied) {
  // A broadcast middle axis (every entry 0): each row the same source row as the one before.
  IndexMap map;
  map.out_dims = {2, 4, 6};
  map.tables = {{0, 6}, {0, 0, 0, 0}, {5, 4, 3, 2, 1, 0}};
  FinishIndexMap(map);
  ExpectDefined<float>(map, 12);
  // The first row of a new outer index whose base equals the last row's: still a copy.
  IndexMap same;
  same.out_dims = {2, 2, 3};
  same.tables = {{0, 0}, {0, 0}, {0, 1, 2}};
  FinishIndexMap(same);
  ExpectDefined<int32_t>(same, 3);
}

}  // namespace
}  // namespace qrt
