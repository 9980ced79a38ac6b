// libFuzzer target: ONNX TensorProto decoding (the .pb input files and every
// initializer). Oracles besides the sanitizers: TensorFromProto on the parsed message
// and ReadTensorProtoFile on the same bytes agree; an accepted tensor encodes and
// decodes back bit-identical. External data resolves in fuzz::DataDir().
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "loaders/tensor_proto.h"
#include "tools/fuzz/fuzz_util.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "tensor_proto_fuzz: %s\n", what);
    std::abort();
  }
}

bool SameBits(const qrt::Tensor& a, const qrt::Tensor& b) {
  return a.dtype() == b.dtype() && a.dims() == b.dims() &&
         (a.nbytes() == 0 || std::memcmp(a.raw(), b.raw(), a.nbytes()) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  qrt::fuzz::Setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx::TensorProto proto;
  if (size > (size_t(1) << 30) || !proto.ParseFromArray(data, int(size))) return 0;
  qrt::StatusOr<qrt::Tensor> t = qrt::TensorFromProto(proto, qrt::fuzz::DataDir());

  const std::string path = qrt::fuzz::DataDir() + "/input.pb";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  Check(f != nullptr && std::fwrite(data, 1, size, f) == size && std::fclose(f) == 0, "cannot write input.pb");
  qrt::StatusOr<qrt::Tensor> read = qrt::ReadTensorProtoFile(path);
  Check(t.ok() == read.ok(), "TensorFromProto and ReadTensorProtoFile disagree on success");
  if (!t.ok()) return 0;
  Check(SameBits(*t, *read), "TensorFromProto and ReadTensorProtoFile read different tensors");

  qrt::StatusOr<qrt::Tensor> back = qrt::TensorFromProto(qrt::TensorToProto(*t, "x"), "");
  Check(back.ok() && SameBits(*t, *back), "TensorProto round trip changed the tensor");
  return 0;
}
