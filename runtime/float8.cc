#include "runtime/float8.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace qrt {
namespace {

struct Format {
  int mantissa_bits;
  int bias;
  int max_exponent;  // largest biased exponent of a finite value
  uint8_t max_code;  // largest finite magnitude
  bool fnuz;         // 0x80 is NaN; no negative zero, no infinity
  bool e5m2;         // has infinity (0x7C)
};

Format FormatOf(DataType t) {
  switch (t) {
    case DataType::kFloat8E4M3FN:
      return {3, 7, 15, 0x7E, false, false};
    case DataType::kFloat8E4M3FNUZ:
      return {3, 8, 15, 0x7F, true, false};
    case DataType::kFloat8E5M2:
      return {2, 15, 30, 0x7B, false, true};
    default:  // kFloat8E5M2FNUZ
      return {2, 16, 31, 0x7F, true, false};
  }
}

// What a value too large for the format (or an infinity) becomes.
uint8_t Overflow(const Format& f, uint8_t sign, bool saturate) {
  if (saturate) return uint8_t(sign | f.max_code);
  if (f.fnuz) return 0x80;
  return uint8_t(sign | (f.e5m2 ? 0x7C : 0x7F));
}

}  // namespace

float Float8ToFloat(DataType t, uint8_t code) {
  const Format f = FormatOf(t);
  const bool negative = (code & 0x80) != 0;
  const int e = (code & 0x7F) >> f.mantissa_bits;
  const int m = code & ((1 << f.mantissa_bits) - 1);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  if (f.fnuz && code == 0x80) return -nan;  // ONNX Runtime's bits: 0xffc00000
  if (t == DataType::kFloat8E4M3FN && (code & 0x7F) == 0x7F) return negative ? -nan : nan;
  if (f.e5m2 && e == 31) {
    if (m != 0) return negative ? -nan : nan;
    return negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  }
  // Subnormal: m * 2^(1 - bias - M); normal: (2^M + m) * 2^(e - bias - M). Both exact in float.
  const float v = e == 0 ? std::ldexp(float(m), 1 - f.bias - f.mantissa_bits)
                         : std::ldexp(float((1 << f.mantissa_bits) + m), e - f.bias - f.mantissa_bits);
  return negative ? -v : v;
}

uint8_t FloatToFloat8(DataType t, float x, bool saturate) {
  const Format f = FormatOf(t);
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  const uint8_t sign = uint8_t((bits >> 24) & 0x80);
  const int e = int((bits >> 23) & 0xFF);  // float's biased exponent
  const uint32_t m = bits & 0x7FFFFF;
  if (e == 0xFF) {
    if (m != 0) return f.fnuz ? 0x80 : uint8_t(sign | 0x7F);  // NaN
    return Overflow(f, sign, saturate);                       // infinity
  }
  const uint8_t zero = f.fnuz ? 0 : sign;
  const int M = f.mantissa_bits;
  const int ex = e - 127 + f.bias;     // the target's biased exponent
  if (e == 0 || ex < -M) return zero;  // below half the smallest subnormal
  if (ex > f.max_exponent) return Overflow(f, sign, saturate);
  uint32_t code;
  uint32_t round_bit, sticky;
  if (ex >= 1) {  // normal
    code = uint32_t(ex) << M | m >> (23 - M);
    round_bit = (m >> (22 - M)) & 1;
    sticky = m & ((1u << (22 - M)) - 1);
    if (t == DataType::kFloat8E4M3FN && code == 0x7F) {
      // ONNX Runtime truncates the NaN pattern to 448 first; it rounds up (to overflow) only
      // when the round bit is set, as it would from the odd code 0x7F.
      return round_bit ? Overflow(f, sign, saturate) : uint8_t(sign | 0x7E);
    }
  } else {                                                 // subnormal: the implicit bit shifts into the mantissa
    const int d = -ex;                                     // 0 .. M
    if (d == M) return m != 0 ? uint8_t(sign | 1) : zero;  // (0.5, 1) of the smallest step: up
    const uint32_t full = 0x800000 | m;
    const int shift = 23 - M + 1 + d;
    code = full >> shift;
    round_bit = (full >> (shift - 1)) & 1;
    sticky = full & ((1u << (shift - 1)) - 1);
  }
  if (round_bit && (sticky != 0 || (code & 1) != 0)) {
    if (code >= f.max_code) return Overflow(f, sign, saturate);
    ++code;
  }
  return uint8_t(sign | code);
}

}  // namespace qrt
