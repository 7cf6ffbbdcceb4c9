// 16-bit floating-point storage types (IEEE binary16 and bfloat16).
// Arithmetic converts to float; storage stays 16 bits.
#pragma once

#include <cstdint>
#include <cstring>
#include <cmath>

namespace xjit {

inline float BitsToFloat(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }
inline uint32_t FloatToBits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }

struct bf16 {
  uint16_t bits = 0;
  bf16() = default;
  bf16(float f) {  // NOLINT: implicit like a builtin float type
    uint32_t b = FloatToBits(f);
    if (std::isnan(f)) { bits = static_cast<uint16_t>((b >> 16) | 0x40); return; }
    b += 0x7FFF + ((b >> 16) & 1);  // round to nearest even
    bits = static_cast<uint16_t>(b >> 16);
  }
  operator float() const { return BitsToFloat(static_cast<uint32_t>(bits) << 16); }
};

struct f16 {
  uint16_t bits = 0;
  f16() = default;
  f16(float f) { bits = FromFloat(f); }  // NOLINT
  operator float() const { return ToFloat(bits); }

  static float ToFloat(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0x1F) return BitsToFloat(sign | 0x7F800000u | (man << 13));
    if (exp == 0) {
      if (man == 0) return BitsToFloat(sign);
      float v = std::ldexp(static_cast<float>(man), -24);
      return sign ? -v : v;
    }
    return BitsToFloat(sign | ((exp + 112) << 23) | (man << 13));
  }
  static uint16_t FromFloat(float f) {
    uint32_t b = FloatToBits(f);
    uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000);
    uint32_t abs = b & 0x7FFFFFFFu;
    if (abs >= 0x7F800000u) return sign | 0x7C00 | (abs > 0x7F800000u ? 0x200 : 0);
    if (abs >= 0x477FF000u) return sign | 0x7C00;  // rounds to inf
    if (abs < 0x38800000u) {                        // subnormal or zero in f16
      float a = BitsToFloat(abs);
      float scaled = a * 16777216.0f;  // 2^24: units of the smallest subnormal
      return sign | static_cast<uint16_t>(std::nearbyint(scaled));
    }
    uint32_t rounded = abs + 0xFFF + ((abs >> 13) & 1) - (112u << 23);
    return sign | static_cast<uint16_t>(rounded >> 13);
  }
};

}  // namespace xjit
