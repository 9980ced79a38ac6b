// <immintrin.h> for the *_avx512.cc kernels. GCC 12's avx512fintrin.h builds its "undefined"
// pass-through vectors from themselves, which -Wmaybe-uninitialized then reports at every
// inlined conversion; those values are never read, so the warning is silenced here only.
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
