// com.microsoft MatMulNBits: a product worked by hand and the refusals of what qrt does not
// take. Its bits against ONNX Runtime over block sizes, zero points, bias and accuracy levels
// are in tests/data/audit (matmul_nbits_*).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/kernels/kernel_test_util.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct NbitsCase {
  Tensor a = Tensor::FromVector<float>(std::vector<float>(16, 1.f), {1, 16});
  Attributes attrs;
  Tensor b = Tensor::FromVector<uint8_t>(std::vector<uint8_t>(16, 0x98), {2, 1, 8});  // codes 8, 9
  Tensor scales = Tensor::FromVector<float>({0.5f, 2.f}, {2});
  std::vector<std::string> extra;  // inputs after scales
  std::vector<std::pair<std::string, Tensor>> extra_inits;
};

Attributes NbitsAttrs(int64_t k, int64_t n, int64_t block) {
  Attributes a;
  a.Set("K", k);
  a.Set("N", n);
  a.Set("bits", int64_t(4));
  a.Set("block_size", block);
  return a;
}

StatusOr<Tensor> RunNbits(const NbitsCase& c, Isa isa = kIsaAuto, int threads = 1) {
  ModelBuilder b("nbits", {{"", 21}, {"com.microsoft", 1}}, false);
  QRT_RETURN_IF_ERROR(b.AddInput("a", DataType::kFloat32, ShapeFromDims(c.a.dims())));
  QRT_RETURN_IF_ERROR(b.AddInitializer("b", c.b.Clone()));
  QRT_RETURN_IF_ERROR(b.AddInitializer("s", c.scales.Clone()));
  for (const auto& [name, t] : c.extra_inits) QRT_RETURN_IF_ERROR(b.AddInitializer(name, t.Clone()));
  NodeSpec n;
  n.name = "mm";
  n.op_type = "MatMulNBits";
  n.domain = "com.microsoft";
  n.inputs = {"a", "b", "s"};
  n.inputs.insert(n.inputs.end(), c.extra.begin(), c.extra.end());
  n.outputs = {"y"};
  n.attrs = c.attrs;
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(n)));
  QRT_RETURN_IF_ERROR(b.AddOutput("y", DataType::kUndefined, std::nullopt));
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  QRT_ASSIGN_OR_RETURN(std::vector<Tensor> y, testing::RunGraph(std::move(g), {c.a}, "none", isa, threads));
  return std::move(y[0]);
}

// Every byte 0x98 holds codes 8 (even k) and 9 (odd k); with the default zero point 8 the
// weights are 0 and 1 times the scale: column 0 sums 8 * 0.5, column 1 8 * 2; bias adds.
TEST(MatMulNBits, WeightsAreCodesMinusEightTimesTheScale) {
  for (int64_t accuracy : {0, 4}) {
    NbitsCase c;
    c.attrs = NbitsAttrs(16, 2, 16);
    c.attrs.Set("accuracy_level", accuracy);
    c.extra = {"", "", "bias"};
    c.extra_inits = {{"bias", Tensor::FromVector<float>({1.f, -1.f}, {2})}};
    auto y = RunNbits(c);
    ASSERT_TRUE(y.ok()) << y.status().message();
    ASSERT_EQ(y->dims(), (Dims{1, 2}));
    EXPECT_EQ(y->data<float>()[0], 5.f) << accuracy;
    EXPECT_EQ(y->data<float>()[1], 15.f) << accuracy;
  }
}

// accuracy_level 4 (the int8 path) through the op at every tier this CPU has: the bytes of the
// scalar tier's reference kernel, for 3-D A (5 rows, the last one unpaired), zero points and bias.
TEST(MatMulNBits, Int8PathGivesTheSameBytesAtEveryTier) {
  const int64_t k = 200, n = 7, block = 32, blocks = (k + block - 1) / block;
  std::vector<float> a(static_cast<size_t>(5 * k)), scales(static_cast<size_t>(n * blocks)),
      bias(static_cast<size_t>(n));
  std::vector<uint8_t> codes(static_cast<size_t>(n * blocks * block / 2)),
      zps(static_cast<size_t>(n * ((blocks + 1) / 2)));
  uint32_t x = 12345;
  auto next = [&x] { return x = x * 1664525u + 1013904223u; };
  for (float& v : a) v = float(int32_t(next()) >> 8) * 1e-5f;
  for (float& v : scales) v = float(next() % 1000 + 1) * 1e-3f;
  for (float& v : bias) v = float(int32_t(next()) >> 16) * 1e-3f;
  for (uint8_t& v : codes) v = uint8_t(next() >> 24);
  for (uint8_t& v : zps) v = uint8_t(next() >> 24);
  NbitsCase c;
  c.a = Tensor::FromVector<float>(a, {1, 5, k});
  c.b = Tensor::FromVector<uint8_t>(codes, {n, blocks, block / 2});
  c.scales = Tensor::FromVector<float>(scales, {n * blocks});
  c.attrs = NbitsAttrs(k, n, block);
  c.attrs.Set("accuracy_level", int64_t(4));
  c.extra = {"z", "", "bias"};
  c.extra_inits = {{"z", Tensor::FromVector<uint8_t>(zps, {n * ((blocks + 1) / 2)})},
                   {"bias", Tensor::FromVector<float>(bias, {n})}};
  auto want = RunNbits(c, Isa::kScalar);
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (Isa isa : TiersThisCpuHas()) {
    auto got = RunNbits(c, isa);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->dims(), (Dims{1, 5, n}));
    EXPECT_EQ(std::memcmp(got->data<float>(), want->data<float>(), size_t(5 * n) * sizeof(float)), 0) << IsaName(isa);
  }
}

// Two threads split the float path's columns and the int8 path's rows (at even rows): the same
// bytes as one thread, for one row, pairs and an odd last row, at every tier, in each ORT order.
TEST(MatMulNBits, TwoThreadsGiveTheBytesOfOne) {
  const int64_t k = 256, n = 600, block = 32, blocks = k / block;
  uint32_t x = 777;
  auto next = [&x] { return x = x * 1664525u + 1013904223u; };
  std::vector<float> scales(static_cast<size_t>(n * blocks)), bias(static_cast<size_t>(n));
  std::vector<uint8_t> codes(static_cast<size_t>(n * blocks * block / 2)), zps(static_cast<size_t>(n * blocks / 2));
  for (float& v : scales) v = float(next() % 1000 + 1) * 1e-3f;
  for (float& v : bias) v = float(int32_t(next()) >> 16) * 1e-3f;
  for (uint8_t& v : codes) v = uint8_t(next() >> 24);
  for (uint8_t& v : zps) v = uint8_t(next() >> 24);
  for (const char* ort_cpu : {"avx512", "avx512-novnni", "avx2"}) {
    const testing::ScopedEnv order("QRT_ORT_CPU", ort_cpu);
    for (int64_t accuracy : {0, 4}) {
      for (int64_t m : {1, 2, 3, 5, 8}) {
        std::vector<float> a(static_cast<size_t>(m * k));
        for (float& v : a) v = float(int32_t(next()) >> 8) * 1e-5f;
        NbitsCase c;
        c.a = Tensor::FromVector<float>(a, {m, k});
        c.b = Tensor::FromVector<uint8_t>(codes, {n, blocks, block / 2});
        c.scales = Tensor::FromVector<float>(scales, {n * blocks});
        c.attrs = NbitsAttrs(k, n, block);
        c.attrs.Set("accuracy_level", accuracy);
        c.extra = {"z", "", "bias"};
        c.extra_inits = {{"z", Tensor::FromVector<uint8_t>(zps, {n * blocks / 2})},
                         {"bias", Tensor::FromVector<float>(bias, {n})}};
        for (Isa isa : TiersThisCpuHas()) {
          auto one = RunNbits(c, isa, 1), two = RunNbits(c, isa, 2);
          ASSERT_TRUE(one.ok() && two.ok());
          EXPECT_EQ(testing::CompareBits(*two, *one), "")
              << ort_cpu << " accuracy " << accuracy << " m " << m << " " << IsaName(isa);
        }
      }
    }
  }
}

TEST(MatMulNBits, RefusesWhatItDoesNotTake) {
  struct Bad {
    NbitsCase c;
    std::string says;
  };
  std::vector<Bad> cases(6);
  for (Bad& b : cases) b.c.attrs = NbitsAttrs(16, 2, 16);
  cases[0].c.attrs.Set("bits", int64_t(8));
  cases[0].says = "bits 8";
  cases[1].c.attrs.Set("block_size", int64_t(24));
  cases[1].says = "block_size 24";
  cases[2].c.a = Tensor::FromVector<float>(std::vector<float>(8, 1.f), {1, 8});
  cases[2].says = "must end in K";
  cases[3].c.scales = Tensor::FromVector<float>({1.f}, {1});
  cases[3].says = "scales";
  cases[4].c.extra = {"", "g"};
  cases[4].c.extra_inits = {{"g", Tensor::FromVector<int32_t>(std::vector<int32_t>(16, 0), {16})}};
  cases[4].says = "g_idx";
  cases[5].c.extra = {"z"};
  cases[5].c.extra_inits = {{"z", Tensor::FromVector<float>({8.f, 8.f}, {2})}};
  cases[5].says = "zero points of float32";
  for (const Bad& b : cases) {
    auto y = RunNbits(b.c);
    ASSERT_FALSE(y.ok()) << b.says;
    EXPECT_NE(y.status().message().find(b.says), std::string::npos) << y.status().message();
  }
}

}  // namespace
}  // namespace qrt
