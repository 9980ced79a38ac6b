#include "runtime/ort_cpu.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "runtime/cpu_features.h"

namespace qrt {

std::string_view OrtCpuName(OrtCpu cpu) { return cpu == OrtCpu::kAvx512F ? "avx512" : "avx2"; }

std::optional<OrtCpu> OrtCpuFromName(std::string_view name) {
  if (name == "avx2") return OrtCpu::kAvx2;
  if (name == "avx512" || name == "avx512-novnni") return OrtCpu::kAvx512F;
  return std::nullopt;
}

OrtCpu ReferenceOrtCpu() {
  if (const char* v = std::getenv("QRT_ORT_CPU"); v != nullptr) {
    if (auto cpu = OrtCpuFromName(v)) return *cpu;
  }
  return DetectCpuFeaturesUncapped().avx512 ? OrtCpu::kAvx512F : OrtCpu::kAvx2;
}

bool ReferenceOrtAvx512Vnni() {
  if (const char* v = std::getenv("QRT_ORT_CPU"); v != nullptr && OrtCpuFromName(v)) {
    return std::string_view(v) == "avx512";
  }
  return DetectCpuFeaturesUncapped().avx512_vnni;
}

int64_t ReferenceL2Bytes() {
  if (const char* v = std::getenv("QRT_ORT_L2_BYTES"); v != nullptr) {
    char* end = nullptr;
    const long long bytes = std::strtoll(v, &end, 10);
    if (end != v && *end == '\0' && bytes >= 0) return bytes;
  }
  const long bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return bytes > 0 ? bytes : 0;
}

bool ReferenceOrtFlashAttention() {
  if (const char* v = std::getenv("ORT_DISABLE_FLASH_ATTENTION"); v != nullptr) {
    const std::string s = v;
    if (s == "1" || s == "true" || s == "True" || s == "TRUE") return false;
  }
  return ReferenceL2Bytes() > 0;
}

}  // namespace qrt
