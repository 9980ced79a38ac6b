// IEEE binary16 and bfloat16 conversions (round to nearest even; NaN preserved).
#pragma once

#include <cstdint>
#include <cstring>

namespace qrt {

inline uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float BFloat16ToFloat(uint16_t h) { return BitsToFloat(uint32_t(h) << 16); }

inline uint16_t FloatToBFloat16(float f) {
  uint32_t u = FloatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return uint16_t((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  if (exp == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    if (mant == 0) return BitsToFloat(sign);
    // Subnormal half: normalize.
    int e = -1;
    do {
      mant <<= 1;
      ++e;
    } while ((mant & 0x400u) == 0);
    mant &= 0x3ffu;
    return BitsToFloat(sign | uint32_t(127 - 15 - e) << 23 | (mant << 13));
  }
  return BitsToFloat(sign | ((exp + 127 - 15) << 23) | (mant << 13));
}

inline uint16_t FloatToHalf(float f) {
  const uint32_t u = FloatBits(f);
  const uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  const uint32_t absu = u & 0x7fffffffu;
  if (absu > 0x7f800000u) return uint16_t(sign | 0x7e00u);   // NaN
  if (absu >= 0x477ff000u) return uint16_t(sign | 0x7c00u);  // overflow (incl. inf) after rounding
  if (absu < 0x38800000u) {                                  // result is subnormal or zero
    if (absu < 0x33000000u) return sign;                     // < half of smallest subnormal
    const uint32_t exp = absu >> 23;
    const uint32_t mant = (absu & 0x7fffffu) | 0x800000u;
    // value = mant * 2^(exp-150); half subnormal unit is 2^-24 => q = mant * 2^(exp-126)
    const uint32_t s = 126 - exp;  // right shift amount, 1..24
    uint32_t q = mant >> s;
    const uint32_t rem = mant & ((1u << s) - 1u);
    const uint32_t halfway = 1u << (s - 1);
    if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
    return uint16_t(sign | q);
  }
  uint32_t r = absu + 0xfffu + ((absu >> 13) & 1u);  // round mantissa to 10 bits, ties to even
  return uint16_t(sign | (((r >> 13) - ((127 - 15) << 10)) & 0x7fffu));
}

}  // namespace qrt
