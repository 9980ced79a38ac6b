// qrt:LookupTable's contract: fuse-qdq-unary builds it, ops/lookup_table.cc runs it.
//   y[i] = table[byte(x[i])]                  table of shape [256]
//   y[i] = table[c(i)][byte(x[i])]            table of shape [C, 256], attribute axis: c(i) is
//                                             i's index on that axis of x, whose size is C
#pragma once

namespace qrt::lut {

enum Input : int {
  kX = 0,      // uint8 or int8
  kTable = 1,  // 256 entries (or C rows of 256) of the output's 8-bit type, by x's byte pattern
  kInputCount = 2,
};

}  // namespace qrt::lut
