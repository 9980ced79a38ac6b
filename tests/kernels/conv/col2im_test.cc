// col2im kernels (ops/kernels/conv/col2im.h): the row kernel adds the reference's terms in
// the reference's order, so the images are bit-identical, on 1-D to 3-D geometries with
// strides, dilations, pads larger than the kernel reach, and outputs cut short or extended.
#include "ops/kernels/conv/col2im.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;

Col2ImGeometry Geometry(std::vector<int64_t> in, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                        std::vector<int64_t> dilation, std::vector<int64_t> pad, std::vector<int64_t> out) {
  Col2ImGeometry g;
  g.rank = int(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    g.in[d] = in[d];
    g.kernel[d] = kernel[d];
    g.stride[d] = stride[d];
    g.dilation[d] = dilation[d];
    g.pad_begin[d] = pad[d];
    g.out[d] = out[d];
  }
  return g;
}

void ExpectSame(const Col2ImGeometry& g, int64_t channels, uint32_t seed) {
  int64_t kernel_size = 1, in_size = 1, out_size = 1;
  for (int d = 0; d < g.rank; ++d) kernel_size *= g.kernel[d], in_size *= g.in[d], out_size *= g.out[d];
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  std::vector<float> col(static_cast<size_t>(channels * kernel_size * in_size));
  for (float& v : col) v = normal(rng) * (rng() % 4 == 0 ? 1e6f : 1.f);  // mixed magnitudes: order shows
  std::vector<float> start(static_cast<size_t>(channels * out_size));
  for (float& v : start) v = normal(rng);
  std::vector<float> want = start, got = start;
  ref::Col2Im(g, channels, col.data(), want.data());
  Col2ImByRows(g, channels, col.data(), got.data());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(got[i]), Bits(want[i])) << "element " << i;
}

TEST(Col2ImKernel, RowsEqualTheReference) {
  uint32_t seed = ::qrt::testing::TestSeed();
  // 2-D: stride 2 with output_padding, stride 1, dilated, pads beyond the kernel's reach.
  ExpectSame(Geometry({5, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {10, 14}), 3, seed++);
  ExpectSame(Geometry({6, 6}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {6, 6}), 2, seed++);
  ExpectSame(Geometry({4, 9}, {2, 3}, {3, 2}, {2, 3}, {0, 2}, {12, 20}), 2, seed++);
  ExpectSame(Geometry({3, 3}, {2, 2}, {1, 1}, {1, 1}, {4, 4}, {2, 2}), 1, seed++);
  ExpectSame(Geometry({4, 4}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {12, 13}), 2, seed++);  // extended with zeros
  // 1-D and 3-D.
  ExpectSame(Geometry({17}, {5}, {3}, {2}, {2}, {55}), 4, seed++);
  ExpectSame(Geometry({3, 4, 5}, {2, 3, 2}, {2, 1, 2}, {1, 2, 1}, {1, 1, 0}, {6, 8, 10}), 2, seed++);
  // Empty input and empty output.
  ExpectSame(Geometry({0, 4}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 9}), 1, seed++);
  ExpectSame(Geometry({4, 4}, {3, 3}, {2, 2}, {1, 1}, {0, 0}, {0, 9}), 1, seed++);
}

TEST(Col2ImKernel, RandomGeometries) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 7);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + int(rng() % 3);
    std::vector<int64_t> in, kernel, stride, dilation, pad, out;
    for (int d = 0; d < rank; ++d) {
      in.push_back(1 + rng() % 6);
      kernel.push_back(1 + rng() % 4);
      stride.push_back(1 + rng() % 3);
      dilation.push_back(1 + rng() % 2);
      pad.push_back(rng() % 4);
      const int64_t full = stride.back() * (in.back() - 1) + (kernel.back() - 1) * dilation.back() + 1;
      out.push_back(std::max<int64_t>(0, full - pad.back() - int64_t(rng() % 4) + 1));
    }
    ExpectSame(Geometry(in, kernel, stride, dilation, pad, out), 1 + rng() % 3, uint32_t(trial));
  }
}

}  // namespace
}  // namespace qrt
