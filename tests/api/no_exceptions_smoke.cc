// Compiled with -fno-exceptions: qrt.hpp must work without them (errors as Status and
// Result, never thrown).
#include <cstring>
#include <string>

#include "qrt/qrt.hpp"

int qrt_cpp_no_exceptions_smoke(const char* model_path, const char* input_path, const char* output_path) {
  namespace api = qrt::api;
  if (api::Model::Load("/no/such/model.onnx").ok()) return 1;  // an error, reported, not thrown
  api::Result<api::Model> model = api::Model::Load(model_path);
  if (!model.ok()) return 2;
  api::Result<api::Tensor> input = api::Tensor::Read(input_path);
  api::Result<api::Tensor> expected = api::Tensor::Read(output_path);
  if (!input.ok() || !expected.ok()) return 3;
  api::Result<api::Context> ctx = api::Context::Create(*model);
  if (!ctx.ok() || !ctx->BindInput(0, input->view()).ok() || !ctx->Run().ok()) return 4;
  api::Result<api::TensorView> out = ctx->Output(0);
  if (!out.ok()) return 5;
  const api::TensorView want = expected->view();
  if (out->size_bytes() != want.size_bytes() || std::memcmp(out->raw(), want.raw(), want.size_bytes()) != 0) return 6;
  return 0;
}
