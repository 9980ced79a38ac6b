// The CPU whose ONNX Runtime results qrt reproduces where ORT's MLAS picks kernels by CPU and
// they round differently (the softmax's exp-and-sum: docs/float-order.md). By default this
// machine as ORT sees it: its AVX-512F kernels where the CPU has AVX-512, whatever ceiling qrt's
// kernels run under (QRT_MAX_ISA and --isa limit the instructions qrt uses, not the results it
// reproduces). The environment variable QRT_ORT_CPU=avx2|avx512 names the class instead, for the
// whole process: to compare with ORT's output from another machine (tests read it from their
// reference data).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qrt {

enum class OrtCpu { kAvx2, kAvx512F };

// QRT_ORT_CPU if set to a class name, else this machine's class. Read on each call (plan time).
OrtCpu ReferenceOrtCpu();

// Whether the reference CPU (of class kAvx512F) has AVX512_VNNI, where MLAS's int8 MatMulNBits
// kernels for blocks of 128 and more lay their lanes out otherwise: QRT_ORT_CPU=avx512-novnni
// says no (its class is kAvx512F), avx512 yes, avx2 no; unset, this machine as ORT sees it.
bool ReferenceOrtAvx512Vnni();

// The L2 cache size ORT reads on the reference CPU (sysconf(_SC_LEVEL2_CACHE_SIZE)), from which
// its flash attention sizes its blocks: QRT_ORT_L2_BYTES if set, else this machine's; 0 where
// unknown (ORT then takes no flash path).
int64_t ReferenceL2Bytes();

// Whether ORT's MultiHeadAttention would take its flash path where the inputs allow it: the L2
// size is known and ORT_DISABLE_FLASH_ATTENTION (ORT's own switch, read by qrt alike) is not
// "1" or "true".
bool ReferenceOrtFlashAttention();

// "avx2" or "avx512"; and back from those and "avx512-novnni" (nullopt for another name).
std::string_view OrtCpuName(OrtCpu cpu);
std::optional<OrtCpu> OrtCpuFromName(std::string_view name);

}  // namespace qrt
