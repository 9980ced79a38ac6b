// com.microsoft EmbedLayerNormalization: a row worked by hand, mask_index, and the refusals of
// bad input. Its bits against ONNX Runtime over hidden sizes, segments and position_ids are in
// tests/data/audit (embedlayernorm_*).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct EmbedInputs {
  Tensor ids = Tensor::FromVector<int32_t>({1, 0}, {1, 2});
  Tensor word = Tensor::FromVector<float>({0, 0, 0, 0, 1, 2, 3, 6}, {2, 4});
  Tensor pos = Tensor::FromVector<float>({0, 0, 0, 0, 1, 1, 1, 1}, {2, 4});
  Tensor gamma = Tensor::FromVector<float>({1, 1, 2, 2}, {4});
  Tensor beta = Tensor::FromVector<float>({0, 0, 0, 10}, {4});
  std::optional<Tensor> mask, position_ids;
};

StatusOr<std::vector<Tensor>> RunEmbed(const EmbedInputs& in, int outputs = 3) {
  ModelBuilder b("embed", {{"", 17}, {"com.microsoft", 1}}, false);
  QRT_RETURN_IF_ERROR(b.AddInput("ids", in.ids.dtype(), ShapeFromDims(in.ids.dims())));
  QRT_RETURN_IF_ERROR(b.AddInitializer("w", in.word.Clone()));
  QRT_RETURN_IF_ERROR(b.AddInitializer("p", in.pos.Clone()));
  QRT_RETURN_IF_ERROR(b.AddInitializer("g", in.gamma.Clone()));
  QRT_RETURN_IF_ERROR(b.AddInitializer("b", in.beta.Clone()));
  NodeSpec n;
  n.name = "embed";
  n.op_type = "EmbedLayerNormalization";
  n.domain = "com.microsoft";
  n.inputs = {"ids", "", "w", "p", "", "g", "b"};
  if (in.mask) QRT_RETURN_IF_ERROR(b.AddInitializer("m", in.mask->Clone()));
  if (in.position_ids) QRT_RETURN_IF_ERROR(b.AddInitializer("pid", in.position_ids->Clone()));
  if (in.mask || in.position_ids) n.inputs.push_back(in.mask ? "m" : "");
  if (in.position_ids) n.inputs.push_back("pid");
  const std::vector<std::string> names = {"y", "mask_index", "sum"};
  n.outputs.assign(names.begin(), names.begin() + outputs);
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(n)));
  for (int k = 0; k < outputs; ++k)
    QRT_RETURN_IF_ERROR(b.AddOutput(names[size_t(k)], DataType::kUndefined, std::nullopt));
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  return testing::RunGraph(std::move(g), {in.ids}, "none", kIsaAuto);
}

// Token 0 is word 1 at position 0: e = (1, 2, 3, 6), mean 3, squared differences 4+1+0+9 = 14,
// sd sqrt(14/4 + 1e-12); y = (e - 3) / sd * gamma + beta. Token 1 is word 0 at position 1:
// e = (1, 1, 1, 1), all differences 0, so y = beta.
TEST(EmbedLayerNormalization, NormalizesTheSumOfEmbeddings) {
  EmbedInputs in;
  in.mask = Tensor::FromVector<int32_t>({1, 1}, {1, 2});
  auto out = RunEmbed(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const float sd = std::sqrt(14.f / 4.f + 1e-12f);
  const float want[] = {-2 / sd, -1 / sd, 0, 3 / sd * 2 + 10, 0, 0, 0, 10};
  const float sum[] = {1, 2, 3, 6, 1, 1, 1, 1};
  for (int i = 0; i < 8; ++i) {
    EXPECT_FLOAT_EQ((*out)[0].data<float>()[i], want[i]) << i;
    EXPECT_EQ((*out)[2].data<float>()[i], sum[i]) << i;
  }
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 2);
}

// mask_index counts the tokens whose mask is exactly 1 (ONNX Runtime ignores other values);
// without a mask it is 0. position_ids [1, S] serves every batch.
TEST(EmbedLayerNormalization, CountsMaskedTokensAndTakesPositionIds) {
  EmbedInputs in;
  in.ids = Tensor::FromVector<int32_t>({1, 0, 1, 1, 0, 0}, {3, 2});
  in.mask = Tensor::FromVector<int32_t>({1, 0, 2, 1, 1, 1}, {3, 2});
  in.position_ids = Tensor::FromVector<int32_t>({1, 1}, {1, 2});
  auto out = RunEmbed(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const int32_t counts[] = {1, 1, 2};
  for (int b = 0; b < 3; ++b) EXPECT_EQ((*out)[1].data<int32_t>()[b], counts[b]) << b;
  EXPECT_EQ((*out)[2].data<float>()[0], 2.f);  // word 1 (1) + position 1 (1)
  EXPECT_EQ((*out)[2].data<float>()[4], 1.f);  // word 0 (0) + position 1 (1)
  in.mask.reset();
  out = RunEmbed(in);
  ASSERT_TRUE(out.ok()) << out.status().message();
  for (int b = 0; b < 3; ++b) EXPECT_EQ((*out)[1].data<int32_t>()[b], 0) << b;
}

TEST(EmbedLayerNormalization, RefusesBadIdsAndShapes) {
  struct Bad {
    EmbedInputs in;
    std::string says;
  };
  std::vector<Bad> cases(5);
  cases[0].in.ids = Tensor::FromVector<int32_t>({1, 2}, {1, 2});
  cases[0].says = "word id 2";
  cases[1].in.ids = Tensor::FromVector<int32_t>({-1, 0}, {1, 2});
  cases[1].says = "word id -1";
  cases[2].in.position_ids = Tensor::FromVector<int32_t>({0, 5}, {1, 2});
  cases[2].says = "position 5";
  cases[3].in.ids = Tensor::FromVector<int32_t>({0, 0, 0}, {1, 3});
  cases[3].says = "longer than position_embedding";
  cases[4].in.gamma = Tensor::FromVector<float>({1, 1, 1}, {3});
  cases[4].says = "gamma";
  for (const Bad& c : cases) {
    auto out = RunEmbed(c.in);
    ASSERT_FALSE(out.ok()) << c.says;
    EXPECT_NE(out.status().message().find(c.says), std::string::npos) << out.status().message();
  }
}

// QEmbedLayerNormalization dequantizes every row as DequantizeLinear does, then is
// EmbedLayerNormalization: the same bits as the float op given the dequantized tables.
TEST(QEmbedLayerNormalization, IsTheFloatOpOnDequantizedTables) {
  ModelBuilder b("qembed", {{"", 17}, {"com.microsoft", 1}}, false);
  const Tensor ids = Tensor::FromVector<int32_t>({2, 0, 1, 2}, {2, 2});
  ASSERT_TRUE(b.AddInput("ids", DataType::kInt32, ShapeFromDims(ids.dims())).ok());
  const std::vector<uint8_t> word = {0, 9, 200, 31, 7, 255, 128, 3, 90, 91, 15, 16};  // [3, 4]
  const std::vector<uint8_t> pos = {1, 2, 3, 4, 250, 6, 7, 8};                        // [2, 4]
  const std::vector<uint8_t> gamma = {100, 120, 140, 160}, beta = {0, 50, 100, 255};
  const float scales[] = {0.037f, 0.011f, 0.02f, 0.003f};
  const uint8_t zps[] = {128, 3, 90, 17};
  ASSERT_TRUE(b.AddInitializer("w", Tensor::FromVector<uint8_t>(word, {3, 4})).ok());
  ASSERT_TRUE(b.AddInitializer("p", Tensor::FromVector<uint8_t>(pos, {2, 4})).ok());
  ASSERT_TRUE(b.AddInitializer("g", Tensor::FromVector<uint8_t>(gamma, {4})).ok());
  ASSERT_TRUE(b.AddInitializer("b", Tensor::FromVector<uint8_t>(beta, {4})).ok());
  const char* names[] = {"w", "p", "g", "b"};
  for (int k = 0; k < 4; ++k) {
    ASSERT_TRUE(b.AddInitializer(std::string(names[k]) + "_s", Tensor::FromVector<float>({scales[k]}, {})).ok());
    ASSERT_TRUE(b.AddInitializer(std::string(names[k]) + "_z", Tensor::FromVector<uint8_t>({zps[k]}, {})).ok());
  }
  NodeSpec n;
  n.name = "qembed";
  n.op_type = "QEmbedLayerNormalization";
  n.domain = "com.microsoft";
  n.inputs = {"ids", "", "w", "p", "", "g", "b", "", "w_s", "p_s", "", "g_s", "b_s", "w_z", "p_z", "", "g_z", "b_z"};
  n.outputs = {"y"};
  ASSERT_TRUE(b.AddNode(std::move(n)).ok());
  ASSERT_TRUE(b.AddOutput("y", DataType::kUndefined, std::nullopt).ok());
  auto got = testing::RunGraph(b.Finish().value(), {ids}, "none", kIsaAuto);
  ASSERT_TRUE(got.ok()) << got.status().message();

  auto dequantize = [](const std::vector<uint8_t>& q, float s, int zp) {
    std::vector<float> f;
    for (uint8_t v : q) f.push_back(float(int(v) - zp) * s);
    return f;
  };
  EmbedInputs in;
  in.ids = ids;
  in.word = Tensor::FromVector<float>(dequantize(word, scales[0], zps[0]), {3, 4});
  in.pos = Tensor::FromVector<float>(dequantize(pos, scales[1], zps[1]), {2, 4});
  in.gamma = Tensor::FromVector<float>(dequantize(gamma, scales[2], zps[2]), {4});
  in.beta = Tensor::FromVector<float>(dequantize(beta, scales[3], zps[3]), {4});
  auto want = RunEmbed(in, 1);
  ASSERT_TRUE(want.ok()) << want.status().message();
  EXPECT_EQ(testing::CompareBits((*got)[0], (*want)[0]), "");
}

}  // namespace
}  // namespace qrt
