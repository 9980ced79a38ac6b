// NumPy .npy files (format versions 1.0, 2.0 and 3.0) <-> Tensor.
// Supported descrs: f2 f4 f8 i1 u1 i2 u2 i4 i8 b1, little- or big-endian (big-endian
// data is byte-swapped on read). Files are untrusted: the header is parsed with
// bounds and length limits and sizes are checked before allocating.
#pragma once

#include <cstddef>
#include <string>

#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

// Reads the .npy file at `path` into a freshly allocated tensor. Fortran-ordered
// arrays and dtypes qrt lacks give kUnsupported; malformed or truncated files give
// kInvalidArgument. Errors name the file.
StatusOr<Tensor> ReadNpy(const std::string& path);

// Parses an in-memory .npy image of `size` bytes; `what` names it in errors.
// The tensor owns a copy of the data.
StatusOr<Tensor> ParseNpy(const void* data, size_t size, const std::string& what);

// Writes `t` as a C-ordered little-endian .npy, version 1.0, with the header layout
// numpy itself writes. bfloat16 has no numpy dtype and gives kUnsupported.
Status WriteNpy(const std::string& path, const Tensor& t);

}  // namespace qrt
