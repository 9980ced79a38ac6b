// Real photographs through the real QDQ models (issue 5): scikit-image's sample photos,
// preprocessed by tools/make_picture_inputs.py (geometry only, stored as uint8 HWC in
// models/pictures/) and normalized here exactly as that script does, run through qrt and
// compared with ONNX Runtime 1.30's results in models/pictures/expected.json.
//
// Both models were calibrated on random data and their output quantizers saturate on real
// photos (see models/pictures/README.md): MobileNetV2's logits clip at 6.88, so 15-43 classes
// tie at the top and the literal argmax is the lowest tied index; YOLOv8n's class scores cannot
// reach the 0.25 threshold in output0 at all. So besides the literal outputs, each model exposes
// one internal tensor as an extra graph output ("tap"): MobileNetV2's Gemm output before its
// quantizer, and YOLOv8n's class logits before the Sigmoid. ONNX Runtime's results were computed
// on the same tapped graphs. Skips when ../shared/models is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "loaders/model_io.h"
#include "loaders/npy.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/test_util.h"

namespace qrt {
namespace {

using nlohmann::json;

const std::string kPictures = testing::SourceDir() + "/models/pictures";

json LoadExpected() {
  std::ifstream f(kPictures + "/expected.json");
  return json::parse(f);
}

// uint8 HWC [224,224,3] -> float NCHW [1,3,224,224]: x / 255, then (x - mean) / std when
// `normalize` (each a single float32 operation, as numpy does it in make_picture_inputs.py).
Tensor ToInput(const Tensor& hwc, bool normalize, const json& mean, const json& std_) {
  const int64_t h = hwc.dims()[0], w = hwc.dims()[1];
  Tensor x = Tensor::Allocate(DataType::kFloat32, {1, 3, h, w}).value();
  const uint8_t* src = hwc.data<uint8_t>();
  float* dst = x.data<float>();
  for (int64_t c = 0; c < 3; ++c) {
    const float m = normalize ? mean[c].get<float>() : 0.0f, s = normalize ? std_[c].get<float>() : 1.0f;
    for (int64_t i = 0; i < h * w; ++i) {
      float v = float(src[i * 3 + c]) / 255.0f;
      if (normalize) v = (v - m) / s;
      dst[c * h * w + i] = v;
    }
  }
  return x;
}

// sum_i x[i] * ((i % 251) + 1), as make_picture_inputs.py's checksum (there exactly rounded).
double Checksum(const Tensor& x) {
  double sum = 0;
  for (int64_t i = 0; i < x.numel(); ++i) sum += double(x.data<float>()[i]) * double(i % 251 + 1);
  return sum;
}

// Index of the largest element, the lowest index on ties (numpy.argmax).
int64_t ArgMax(const Tensor& t) {
  int64_t best = 0;
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (t.GetAsDouble(i) > t.GetAsDouble(best)) best = i;
  }
  return best;
}

struct Box {
  double score, cx, cy, w, h;
  int64_t anchor;
  int cls;
};

double Iou(const Box& a, const Box& b) {
  const double iw = std::max(0.0, std::min(a.cx + a.w / 2, b.cx + b.w / 2) - std::max(a.cx - a.w / 2, b.cx - b.w / 2));
  const double ih = std::max(0.0, std::min(a.cy + a.h / 2, b.cy + b.h / 2) - std::max(a.cy - a.h / 2, b.cy - b.h / 2));
  const double inter = iw * ih, uni = a.w * a.h + b.w * b.h - inter;
  return uni > 0 ? inter / uni : 0.0;
}

// YOLOv8 postprocessing: boxes [4,N] (cx,cy,w,h), class scores [80,N]; per anchor the best
// class (first on ties) if its score > conf; then per-class greedy NMS at `iou`.
std::vector<Box> Detect(const Tensor& boxes, const Tensor& scores, bool scores_are_logits, double conf, double iou) {
  const int64_t n = boxes.dims().back();
  std::vector<Box> cands;
  for (int64_t i = 0; i < n; ++i) {
    int best = 0;
    double best_s = -1;
    for (int c = 0; c < 80; ++c) {
      double s = scores.GetAsDouble(c * n + i);
      if (scores_are_logits) s = 1.0 / (1.0 + std::exp(-s));
      if (s > best_s) best_s = s, best = c;
    }
    if (best_s > conf) {
      cands.push_back({best_s, boxes.GetAsDouble(0 * n + i), boxes.GetAsDouble(1 * n + i), boxes.GetAsDouble(2 * n + i),
                       boxes.GetAsDouble(3 * n + i), i, best});
    }
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Box& a, const Box& b) {
    return a.score != b.score ? a.score > b.score : a.anchor < b.anchor;
  });
  std::vector<Box> kept;
  for (const Box& b : cands) {
    bool keep = true;
    for (const Box& k : kept) keep = keep && (k.cls != b.cls || Iou(k, b) <= iou);
    if (keep) kept.push_back(b);
  }
  return kept;
}

std::string SetToString(const std::set<int>& s) {
  std::string out = "{";
  for (int v : s) out += (out.size() > 1 ? "," : "") + std::to_string(v);
  return out + "}";
}

// Compiles `model` with one extra graph output, the value named `tap`.
std::shared_ptr<const CompiledModel> CompileWithTap(const std::string& model, const std::string& tap,
                                                    const std::string& passes) {
  auto graph = LoadModel(model);
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  if (!graph.ok()) return nullptr;
  const ValueId v = graph->FindValue(tap);
  EXPECT_TRUE(v.valid()) << tap << " is not a value of " << model;
  if (!v.valid()) return nullptr;
  graph->outputs.push_back(v);
  CompileOptions opts;
  opts.passes = passes;
  auto compiled = Compile(std::move(*graph), opts);
  EXPECT_TRUE(compiled.ok()) << compiled.status().message();
  return compiled.ok() ? *compiled : nullptr;
}

// qrt must agree with ONNX Runtime --opt all where ORT's literal (--opt disabled) run agrees
// with it too, and be one of the two answers where ORT's own modes disagree.
template <class T>
void ExpectAgrees(const T& got, const T& ort_all, const T& ort_disabled, const std::string& what) {
  if (ort_all == ort_disabled) {
    EXPECT_EQ(got, ort_all) << what;
  } else {
    EXPECT_TRUE(got == ort_all || got == ort_disabled) << what << ": ORT --opt all and disabled disagree";
  }
}

class Pictures : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!testing::DirExists(testing::SharedModelsDir())) GTEST_SKIP() << "../shared/models is absent";
    ASSERT_TRUE(testing::FileExists(kPictures + "/expected.json"));
  }
};

TEST_P(Pictures, MobileNetV2TopClassAgreesWithOnnxRuntime) {
  const json all = LoadExpected(), cfg = all["mobilenetv2"];
  const std::string model = testing::SharedModelsDir() + "/" + cfg["model"].get<std::string>();
  if (!testing::FileExists(model)) GTEST_SKIP() << model << " is not present";
  auto compiled = CompileWithTap(model, cfg["tap"].get<std::string>(), GetParam());
  ASSERT_NE(compiled, nullptr);
  Session session(compiled);
  // Plausible top-1 ImageNet classes per photo (ImageNet has no class for the astronaut).
  const std::map<std::string, std::set<int>> plausible = {
      {"chelsea", {281, 282, 283, 284, 285}},  // tabby, tiger cat, Persian, Siamese, Egyptian cat
      {"coffee", {504, 967, 968}},             // coffee mug, espresso, cup
      {"motorcycle", {665, 670}},              // moped, motor scooter
  };
  for (const auto& [photo, exp] : cfg["photos"].items()) {
    auto hwc = ReadNpy(kPictures + "/" + photo + "_mobilenetv2.npy");
    ASSERT_TRUE(hwc.ok()) << hwc.status().message();
    const Tensor x = ToInput(*hwc, true, cfg["mean"], cfg["std"]);
    const double want_sum = exp["checksum"].get<double>();
    ASSERT_NEAR(Checksum(x), want_sum, 1e-9 * std::fabs(want_sum) + 1e-6) << photo << ": preprocessing differs";
    std::vector<Tensor> out;
    ASSERT_TRUE(session.Run({x}, &out).ok());
    ASSERT_EQ(out.size(), 2u);
    const int top1 = int(ArgMax(out[1])), literal = int(ArgMax(out[0]));
    std::printf(
        "[pictures] mobilenetv2 --passes %-7s %-10s top1 %3d (ORT all %3d, disabled %3d; logit %.3f)  "
        "literal top1 %3d (ORT all %3d, disabled %3d)\n",
        GetParam(), photo.c_str(), top1, exp["ort_all"]["top1"].get<int>(), exp["ort_disabled"]["top1"].get<int>(),
        out[1].GetAsDouble(top1), literal, exp["ort_all"]["literal_top1"].get<int>(),
        exp["ort_disabled"]["literal_top1"].get<int>());
    ExpectAgrees(top1, exp["ort_all"]["top1"].get<int>(), exp["ort_disabled"]["top1"].get<int>(), photo + " top1");
    ExpectAgrees(literal, exp["ort_all"]["literal_top1"].get<int>(), exp["ort_disabled"]["literal_top1"].get<int>(),
                 photo + " literal top1");
    EXPECT_FLOAT_EQ(out[0].GetAsDouble(literal), exp["ort_all"]["literal_max"].get<double>()) << photo;
    if (plausible.count(photo)) {
      EXPECT_TRUE(plausible.at(photo).count(top1)) << photo << ": implausible top-1 class " << top1;
    }
  }
  std::fflush(stdout);
}

TEST_P(Pictures, YoloV8nDetectedClassesAgreeWithOnnxRuntime) {
  const json all = LoadExpected(), cfg = all["yolov8n"];
  const std::string model = testing::SharedModelsDir() + "/" + cfg["model"].get<std::string>();
  if (!testing::FileExists(model)) GTEST_SKIP() << model << " is not present";
  auto compiled = CompileWithTap(model, cfg["tap"].get<std::string>(), GetParam());
  ASSERT_NE(compiled, nullptr);
  Session session(compiled);
  const double conf = cfg["conf"].get<double>(), iou = cfg["iou"].get<double>();
  // COCO classes each photo must contain: cat, cup, person, motorcycle.
  const std::map<std::string, int> plausible = {{"chelsea", 15}, {"coffee", 41}, {"astronaut", 0}, {"motorcycle", 3}};
  for (const auto& [photo, exp] : cfg["photos"].items()) {
    auto hwc = ReadNpy(kPictures + "/" + photo + "_yolov8n.npy");
    ASSERT_TRUE(hwc.ok()) << hwc.status().message();
    const Tensor x = ToInput(*hwc, false, json(), json());
    const double want_sum = exp["checksum"].get<double>();
    ASSERT_NEAR(Checksum(x), want_sum, 1e-9 * std::fabs(want_sum) + 1e-6) << photo << ": preprocessing differs";
    std::vector<Tensor> out;
    ASSERT_TRUE(session.Run({x}, &out).ok());
    ASSERT_EQ(out.size(), 2u);
    ASSERT_EQ(out[0].dims(), (Dims{1, 84, 1029}));
    ASSERT_EQ(out[1].dims(), (Dims{1, 80, 1029}));
    const int64_t n = 1029;
    const Tensor out0 = out[0].Clone();
    const Tensor boxes = Tensor::Borrow(DataType::kFloat32, {4, n}, const_cast<float*>(out0.data<float>()));
    const Tensor literal_scores =
        Tensor::Borrow(DataType::kFloat32, {80, n}, const_cast<float*>(out0.data<float>() + 4 * n));
    std::set<int> classes, literal;
    const std::vector<Box> dets = Detect(boxes, out[1], true, conf, iou);
    for (const Box& b : dets) classes.insert(b.cls);
    for (const Box& b : Detect(boxes, literal_scores, false, conf, iou)) literal.insert(b.cls);
    auto as_set = [](const json& j) { return j.get<std::set<int>>(); };
    const std::set<int> ort_all = as_set(exp["ort_all"]["classes"]), ort_dis = as_set(exp["ort_disabled"]["classes"]);
    std::printf(
        "[pictures] yolov8n --passes %-7s %-10s classes %-8s (ORT all %s, disabled %s; %zu boxes)  literal %s "
        "(ORT %s)\n",
        GetParam(), photo.c_str(), SetToString(classes).c_str(), SetToString(ort_all).c_str(),
        SetToString(ort_dis).c_str(), dets.size(), SetToString(literal).c_str(),
        SetToString(as_set(exp["ort_all"]["literal_classes"])).c_str());
    ExpectAgrees(classes, ort_all, ort_dis, photo + " classes");
    ExpectAgrees(literal, as_set(exp["ort_all"]["literal_classes"]), as_set(exp["ort_disabled"]["literal_classes"]),
                 photo + " literal classes");
    EXPECT_TRUE(classes.count(plausible.at(photo))) << photo << ": class " << plausible.at(photo) << " not detected";
  }
  std::fflush(stdout);
}

INSTANTIATE_TEST_SUITE_P(Real, Pictures, ::testing::Values("default", "none"),
                         [](const ::testing::TestParamInfo<const char*>& info) { return std::string(info.param); });

}  // namespace
}  // namespace qrt
