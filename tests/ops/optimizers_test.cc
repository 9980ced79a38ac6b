// The training optimizers (ai.onnx.preview.training) on steps worked by hand, including the
// first step's rules (T = 0: Momentum's beta and Adam's bias correction unused), and the
// input/output arity refused when it does not fit. The ONNX node tests run in the conformance
// suite.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "loaders/model_builder.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

StatusOr<std::vector<Tensor>> RunOptimizer(const std::string& op, const std::vector<Tensor>& inputs, int outputs,
                                           const Attributes& attrs) {
  ModelBuilder b("opt", {{"ai.onnx.preview.training", 1}}, false);
  NodeSpec n;
  n.name = "o", n.op_type = op, n.domain = "ai.onnx.preview.training", n.attrs = attrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    QRT_RETURN_IF_ERROR(b.AddInitializer("in" + std::to_string(i), inputs[i].Clone()));
    n.inputs.push_back("in" + std::to_string(i));
  }
  for (int o = 0; o < outputs; ++o) n.outputs.push_back("out" + std::to_string(o));
  QRT_RETURN_IF_ERROR(b.AddNode(std::move(n)));
  for (int o = 0; o < outputs; ++o)
    QRT_RETURN_IF_ERROR(b.AddOutput("out" + std::to_string(o), DataType::kUndefined, std::nullopt));
  QRT_ASSIGN_OR_RETURN(Graph g, b.Finish());
  return testing::RunGraph(std::move(g), {}, "none");
}

Tensor F(float v) { return Tensor::FromVector<float>({v}, {1}); }
Tensor Scalar(float v) { return Tensor::FromVector<float>({v}, {}); }
Tensor Step(int64_t t) { return Tensor::FromVector<int64_t>({t}, {}); }

TEST(Optimizers, AdagradMomentumAndAdamOneStep) {
  // Adagrad: g = 0.1 * 2 + 1 = 1.2; h' = 0.56 + 1.44 = 2; x' = 2 - 0.5 / (1 + 3 * 0.5) * 1.2 / sqrt(2).
  Attributes ada;
  ada.Set("norm_coefficient", 0.1f);
  ada.Set("decay_factor", 0.5f);
  ada.Set("epsilon", 0.f);
  auto a = RunOptimizer("Adagrad", {Scalar(0.5f), Step(3), F(2), F(1), F(0.56f)}, 2, ada);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_NEAR((*a)[0].data<float>()[0], 2 - 0.2 * 1.2 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR((*a)[1].data<float>()[0], 2.0, 1e-6);
  // Momentum at T = 0: v' = 0.9 * 1 + 1 * g (beta unused), g = 3; standard x' = 5 - 0.1 * 3.9.
  Attributes mom;
  mom.Set("alpha", 0.9f);
  mom.Set("beta", 0.25f);
  mom.Set("mode", std::string("standard"));
  auto m = RunOptimizer("Momentum", {Scalar(0.1f), Step(0), F(5), F(3), F(1)}, 2, mom);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_NEAR((*m)[1].data<float>()[0], 3.9, 1e-6);
  EXPECT_NEAR((*m)[0].data<float>()[0], 5 - 0.39, 1e-6);
  // Adam at T = 0: no bias correction; v' = 0.1 * g, h' = 0.001 * g^2 with g = 2.
  Attributes adam;
  adam.Set("epsilon", 0.f);
  auto d = RunOptimizer("Adam", {Scalar(1.f), Step(0), F(1), F(2), F(0), F(0)}, 3, adam);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_NEAR((*d)[1].data<float>()[0], 0.2, 1e-6);
  EXPECT_NEAR((*d)[2].data<float>()[0], 0.004, 1e-7);
  EXPECT_NEAR((*d)[0].data<float>()[0], 1 - 0.2 / std::sqrt(0.004), 1e-4);  // beta is the float 0.999f
}

TEST(Optimizers, ArityAndShapesAreChecked) {
  Attributes mom;
  mom.Set("alpha", 0.9f);
  mom.Set("beta", 0.25f);
  mom.Set("mode", std::string("standard"));
  EXPECT_FALSE(RunOptimizer("Momentum", {Scalar(0.1f), Step(0), F(5), F(3)}, 2, mom).ok());
  EXPECT_FALSE(
      RunOptimizer("Momentum", {Scalar(0.1f), Step(0), F(5), F(3), Tensor::FromVector<float>({1, 2}, {2})}, 2, mom)
          .ok());
  mom.Set("mode", std::string("sideways"));
  EXPECT_FALSE(RunOptimizer("Momentum", {Scalar(0.1f), Step(0), F(5), F(3), F(1)}, 2, mom).ok());
}

}  // namespace
}  // namespace qrt
