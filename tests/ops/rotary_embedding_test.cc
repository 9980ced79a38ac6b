// com.microsoft RotaryEmbedding: a rotation worked by hand and the refusals of bad input. Its
// bits against ONNX Runtime over both pairings and layouts are in tests/data/audit (rotary_*).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

StatusOr<Tensor> RunRotary(const Tensor& x, const Tensor& pos, const Tensor& cos, const Tensor& sin,
                           const Attributes& attrs) {
  ModelBuilder b("rotary", {{"", 17}, {"com.microsoft", 1}}, false);
  QRT_RETURN_IF_ERROR(b.AddInput("x", x.dtype(), ShapeFromDims(x.dims())));
  QRT_RETURN_IF_ERROR(b.AddInitializer("p", pos.Clone()));
  QRT_RETURN_IF_ERROR(b.AddInitializer("c", cos.Clone()));
  QRT_RETURN_IF_ERROR(b.AddInitializer("s", sin.Clone()));
  NodeSpec n;
  n.name = "rope";
  n.op_type = "RotaryEmbedding";
  n.domain = "com.microsoft";
  n.inputs = {"x", "p", "c", "s"};
  n.outputs = {"y"};
  n.attrs = attrs;
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(n)));
  QRT_RETURN_IF_ERROR(b.AddOutput("y", DataType::kUndefined, std::nullopt));
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  QRT_ASSIGN_OR_RETURN(std::vector<Tensor> y, testing::RunGraph(std::move(g), {x}, "none", kIsaAuto));
  return std::move(y[0]);
}

Attributes Heads(int64_t n, int64_t interleaved = 0) {
  Attributes a;
  a.Set("num_heads", n);
  a.Set("interleaved", interleaved);
  return a;
}

// Position 1 turns by a quarter (cos 0, sin 1): (x_r, x_i) -> (-x_i, x_r); position 0 not at all.
// Head size 6 with rotary_embedding_dim 4: the last two elements are copied.
TEST(RotaryEmbedding, QuarterTurnsPairsAndCopiesTheRest) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6}, {1, 2, 6});
  const Tensor pos = Tensor::FromVector<int64_t>({0, 1}, {1, 2});
  const Tensor cos = Tensor::FromVector<float>({1, 1, 0, 0}, {2, 2});
  const Tensor sin = Tensor::FromVector<float>({0, 0, 1, 1}, {2, 2});
  for (int64_t interleaved : {0, 1}) {
    Attributes a = Heads(1, interleaved);
    a.Set("rotary_embedding_dim", int64_t(4));
    auto y = RunRotary(x, pos, cos, sin, a);
    ASSERT_TRUE(y.ok()) << y.status().message();
    // Non-interleaved pairs (0, 2), (1, 3); interleaved (0, 1), (2, 3).
    const std::vector<float> want = interleaved ? std::vector<float>{1, 2, 3, 4, 5, 6, -2, 1, -4, 3, 5, 6}
                                                : std::vector<float>{1, 2, 3, 4, 5, 6, -3, -4, 1, 2, 5, 6};
    ASSERT_EQ(y->numel(), 12);
    for (int i = 0; i < 12; ++i)
      EXPECT_EQ(y->data<float>()[i], want[size_t(i)]) << "element " << i << " interleaved " << interleaved;
  }
}

TEST(RotaryEmbedding, RefusesBadShapesAndPositions) {
  const Tensor cos = Tensor::FromVector<float>(std::vector<float>(8, 1.f), {2, 4});
  const Tensor sin = Tensor::FromVector<float>(std::vector<float>(8, 0.f), {2, 4});
  const Tensor x = Tensor::FromVector<float>(std::vector<float>(16, 1.f), {1, 2, 8});
  struct Bad {
    Tensor x, pos;
    Attributes attrs;
    std::string says;
  };
  Attributes odd = Heads(1);
  odd.Set("rotary_embedding_dim", int64_t(6));
  const std::vector<Bad> cases = {
      {x, Tensor::FromVector<int64_t>({0, 2}, {1, 2}), Heads(1), "outside the caches"},
      {x, Tensor::FromVector<int64_t>({-1}, {1}), Heads(1), "outside the caches"},
      {x, Tensor::FromVector<int64_t>({0, 1, 0}, {1, 3}), Heads(1), "position_ids"},
      {x, Tensor::FromVector<int64_t>({0, 1}, {1, 2}), Heads(3), "heads"},
      {x, Tensor::FromVector<int64_t>({0, 1}, {1, 2}), odd, "rotary_embedding_dim"},
      {Tensor::FromVector<float>(std::vector<float>(8, 1.f), {1, 8}), Tensor::FromVector<int64_t>({0}, {1}), Heads(1),
       "3-D or 4-D"},
  };
  for (const Bad& c : cases) {
    auto y = RunRotary(c.x, c.pos, cos, sin, c.attrs);
    ASSERT_FALSE(y.ok()) << c.says;
    EXPECT_NE(y.status().message().find(c.says), std::string::npos) << y.status().message();
  }
}

}  // namespace
}  // namespace qrt
