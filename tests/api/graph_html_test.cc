// GraphsToHtml: the page of a graph before and after the passes.
//
//   Before:  x -DQ-> Mul(xf, xf) -Q-> y        After:  x -LookupTable-> y
//   Before:  a -DQ-.                            After:  a -.
//                   Mul -Q-> y                              QuantizedMul -> y
//            b -DQ-'                                    b -'
//
// A fused node must list exactly the nodes it replaced, names are escaped, nothing points
// to the network, and the profile colours appear only with a profile.
#include "api/graph_html.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "loaders/json_loader.h"
#include "passes/pass_manager.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

// A DQ -> Mul(x, x) -> Q chain (fuse-qdq-unary makes it a table) whose DequantizeLinear
// has a name that needs escaping.
const char kChain[] = R"({"format":"qrt.graph","version":1,"opsets":{"":13},
  "inputs":[{"name":"x","dtype":"uint8","shape":[2,3]}],
  "outputs":[{"name":"y"}],
  "initializers":[{"name":"s","dtype":"float32","shape":[],"data":[0.05]},
                  {"name":"z","dtype":"uint8","shape":[],"data":[128]},
                  {"name":"sy","dtype":"float32","shape":[],"data":[0.03]},
                  {"name":"zy","dtype":"uint8","shape":[],"data":[100]}],
  "nodes":[{"name":"dq<&\"a","op":"DequantizeLinear","inputs":["x","s","z"],"outputs":["xf"]},
           {"name":"mul","op":"Mul","inputs":["xf","xf"],"outputs":["m"]},
           {"name":"q","op":"QuantizeLinear","inputs":["m","sy","zy"],"outputs":["y"]}]})";

const char kTwoInputs[] = R"({"format":"qrt.graph","version":1,"opsets":{"":13},
  "inputs":[{"name":"a","dtype":"uint8","shape":[2,3]},{"name":"b","dtype":"uint8","shape":[2,3]}],
  "outputs":[{"name":"y"}],
  "initializers":[{"name":"s","dtype":"float32","shape":[],"data":[0.05]},
                  {"name":"z","dtype":"uint8","shape":[],"data":[128]},
                  {"name":"sy","dtype":"float32","shape":[],"data":[0.03]},
                  {"name":"zy","dtype":"uint8","shape":[],"data":[100]}],
  "nodes":[{"name":"dq_a","op":"DequantizeLinear","inputs":["a","s","z"],"outputs":["af"]},
           {"name":"dq_b","op":"DequantizeLinear","inputs":["b","s","z"],"outputs":["bf"]},
           {"name":"mul","op":"Mul","inputs":["af","bf"],"outputs":["m"]},
           {"name":"q","op":"QuantizeLinear","inputs":["m","sy","zy"],"outputs":["y"]}]})";

Graph LoadChain(const char* json = kChain) {
  StatusOr<Graph> g = LoadJsonText(json, "chain.json", ".");
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

Graph Optimized(const Graph& g) {
  Graph copy = g;
  PassStats stats;
  const Status s = RunPasses(copy, "default", true, &stats);
  EXPECT_TRUE(s.ok()) << s.message();
  return copy;
}

size_t Count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

// The text of one pane's section.
std::string PaneText(const std::string& html, const std::string& id) {
  const size_t begin = html.find("<section class=\"pane\" id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  const size_t end = html.find("</section>", begin);
  return html.substr(begin, end - begin);
}

TEST(GraphHtml, DrawsBothPanesAndLinksTheFusedNode) {
  const Graph before = LoadChain();
  const Graph after = Optimized(before);
  ASSERT_EQ(after.num_live_nodes(), 1u);
  const std::string html = GraphsToHtml(before, after, "chain <&>", {});

  const std::string b = PaneText(html, "pane-before"), a = PaneText(html, "pane-after");
  EXPECT_EQ(Count(b, "class=\"node"), 3u);
  EXPECT_EQ(Count(a, "class=\"node"), 1u);
  EXPECT_TRUE(testing::Contains(b, "before passes: 3 nodes"));
  EXPECT_TRUE(testing::Contains(a, "after passes: 1 nodes"));
  EXPECT_EQ(Count(a, "class=\"node fused\""), 1u);
  EXPECT_TRUE(testing::Contains(a, "data-op=\"qrt:LookupTable\""));
  // Exactly the three nodes it replaced, in the before graph's order, escaped.
  EXPECT_TRUE(testing::Contains(a, "data-replaces=\"dq&lt;&amp;&quot;a mul q\"")) << a;
  EXPECT_EQ(Count(b, "data-fused-into=\"mul\""), 3u);
  // Names are escaped everywhere: the raw name appears nowhere.
  EXPECT_FALSE(testing::Contains(html, "dq<&\"a"));
  EXPECT_TRUE(testing::Contains(html, "data-name=\"dq&lt;&amp;&quot;a\""));
  EXPECT_TRUE(testing::Contains(html, "<h1>chain &lt;&amp;&gt;</h1>"));
  // Hover text: dtypes, shapes and the constant quantization parameters.
  EXPECT_TRUE(testing::Contains(b, "x: uint8 [2,3]"));
  EXPECT_TRUE(testing::Contains(b, "x_scale = s: float32 [] = 0.0500000007"));
  EXPECT_TRUE(testing::Contains(b, "x_zero_point = z: uint8 [] = 128"));
  // Self-contained: no URL at all.
  EXPECT_FALSE(testing::Contains(html, "http:"));
  EXPECT_FALSE(testing::Contains(html, "https:"));
  EXPECT_FALSE(testing::Contains(html, "<script src"));
  EXPECT_FALSE(testing::Contains(html, "<link"));
  // No profile: colours by kind, no time shares.
  EXPECT_FALSE(testing::Contains(html, "data-share="));
  EXPECT_FALSE(testing::Contains(html, "class=\"key profile\""));
}

TEST(GraphHtml, QuantizedMulReplacesBothDequantizations) {
  const Graph before = LoadChain(kTwoInputs);
  const Graph after = Optimized(before);
  const std::string html = GraphsToHtml(before, after, "two", {});
  const std::string a = PaneText(html, "pane-after");
  EXPECT_EQ(Count(PaneText(html, "pane-before"), "class=\"node"), 4u);
  EXPECT_EQ(Count(a, "class=\"node fused\""), 1u);
  EXPECT_TRUE(testing::Contains(a, "data-op=\"qrt:QuantizedMul\" data-replaces=\"dq_a dq_b mul q\"")) << a;
  // Two graph inputs, one output: ovals, not nodes.
  EXPECT_EQ(Count(a, "class=\"io\""), 3u);
}

TEST(GraphHtml, ProfileColoursTheAfterNodes) {
  const Graph before = LoadChain();
  const Graph after = Optimized(before);
  const std::string html = GraphsToHtml(before, after, "chain", {{"mul", 12.5}, {"elsewhere", 12.5}});
  const std::string a = PaneText(html, "pane-after");
  EXPECT_TRUE(testing::Contains(a, "data-us=\"12.50\" data-share=\"50.00\"")) << a;
  EXPECT_TRUE(testing::Contains(a, "style=\"fill:#"));
  EXPECT_TRUE(testing::Contains(a, "time: 12.5 us per run (50.0% of 25.0 us)"));
  EXPECT_TRUE(testing::Contains(html, "class=\"key profile\""));
  EXPECT_FALSE(testing::Contains(PaneText(html, "pane-before"), "data-share="));
}

TEST(GraphHtml, UnchangedGraphHasNoFusedNodes) {
  const Graph g = LoadChain();
  const std::string html = GraphsToHtml(g, g, "same", {});
  EXPECT_EQ(Count(html, "class=\"node"), 6u);
  EXPECT_EQ(Count(html, "class=\"node fused"), 0u);
  EXPECT_FALSE(testing::Contains(html, "data-replaces="));
}

// A 1000-node graph with long skip edges: laid out quickly, and the same page every time.
TEST(GraphHtml, LargeGraphIsFastAndDeterministic) {
  std::string nodes;
  const int n = 1000;
  for (int i = 1; i <= n; ++i) {
    const std::string prev = i == 1 ? "x" : "v" + std::to_string(i - 1);
    if (i % 3 == 0) {
      const std::string skip = i > 20 ? "v" + std::to_string(i - 1 - (i * 7) % 19) : "x";
      nodes += R"({"name":"n)" + std::to_string(i) + R"(","op":"Add","inputs":[")" + prev + R"(",")" + skip +
               R"("],"outputs":["v)" + std::to_string(i) + "\"]}";
    } else {
      nodes += R"({"name":"n)" + std::to_string(i) + R"(","op":"Relu","inputs":[")" + prev + R"("],"outputs":["v)" +
               std::to_string(i) + "\"]}";
    }
    if (i < n) nodes += ",";
  }
  const std::string json = R"({"format":"qrt.graph","version":1,"opsets":{"":13},
    "inputs":[{"name":"x","dtype":"float32","shape":[1,8]}],"outputs":[{"name":"v)" +
                           std::to_string(n) + R"("}],"initializers":[],"nodes":[)" + nodes + "]}";
  StatusOr<Graph> g = LoadJsonText(json, "big.json", ".");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const auto t0 = std::chrono::steady_clock::now();
  const std::string html = GraphsToHtml(*g, *g, "big", {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(seconds, 5.0);  // about 0.1 s in a release build; generous for sanitizer builds
  std::printf("1000-node page: %.3f s, %zu bytes\n", seconds, html.size());
  EXPECT_EQ(Count(PaneText(html, "pane-after"), "class=\"node"), size_t(n));
  EXPECT_TRUE(testing::Contains(html, "v1000: float32 [1,8]"));  // shapes come from the plan
  EXPECT_EQ(html, GraphsToHtml(*g, *g, "big", {}));
}

}  // namespace
}  // namespace qrt
