// The QDQ suite written by ../shared/peers/ort/gen_models.py (single DQ->Mul->Q chains,
// the chain model, ORT's fusion probes): each model fuses as expected and matches the
// unfused numpy float32 reference it ships, bit for bit, with and without passes.
// Skips when the peer harness or Debian's python3-onnx is absent.
#include <gtest/gtest.h>

#include <map>

#include "loaders/model_io.h"
#include "loaders/npy.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

struct Expectation {
  const char* model;
  int mul_fusions, add_fusions;
};

// The probes ORT refuses (per-channel, shape-[1] scales, u8 x i8) qrt fuses; a scale fed
// as a graph input and a Mul read twice stay; the opset-21 uint16 chain fuses.
const Expectation kExpected[] = {
    {"mul_u8_same", 1, 0},
    {"mul_u8_bcast", 1, 0},
    {"mul_u8_scalar", 1, 0},
    {"mul_i8_same", 1, 0},
    {"mul_i8_bcast", 1, 0},
    {"mul_i8_scalar", 1, 0},
    {"chain_u8", 3, 3},
    {"chain_i8", 3, 3},
    {"probe_mul_u8_perchannel", 1, 0},
    {"probe_mul_u8_scale_shape1", 1, 0},
    {"probe_mul_u8_scale_input", 0, 0},
    {"probe_mul_mixed_u8_i8", 1, 0},
    {"probe_mul_u8_two_consumers", 0, 0},
    {"probe_add_u8", 0, 1},
    {"probe_mul_u16_opset21", 1, 0},
};

class QdqSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string script = testing::SourceDir() + "/../shared/peers/ort/gen_models.py";
    if (!testing::FileExists(script) || !testing::FileExists("/usr/bin/python3")) return;
    dir_ = new testing::TempDir();
    auto r = testing::RunCommand("/usr/bin/python3 " + script + " " + dir_->path() + " --only single,chain,probes");
    generated_ = r.exit_code == 0;
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static testing::TempDir* dir_;
  static bool generated_;
};
testing::TempDir* QdqSuite::dir_ = nullptr;
bool QdqSuite::generated_ = false;

StatusOr<std::vector<Tensor>> ReadNamed(const Graph& g, const std::vector<ValueId>& ids, const std::string& dir) {
  std::vector<Tensor> out;
  for (ValueId id : ids) {
    QRT_ASSIGN_OR_RETURN(Tensor t, ReadNpy(dir + "/" + g.value(id).name + ".npy"));
    out.push_back(std::move(t));
  }
  return out;
}

TEST_F(QdqSuite, FusesAsExpectedAndMatchesNumpyBitForBit) {
  if (!generated_) GTEST_SKIP() << "gen_models.py or python3-onnx is not available";
  for (const Expectation& e : kExpected) {
    SCOPED_TRACE(e.model);
    const std::string dir = dir_->path() + "/" + e.model;
    auto graph = LoadModel(dir + "/model.onnx");
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    auto inputs = ReadNamed(*graph, graph->inputs, dir + "/inputs");
    auto expected = ReadNamed(*graph, graph->outputs, dir + "/expected_numpy");
    ASSERT_TRUE(inputs.ok() && expected.ok());

    Graph fused = *graph;
    PassStats stats;
    ASSERT_TRUE(RunPasses(fused, "default", true, &stats).ok());
    std::map<std::string, int> counts(stats.begin(), stats.end());
    EXPECT_EQ(counts["fuse-dq-mul-q"], e.mul_fusions);
    EXPECT_EQ(counts["fuse-dq-add-q"], e.add_fusions);

    for (const char* passes : {"none", "default"}) {
      for (Isa isa : TiersThisCpuHas()) {
        auto got = testing::RunGraph(*graph, *inputs, passes, isa);
        ASSERT_TRUE(got.ok()) << got.status().message();
        for (size_t k = 0; k < got->size(); ++k) {
          EXPECT_EQ(testing::CompareBits((*got)[k], (*expected)[k]), "") << passes << " " << IsaName(isa);
        }
      }
    }
  }
}

TEST_F(QdqSuite, ConvertedOptimizedGraphReloadsWithIdenticalOutputs) {
  if (!generated_) GTEST_SKIP() << "gen_models.py or python3-onnx is not available";
  const std::string dir = dir_->path() + "/chain_u8";
  for (const char* ext : {"json", "onnx"}) {
    const std::string out = dir + "/fused." + ext;
    auto r = testing::RunCommand(testing::CliPath() + " convert --passes default " + dir + "/model.onnx " + out);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto reloaded = LoadModel(out);
    ASSERT_TRUE(reloaded.ok()) << reloaded.status().message();
    int fused_nodes = 0;
    for (uint32_t i = 0; i < reloaded->num_nodes(); ++i) fused_nodes += reloaded->node(NodeId{i}).domain == "qrt";
    EXPECT_EQ(fused_nodes, 6) << ext;
    auto inputs = ReadNamed(*reloaded, reloaded->inputs, dir + "/inputs");
    auto expected = ReadNamed(*reloaded, reloaded->outputs, dir + "/expected_numpy");
    ASSERT_TRUE(inputs.ok() && expected.ok());
    auto got = testing::RunGraph(*reloaded, *inputs, "none");
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(testing::CompareBits((*got)[0], (*expected)[0]), "") << ext;
  }
}

}  // namespace
}  // namespace qrt
