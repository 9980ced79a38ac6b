// qrt:LookupTable's contract: fuse-qdq-unary builds it, ops/lookup_table.cc runs it.
// y[i] = table[byte(x[i])]; no attributes.
#pragma once

namespace qrt::lut {

enum Input : int {
  kX = 0,      // uint8 or int8
  kTable = 1,  // 256 entries of the output's 8-bit type, indexed by x's byte pattern
  kInputCount = 2,
};

}  // namespace qrt::lut
