// QuantizeLinear / DequantizeLinear split across threads: per tensor and per axis, with
// the AVX2 and the reference kernels, the bits equal one thread's.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "tests/ops/single_node.h"

namespace qrt::testing {
namespace {

Tensor RandomFloats(const Dims& dims, std::mt19937& rng) {
  Tensor t = Tensor::Allocate(DataType::kFloat32, dims).value();
  std::uniform_real_distribution<float> u(-3.f, 3.f);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

TEST(QuantizeLinearThreads, SplitRunsAreBitIdentical) {
  std::mt19937 rng(11);
  struct Case {
    Dims x;
    Dims scale;
    int64_t axis;
  };
  // One 600001-element run; and 12 per-axis runs of 70001 elements.
  const Case cases[] = {{{600001}, {}, 0}, {{4, 3, 70001}, {3}, 1}};
  for (const Case& c : cases) {
    const Tensor x = RandomFloats(c.x, rng);
    Tensor scale = Tensor::Allocate(DataType::kFloat32, c.scale).value();
    Tensor zp = Tensor::Allocate(DataType::kUInt8, c.scale).value();
    for (int64_t i = 0; i < scale.numel(); ++i) {
      scale.data<float>()[i] = 0.01f + 0.007f * float(i);
      zp.data<uint8_t>()[i] = uint8_t(100 + 20 * i);
    }
    for (Isa isa : TiersThisCpuHas()) {
      const Attributes attrs = AxisAttr(c.axis);
      auto q1 = RunSingleNode("QuantizeLinear", 13, {Data(x), Known(scale), Known(zp)}, attrs, 1, isa, 1).value();
      for (int threads : {2, 3}) {
        auto qn =
            RunSingleNode("QuantizeLinear", 13, {Data(x), Known(scale), Known(zp)}, attrs, 1, isa, threads).value();
        ASSERT_EQ(std::memcmp(q1[0].raw(), qn[0].raw(), size_t(x.numel())), 0) << "threads " << threads;
        auto d1 =
            RunSingleNode("DequantizeLinear", 13, {Data(q1[0]), Known(scale), Known(zp)}, attrs, 1, isa, 1).value();
        auto dn = RunSingleNode("DequantizeLinear", 13, {Data(q1[0]), Known(scale), Known(zp)}, attrs, 1, isa, threads)
                      .value();
        ASSERT_EQ(std::memcmp(d1[0].raw(), dn[0].raw(), size_t(x.numel()) * 4), 0) << "threads " << threads;
      }
    }
  }
}

}  // namespace
}  // namespace qrt::testing
