#include "runtime/ort_cpu.h"

#include <cstdlib>

#include "runtime/cpu_features.h"

namespace qrt {

std::string_view OrtCpuName(OrtCpu cpu) { return cpu == OrtCpu::kAvx512F ? "avx512" : "avx2"; }

std::optional<OrtCpu> OrtCpuFromName(std::string_view name) {
  if (name == "avx2") return OrtCpu::kAvx2;
  if (name == "avx512") return OrtCpu::kAvx512F;
  return std::nullopt;
}

OrtCpu ReferenceOrtCpu() {
  if (const char* v = std::getenv("QRT_ORT_CPU"); v != nullptr) {
    if (auto cpu = OrtCpuFromName(v)) return *cpu;
  }
  return DetectCpuFeatures().avx512 ? OrtCpu::kAvx512F : OrtCpu::kAvx2;
}

}  // namespace qrt
