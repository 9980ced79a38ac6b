// qrt LookupTable run kernels: y[i] = table[x[i]] over bytes (256-entry table).
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using LookupTableFn = void (*)(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y);

namespace ref {
void LookupTable(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y);
}  // namespace ref
namespace avx512 {
// AVX-512 BW + VBMI: the table in four registers, two VPERMT2B and a blend per 64 bytes.
void LookupTable(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y);
}  // namespace avx512

// Isa::kAvx2 picks the AVX-512 kernel where the CPU has AVX-512 BW and VBMI (AVX2 has no
// byte permute across a 256-entry table that beats the scalar loop); else the reference.
LookupTableFn SelectLookupTable(Isa isa);

}  // namespace qrt
