// The CPU whose ONNX Runtime results qrt reproduces where ORT's MLAS picks kernels by CPU and
// they round differently (the softmax's exp-and-sum: docs/float-order.md). By default this
// machine: ORT here would run the AVX-512F kernels where qrt detects AVX-512 (so under
// QRT_MAX_ISA=avx2 an AVX-512 machine reproduces ORT on an AVX2 one). The environment variable
// QRT_ORT_CPU=avx2|avx512 names the class instead, for the whole process: to compare with ORT's
// output from another machine (tests read it from their reference data).
#pragma once

#include <optional>
#include <string_view>

namespace qrt {

enum class OrtCpu { kAvx2, kAvx512F };

// QRT_ORT_CPU if set to a class name, else this machine's class. Read on each call (plan time).
OrtCpu ReferenceOrtCpu();

// "avx2" or "avx512"; and back (nullopt for another name).
std::string_view OrtCpuName(OrtCpu cpu);
std::optional<OrtCpu> OrtCpuFromName(std::string_view name);

}  // namespace qrt
