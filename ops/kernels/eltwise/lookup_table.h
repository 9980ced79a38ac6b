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
namespace avx2 {
// AVX2: 16 rows of the table by VPSHUFB, the row chosen by a tree of VPBLENDVB per 32 bytes.
void LookupTable(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y);
}  // namespace avx2

// The AVX-512 kernel where the ceiling and the CPU allow AVX-512 BW and VBMI, else AVX2's, else
// the reference.
LookupTableFn SelectLookupTable(Isa isa);

}  // namespace qrt
