// Inputs the libFuzzer targets (tools/fuzz) crashed on, each kept as a regression test
// with the bytes of the crashing input (or the model rebuilt in code when that reads
// better) and the clean error or result qrt now gives. Run the sanitizer build
// (tools/sanitize.sh) to have these catch what ASan and UBSan caught.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/model_io.h"
#include "loaders/onnx_loader.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using testing::Contains;

// "0a1b..." -> bytes.
std::string Hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += char(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

StatusOr<Graph> LoadOnnxBytes(const std::string& bytes) {
  return LoadOnnxBuffer(bytes.data(), bytes.size(), "fuzz.onnx", "");
}

// onnx_loader_fuzz: a graph name that is not UTF-8 ("test_sigmoid_\xe5xample"). ONNX
// names are bytes, but JSON text is UTF-8: nlohmann's dump() threw type_error 316 out of
// GraphToJson, through `qrt convert`, to std::terminate.
TEST(FuzzRegression, NonUtf8NameIsAnErrorWhenWritingJson) {
  const std::string model = Hex(
      "0807120c6261636b656e642d746573743a490a0f0a017812017922075369676d6f69641214746573"
      "745f7369676d6f69645fe578616d706c655a0f0a0178120a0a08080112040a020803620f0a017912"
      "0a0a08080112040a02080342040a00100d");
  StatusOr<Graph> g = LoadOnnxBytes(model);
  ASSERT_TRUE(g.ok()) << g.status().message();
  StatusOr<std::string> json = GraphToJson(*g, nullptr);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_PRED2(Contains, json.status().message(), "fuzz.onnx");
  EXPECT_PRED2(Contains, json.status().message(), "not valid UTF-8");
  EXPECT_TRUE(GraphToOnnx(*g, nullptr).ok());  // ONNX holds any bytes
}

}  // namespace
}  // namespace qrt
