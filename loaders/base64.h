// RFC 4648 base64 (standard alphabet, '=' padding), for JSON tensor data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/status.h"

namespace qrt {

std::string Base64Encode(const void* data, size_t size);
// Rejects characters outside the alphabet and bad padding; whitespace is not allowed.
StatusOr<std::vector<uint8_t>> Base64Decode(std::string_view text);

}  // namespace qrt
