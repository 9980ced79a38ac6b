// Helpers shared by the kernel tests: seeded RNG, bit-exact comparison, ISA checks.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/status.h"

namespace qrt::testing {

inline bool HaveAvx2() { return EffectiveIsa(Isa::kAvx2) == Isa::kAvx2; }

// The members of one kernel family this CPU runs, reference first: the AVX2 kernel where the
// CPU has AVX2, the AVX-512 one (if the family has it) where it has AVX-512F. Tests run every
// member and compare it with the reference.
template <class Fn>
std::vector<Fn> KernelsThisCpuRuns(Fn ref, Fn avx2, Fn avx512 = nullptr) {
  std::vector<Fn> f{ref};
  if (HaveAvx2()) f.push_back(avx2);
  if (avx512 != nullptr && DetectCpuFeatures().avx512) f.push_back(avx512);
  return f;
}

#define QRT_REQUIRE_AVX2() \
  if (!::qrt::testing::HaveAvx2()) GTEST_SKIP() << "CPU lacks AVX2/FMA"

// An environment variable set to `value` for the object's lifetime, then restored (or unset).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_)
      setenv(name_, old_->c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// Fixed default seed; QRT_TEST_SEED overrides it. Tests print it on failure.
inline uint32_t TestSeed() {
  const char* s = std::getenv("QRT_TEST_SEED");
  return s ? static_cast<uint32_t>(std::strtoul(s, nullptr, 10)) : 20240611u;
}

// Index of the first differing byte, or -1. NaN-aware for f32: any two NaNs compare equal.
inline int64_t FirstDiff(const void* x, const void* y, size_t bytes, bool is_f32) {
  const auto* a = static_cast<const uint8_t*>(x);
  const auto* b = static_cast<const uint8_t*>(y);
  if (!is_f32) {
    for (size_t i = 0; i < bytes; ++i) {
      if (a[i] != b[i]) return static_cast<int64_t>(i);
    }
    return -1;
  }
  for (size_t i = 0; i + 4 <= bytes; i += 4) {
    float fa, fb;
    std::memcpy(&fa, a + i, 4);
    std::memcpy(&fb, b + i, 4);
    if (std::isnan(fa) && std::isnan(fb)) continue;
    if (std::memcmp(a + i, b + i, 4) != 0) return static_cast<int64_t>(i / 4);
  }
  return -1;
}

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

inline float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace qrt::testing

#define QRT_ASSERT_OK(expr)                       \
  do {                                            \
    const ::qrt::Status qrt_s_ = (expr);          \
    ASSERT_TRUE(qrt_s_.ok()) << qrt_s_.message(); \
  } while (0)

// Asserts that a Status/StatusOr is an error whose message contains `needle`.
#define QRT_EXPECT_ERROR(expr, needle)                                               \
  do {                                                                               \
    const ::qrt::Status qrt_s_ = ::qrt::testing::ToStatus(expr);                     \
    EXPECT_FALSE(qrt_s_.ok()) << "expected an error containing: " << (needle);       \
    EXPECT_NE(qrt_s_.message().find(needle), std::string::npos) << qrt_s_.message(); \
  } while (0)

namespace qrt::testing {
inline Status ToStatus(const Status& s) { return s; }
template <class T>
Status ToStatus(const StatusOr<T>& s) {
  return s.status();
}
}  // namespace qrt::testing
