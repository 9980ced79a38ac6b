// qrt:MatMulInt4's contract: MatMul(A, DequantizeLinear(W)) for a constant 2-D int4/uint4 W
// ([K, N]) whose codes stay packed two per byte. fuse-dq-int4-matmul builds it,
// ops/matmul_int4.cc runs it: slices of B's columns are dequantized as DequantizeLinear does,
// float(q - zp) * scale, into a small panel and multiplied by the ordered GEMM exactly as
// MatMul multiplies the whole dequantized B (the same k blocks, the same one-row order), so the
// output is the unfused graph's, bit for bit. Attributes: n (N), signed (1: int4 codes),
// axis and block_size (the DequantizeLinear's, for the scale's layout). One output, Y.
#pragma once

namespace qrt::mmi4 {

enum Input : int {
  kA = 0,          // float32 [..., M, K] or [K]
  kCodes = 1,      // uint8 [K, ceil(N / 2)]: column 2c in the low nibble of byte c, 2c + 1 in the high
  kScale = 2,      // float32: one value, per axis ([K] or [N]) or blocked along an axis
  kZeroPoint = 3,  // optional: int8 (signed) or uint8, one code per byte, the scale's shape
  kInputCount = 4,
};

}  // namespace qrt::mmi4
