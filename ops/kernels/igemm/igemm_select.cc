// The tile kernels of igemm.h and the choice among them, made once when a graph is compiled.
#include "ops/kernels/igemm/igemm.h"
#include "runtime/kernel_isa.h"

namespace qrt {

IgemmKernel RefIgemmKernel() { return {ref::IgemmTile, 4, 1}; }
IgemmKernel Avx2IgemmKernel() { return {avx2::IgemmTile, 6, 1}; }
IgemmKernel Avx512IgemmKernel() { return {avx512::IgemmTile, 8, 2}; }
IgemmKernel Avx512VnniIgemmKernel() { return {avx512vnni::IgemmTile, 8, 2}; }

IgemmKernel SelectIgemmKernel(Isa isa) {
  if (CanUseAvx512Vnni(isa)) return NoteKernelIsa(Isa::kAvx512Vnni), Avx512VnniIgemmKernel();
  if (CanUseAvx512(isa)) return NoteKernelIsa(Isa::kAvx512), Avx512IgemmKernel();
  if (CanUseAvx2(isa)) return NoteKernelIsa(Isa::kAvx2), Avx2IgemmKernel();
  return RefIgemmKernel();
}

}  // namespace qrt
