// The ops whose output shapes depend on data (NonZero, Compress, Unique, NonMaxSuppression)
// beyond the node tests: inputs large enough that the plan cannot be specialised on them at
// compile time (the model then plans each run on its inputs' values), runs of one session with
// different values and so different shapes, empty results, and bad inputs refused.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "loaders/model_builder.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;

std::vector<int64_t> Ints(const Tensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.numel());
}

// x (float [n], a graph input) -> NonZero -> y, compiled once.
std::shared_ptr<const CompiledModel> NonZeroModel() {
  ModelBuilder b("nz", {{"", 13}}, false);
  EXPECT_TRUE(b.AddInput("x", DataType::kFloat32, std::nullopt).ok());
  NodeSpec n;
  n.name = "nz", n.op_type = "NonZero", n.inputs = {"x"}, n.outputs = {"y"};
  EXPECT_TRUE(b.AddNode(std::move(n)).ok());
  EXPECT_TRUE(b.AddOutput("y", DataType::kUndefined, std::nullopt).ok());
  auto g = b.Finish();
  EXPECT_TRUE(g.ok());
  auto m = Compile(std::move(*g), {});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return *m;
}

TEST(DataDependent, NonZeroOfLargeInputsPlansEachRunOnItsValues) {
  const auto model = NonZeroModel();
  Session session(model);
  for (int64_t every : {7, 1000, 1}) {  // 143 hits, 1 hit, all 1000
    std::vector<float> x(1000, 0.f);
    std::vector<int64_t> want;
    for (int64_t i = 0; i < 1000; i += every) x[size_t(i)] = i % 2 ? -0.5f : 2.f, want.push_back(i);
    std::vector<Tensor> out;
    ASSERT_TRUE(session.Run({Tensor::FromVector<float>(x, {1000})}, &out).ok());
    ASSERT_EQ(out[0].dims(), (Dims{1, int64_t(want.size())})) << every;
    EXPECT_EQ(Ints(out[0]), want);
  }
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({Tensor::FromVector<float>(std::vector<float>(500, 0.f), {500})}, &out).ok());
  EXPECT_EQ(out[0].dims(), (Dims{1, 0}));  // nothing non-zero: an empty result
}

TEST(DataDependent, NonZeroOfNegativeZeroAndNaN) {
  const float nan = std::nanf("");
  auto y = RunSingleNode("NonZero", 13, {Data(Tensor::FromVector<float>({-0.f, nan, 0.f, 3.f}, {2, 2}))}, {});
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(Ints((*y)[0]), (std::vector<int64_t>{0, 1, 1, 1}));  // rows, then columns
}

TEST(DataDependent, CompressAlongAnAxisAndFlattened) {
  const Tensor x = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, {3, 2});
  Attributes axis0;
  axis0.Set("axis", int64_t(-2));
  auto rows = RunSingleNode("Compress", 11, {Data(x), Data(Tensor::FromVector<bool>({false, true}, {2}))}, axis0);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ((*rows)[0].dims(), (Dims{1, 2}));  // condition shorter than the axis: the rest dropped
  EXPECT_EQ((*rows)[0].data<int32_t>()[0], 3);
  auto flat = RunSingleNode("Compress", 11, {Data(x), Data(Tensor::FromVector<bool>({true, false, true}, {3}))}, {});
  ASSERT_TRUE(flat.ok());
  EXPECT_EQ((*flat)[0].dims(), (Dims{2}));
  EXPECT_EQ((*flat)[0].data<int32_t>()[1], 3);
  auto past =
      RunSingleNode("Compress", 11, {Data(x), Data(Tensor::FromVector<bool>({false, false, false, true}, {4}))}, axis0);
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(testing::Contains(past.status().message(), "past the axis")) << past.status().message();
}

TEST(DataDependent, UniqueSortedAndInFirstOccurrenceOrder) {
  const Tensor x = Tensor::FromVector<float>({2.f, 1.f, 1.f, 3.f, 4.f, 3.f}, {6});
  for (int64_t sorted : {1, 0}) {
    Attributes a;
    a.Set("sorted", sorted);
    auto y = RunSingleNode("Unique", 11, {Data(x)}, a, 4);
    ASSERT_TRUE(y.ok()) << y.status().message();
    const std::vector<float> values((*y)[0].data<float>(), (*y)[0].data<float>() + 4);
    EXPECT_EQ(values, sorted ? (std::vector<float>{1, 2, 3, 4}) : (std::vector<float>{2, 1, 3, 4}));
    EXPECT_EQ(Ints((*y)[1]), sorted ? (std::vector<int64_t>{1, 0, 3, 4}) : (std::vector<int64_t>{0, 1, 3, 4}));
    EXPECT_EQ(Ints((*y)[2]),
              sorted ? (std::vector<int64_t>{1, 0, 0, 2, 3, 2}) : (std::vector<int64_t>{0, 1, 1, 2, 3, 2}));
    EXPECT_EQ(Ints((*y)[3]), sorted ? (std::vector<int64_t>{2, 1, 2, 1}) : (std::vector<int64_t>{1, 2, 2, 1}));
  }
  // Rows as the slices: [[1, 0], [0, 5], [1, 0]] -> [[0, 5], [1, 0]].
  auto rows = RunSingleNode("Unique", 11, {Data(Tensor::FromVector<int64_t>({1, 0, 0, 5, 1, 0}, {3, 2}))},
                            testing::AxisAttr(0), 4);
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  EXPECT_EQ((*rows)[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(Ints((*rows)[0]), (std::vector<int64_t>{0, 5, 1, 0}));
  EXPECT_EQ(Ints((*rows)[3]), (std::vector<int64_t>{1, 2}));
  auto empty = RunSingleNode("Unique", 11, {Data(Tensor::FromVector<float>({}, {0}))}, {}, 4);
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ((*empty)[0].dims(), (Dims{0}));
}

TEST(DataDependent, NonMaxSuppressionKeepsByScoreAndIou) {
  // Three boxes of one class: 0 and 1 overlap (IoU 0.81 > 0.5), 2 apart; 1 scores highest.
  const Tensor boxes = Tensor::FromVector<float>({0, 0, 10, 10, 1, 1, 10, 10, 20, 20, 30, 30}, {1, 3, 4});
  const Tensor scores = Tensor::FromVector<float>({0.8f, 0.9f, 0.3f}, {1, 1, 3});
  auto run = [&](int64_t max_out, float score_threshold) {
    return RunSingleNode(
        "NonMaxSuppression", 11,
        {Data(boxes), Data(scores), Known(Tensor::FromVector<int64_t>({max_out}, {1})),
         Known(Tensor::FromVector<float>({0.5f}, {1})), Known(Tensor::FromVector<float>({score_threshold}, {1}))},
        {});
  };
  auto all = run(10, 0.f);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(Ints((*all)[0]), (std::vector<int64_t>{0, 0, 1, 0, 0, 2}));  // box 1, then box 2
  auto one = run(1, 0.f);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Ints((*one)[0]), (std::vector<int64_t>{0, 0, 1}));
  auto above = run(10, 0.3f);  // strictly above the threshold: box 2 (0.3) is out
  ASSERT_TRUE(above.ok());
  EXPECT_EQ((*above)[0].dims(), (Dims{1, 3}));
  auto none = run(0, 0.f);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)[0].dims(), (Dims{0, 3}));
  auto bad =
      RunSingleNode("NonMaxSuppression", 11, {Data(Tensor::FromVector<float>({0, 0, 1}, {1, 1, 3})), Data(scores)}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "boxes must be")) << bad.status().message();
}

}  // namespace
}  // namespace qrt
