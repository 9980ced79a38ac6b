// qrt_top_k: run a model on one input and print its largest outputs.
//
//   qrt_top_k MODEL [INPUT.npy|INPUT.pb] [EXPECTED.npy|EXPECTED.pb]
//
// Without INPUT, input 0 is a synthetic picture (a diagonal gradient) of its declared
// shape; image-sized uint8 or float inputs both work. With EXPECTED, the first output
// must equal it byte for byte (exit 1 otherwise).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <qrt/qrt.hpp>
#include <vector>

namespace {

// A diagonal gradient over the last two dims, 0..255 for integers, 0..1 for floats.
qrt::api::Tensor SyntheticPicture(const qrt::api::ValueInfo& info) {
  std::vector<int64_t> dims;
  for (int64_t d : info.shape) dims.push_back(d > 0 ? d : 1);
  qrt::api::Tensor t = qrt::api::Tensor::Zeros(info.dtype, dims).value();
  const int64_t h = dims.size() >= 2 ? dims[dims.size() - 2] : 1, w = dims.empty() ? 1 : dims.back();
  const size_t n = t.view().element_count();
  for (size_t i = 0; i < n; ++i) {
    const int64_t y = int64_t(i) / w % h, x = int64_t(i) % w;
    const double v = double(x + y) / double(std::max<int64_t>(1, h + w - 2));
    if (info.dtype == QRT_FLOAT32)
      t.data<float>()[i] = float(v);
    else if (info.dtype == QRT_UINT8)
      t.data<uint8_t>()[i] = uint8_t(v * 255.0 + 0.5);
    else if (info.dtype == QRT_INT8)
      t.data<int8_t>()[i] = int8_t(v * 255.0 - 127.5);
  }
  return t;
}

// Output element i as a double, for ranking.
double Element(const qrt::api::TensorView& t, size_t i) {
  switch (t.dtype()) {
    case QRT_FLOAT32:
      return t.data<float>()[i];
    case QRT_UINT8:
      return t.data<uint8_t>()[i];
    case QRT_INT8:
      return t.data<int8_t>()[i];
    case QRT_INT32:
      return t.data<int32_t>()[i];
    case QRT_INT64:
      return double(t.data<int64_t>()[i]);
    default:
      return 0;
  }
}

int Run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL [INPUT] [EXPECTED]\n", argv[0]);
    return 2;
  }
  qrt::api::Result<qrt::api::Model> model = qrt::api::Model::Load(argv[1]);
  if (!model.ok()) {
    std::fprintf(stderr, "error: %s\n", model.status().message().c_str());
    return 1;
  }
  const std::vector<qrt::api::ValueInfo> inputs = model->graph().inputs();
  const std::vector<qrt::api::ValueInfo> outputs = model->graph().outputs();
  if (inputs.size() != 1 || outputs.empty()) {
    std::fprintf(stderr, "error: this example runs models with one input\n");
    return 1;
  }
  qrt::api::Result<qrt::api::Tensor> input =
      argc > 2 ? qrt::api::Tensor::Read(argv[2]) : qrt::api::Result<qrt::api::Tensor>(SyntheticPicture(inputs[0]));
  if (!input.ok()) {
    std::fprintf(stderr, "error: %s\n", input.status().message().c_str());
    return 1;
  }
  qrt::api::Context ctx = qrt::api::Context::Create(*model).value();
  qrt::api::Status s = ctx.BindInput(0, input->view());
  if (s.ok()) s = ctx.Run();
  if (!s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.message().c_str());
    return 1;
  }
  const qrt::api::TensorView out = ctx.Output(0).value();
  std::vector<size_t> order(out.element_count());
  std::iota(order.begin(), order.end(), size_t(0));
  const size_t k = std::min<size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](size_t a, size_t b) { return Element(out, a) > Element(out, b); });
  std::printf("qrt %s, isa %s; output '%s' (%s, %zu elements), top %zu:\n", qrt_version_string(), model->isa().c_str(),
              outputs[0].name.c_str(), qrt_dtype_name(out.dtype()), out.element_count(), k);
  for (size_t i = 0; i < k; ++i)
    std::printf("  #%zu  index %zu  value %.6g\n", i + 1, order[i], Element(out, order[i]));
  if (argc > 3) {
    qrt::api::Tensor expected = qrt::api::Tensor::Read(argv[3]).value();
    const qrt::api::TensorView want = expected.view();
    const bool same = want.dtype() == out.dtype() && want.size_bytes() == out.size_bytes() &&
                      std::memcmp(want.raw(), out.raw(), out.size_bytes()) == 0;
    std::printf("output %s %s\n", same ? "matches" : "DIFFERS FROM", argv[3]);
    if (!same) return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const qrt::api::Error& e) {  // from .value() on a failed Result
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
