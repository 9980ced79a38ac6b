// libFuzzer target: .npy parsing. Three oracles besides the sanitizers: the buffer
// parser and the file reader agree on every input; what they accept writes back and
// reads back bit-identical.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "loaders/npy.h"
#include "tools/fuzz/fuzz_util.h"

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "npy_fuzz: %s\n", what);
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
  qrt::StatusOr<qrt::Tensor> parsed = qrt::ParseNpy(data, size, "fuzz.npy");

  const std::string path = qrt::fuzz::DataDir() + "/input.npy";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  Check(f != nullptr && std::fwrite(data, 1, size, f) == size && std::fclose(f) == 0, "cannot write input.npy");
  qrt::StatusOr<qrt::Tensor> read = qrt::ReadNpy(path);
  Check(parsed.ok() == read.ok(), "ParseNpy and ReadNpy disagree on success");
  if (!parsed.ok()) {
    Check(parsed.status().code() == read.status().code(), "ParseNpy and ReadNpy give different error codes");
    return 0;
  }
  Check(SameBits(*parsed, *read), "ParseNpy and ReadNpy read different tensors");

  const std::string out = qrt::fuzz::DataDir() + "/output.npy";
  Check(qrt::WriteNpy(out, *parsed).ok(), "WriteNpy failed on a tensor ParseNpy accepted");
  qrt::StatusOr<qrt::Tensor> back = qrt::ReadNpy(out);
  Check(back.ok() && SameBits(*parsed, *back), "npy round trip changed the tensor");
  return 0;
}
