// MatMul, Gemm, MatMulInteger and QLinearMatMul: goldens for the reference kernels and
// the fast paths against the reference (Isa::kScalar plans run only the reference):
// oneDNN f32 within a summation-order tolerance, integer paths bit-exactly.
#include <gtest/gtest.h>

#include "tests/ops/linalg_test_util.h"

namespace qrt {
namespace {

using testing::linalg::Const;
using testing::linalg::NodeInput;
using testing::linalg::RandomTensor;
using testing::linalg::Runtime;
using testing::linalg::Scalar;

TEST(MatMulGolden, VectorOperandsAndBroadcast) {
  // [2] x [2,3] -> [3]
  Tensor a = Tensor::FromVector<float>({1, 2}, {2});
  Tensor b = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  for (Isa isa : TiersThisCpuHas()) {
    auto y = testing::linalg::RunNode("MatMul", {Runtime(a), Runtime(b)}, {}, isa);
    ASSERT_TRUE(y.ok()) << y.status().message();
    EXPECT_EQ(y->dims(), (Dims{3}));
    EXPECT_EQ(y->data<float>()[0], 9.f);
    EXPECT_EQ(y->data<float>()[2], 15.f);
  }
}

TEST(MatMulGolden, QLinearMatMulRoundsBeforeAddingTheZeroPoint) {
  // acc = 5 * 1 = 5, multiplier 0.5: rint(2.5) + 1 = 3, as ONNX Runtime gives (onnx's numpy
  // reference adds first: rint(3.5) = 4).
  Tensor a = Tensor::FromVector<uint8_t>({5}, {1, 1});
  Tensor b = Tensor::FromVector<int8_t>({1}, {1, 1});
  auto y = testing::linalg::RunNode(
      "QLinearMatMul",
      {Runtime(a), Const(Scalar<float>(0.5f)), Const(Scalar<uint8_t>(0)), Const(b), Const(Scalar<float>(1.f)),
       Const(Scalar<int8_t>(0)), Const(Scalar<float>(1.f)), Const(Scalar<uint8_t>(1))},
      {}, Isa::kScalar);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(y->data<uint8_t>()[0], 3);
}

struct MatMulCase {
  const char* name;
  Dims a, b;
};

const MatMulCase kMatMulCases[] = {
    {"2d", {7, 33}, {33, 9}},
    {"batch_a_only", {2, 3, 5, 16}, {16, 4}},
    {"batch_both", {3, 5, 16}, {3, 16, 4}},
    {"batch_broadcast", {2, 1, 5, 16}, {1, 3, 16, 4}},
    {"vector_left", {16}, {2, 16, 4}},
    {"vector_right", {2, 5, 16}, {16}},
    {"long_k", {4, 300}, {300, 6}},
    {"odd_k_three_panels", {3, 17}, {17, 40}},  // the integer GEMM's half pair and panel tail
    {"many_rows", {2, 37, 8}, {8, 5}},          // rows past a tile, A's batch folded into M
    {"k_of_one", {5, 1}, {1, 7}},
};

class MatMulPaths : public ::testing::TestWithParam<MatMulCase> {};

TEST_P(MatMulPaths, FloatMatchesReference) {
  const MatMulCase& c = GetParam();
  std::mt19937 rng(3);
  Tensor a = RandomTensor(DataType::kFloat32, c.a, -1, 1, rng);
  Tensor b = RandomTensor(DataType::kFloat32, c.b, -1, 1, rng);
  for (bool b_const : {false, true}) {
    std::vector<NodeInput> in = {Runtime(a), b_const ? Const(b) : Runtime(b)};
    auto want = testing::linalg::RunNode("MatMul", in, {}, Isa::kScalar);
    auto got = testing::linalg::RunNode("MatMul", in, {}, kIsaAuto);
    ASSERT_TRUE(want.ok() && got.ok()) << c.name;
    // f32 summation order only: |err| <~ K * eps * sum|a*b|.
    EXPECT_EQ(testing::CompareTensors(*got, *want, 1e-4, 1e-5), "") << c.name;
  }
}

TEST_P(MatMulPaths, IntegerBitExact) {
  const MatMulCase& c = GetParam();
  std::mt19937 rng(4);
  for (DataType at : {DataType::kUInt8, DataType::kInt8}) {
    for (DataType bt : {DataType::kInt8, DataType::kUInt8}) {
      for (bool b_const : {true, false}) {
        const bool au = at == DataType::kUInt8, bu = bt == DataType::kUInt8;
        Tensor a = RandomTensor(at, c.a, au ? 0 : -128, au ? 255 : 127, rng);
        Tensor b = RandomTensor(bt, c.b, bu ? 0 : -128, bu ? 255 : 127, rng);
        const bool b_vec = c.b.size() == 1;
        const int64_t n = b_vec ? 1 : c.b.back();
        Dims pd = b_vec ? Dims{} : Dims{n};
        Tensor bz = RandomTensor(bt, pd, bu ? 100 : -10, bu ? 150 : 10, rng);
        Tensor az = au ? Scalar<uint8_t>(130) : Tensor(Scalar<int8_t>(-7));
        NodeInput bin = b_const ? Const(b) : Runtime(b);
        const std::string label = std::string(c.name) + " a " + std::string(DataTypeName(at)) + " b " +
                                  std::string(DataTypeName(bt)) + (b_const ? " const" : " runtime");
        std::vector<NodeInput> mi = {Runtime(a), bin, Const(az), Const(bz)};
        auto want = testing::linalg::RunNode("MatMulInteger", mi, {}, Isa::kScalar);
        ASSERT_TRUE(want.ok()) << label << ": " << want.status().message();
        for (Isa isa : TiersThisCpuHas()) {
          auto got = testing::linalg::RunNode("MatMulInteger", mi, {}, isa);
          ASSERT_TRUE(got.ok()) << label << ": " << got.status().message();
          EXPECT_EQ(testing::CompareBits(*got, *want), "") << label << " at " << IsaName(isa);
        }

        Tensor bs = RandomTensor(DataType::kFloat32, pd, 0.001, 0.02, rng);
        std::vector<NodeInput> qi = {Runtime(a),
                                     Const(Scalar<float>(0.03f)),
                                     Const(az),
                                     bin,
                                     Const(bs),
                                     Const(bz),
                                     Const(Scalar<float>(0.5f)),
                                     Const(Scalar<int8_t>(3))};
        auto qwant = testing::linalg::RunNode("QLinearMatMul", qi, {}, Isa::kScalar);
        ASSERT_TRUE(qwant.ok()) << label << ": " << qwant.status().message();
        for (Isa isa : TiersThisCpuHas()) {
          auto qgot = testing::linalg::RunNode("QLinearMatMul", qi, {}, isa);
          ASSERT_TRUE(qgot.ok()) << label << ": " << qgot.status().message();
          EXPECT_EQ(testing::CompareBits(*qgot, *qwant), "") << label << " at " << IsaName(isa);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MatMulPaths, ::testing::ValuesIn(kMatMulCases),
                         [](const ::testing::TestParamInfo<MatMulCase>& i) { return std::string(i.param.name); });

TEST(GemmPaths, AttributesAndBroadcastC) {
  std::mt19937 rng(8);
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      for (Dims cd : {Dims{}, Dims{6}, Dims{5, 1}, Dims{5, 6}}) {
        const int64_t m = 5, n = 6, k = 11;
        Tensor a = RandomTensor(DataType::kFloat32, ta ? Dims{k, m} : Dims{m, k}, -1, 1, rng);
        Tensor b = RandomTensor(DataType::kFloat32, tb ? Dims{n, k} : Dims{k, n}, -1, 1, rng);
        Tensor c = RandomTensor(DataType::kFloat32, cd, -1, 1, rng);
        Attributes attrs;
        attrs.Set("transA", int64_t(ta));
        attrs.Set("transB", int64_t(tb));
        attrs.Set("alpha", 0.75f);
        attrs.Set("beta", -1.5f);
        std::vector<NodeInput> in = {Runtime(a), Const(b), Runtime(c)};
        auto want = testing::linalg::RunNode("Gemm", in, attrs, Isa::kScalar);
        auto got = testing::linalg::RunNode("Gemm", in, attrs, kIsaAuto);
        ASSERT_TRUE(want.ok()) << want.status().message();
        ASSERT_TRUE(got.ok()) << got.status().message();
        EXPECT_EQ(testing::CompareTensors(*got, *want, 1e-5, 1e-6), "") << ta << tb << " C " << DimsToString(cd);
      }
    }
  }
}

}  // namespace
}  // namespace qrt

namespace qrt {
namespace {

// A constant B given transposed (transB = 1), which the blocked order reads transposed once at
// compile time, gives the bits of the same B given untransposed, at every tier, with one row
// (ORT's packed order) and several.
TEST(GemmPaths, ConstantTransposedBEqualsTheUntransposedConstant) {
  std::mt19937 rng(9);
  for (int64_t m : {1, 4}) {
    const int64_t n = 37, k = 300;
    Tensor a = RandomTensor(DataType::kFloat32, Dims{m, k}, -1, 1, rng);
    Tensor bt = RandomTensor(DataType::kFloat32, Dims{n, k}, -1, 1, rng);
    Tensor b = Tensor::Allocate(DataType::kFloat32, Dims{k, n}).value();
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p) b.data<float>()[p * n + j] = bt.data<float>()[j * k + p];
    }
    Attributes transposed, plain;
    transposed.Set("transB", int64_t(1));
    for (Isa isa : TiersThisCpuHas()) {
      auto want = testing::linalg::RunNode("Gemm", {Runtime(a), Const(b)}, plain, isa);
      auto got = testing::linalg::RunNode("Gemm", {Runtime(a), Const(bt)}, transposed, isa);
      ASSERT_TRUE(want.ok() && got.ok());
      EXPECT_EQ(testing::CompareBits(*got, *want), "") << "m " << m << " at " << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace qrt
