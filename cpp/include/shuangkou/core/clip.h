// Text quoted in an error message, cut to a readable length: a message names
// the bad value without echoing a megabyte of it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace shuangkou {

inline constexpr size_t kMaxQuoted = 120;

// `s` itself when at most `limit` bytes, else its first `limit` bytes and
// "... (N characters)".
inline std::string clip(std::string_view s, size_t limit = kMaxQuoted) {
  if (s.size() <= limit) return std::string(s);
  return std::string(s.substr(0, limit)) + "... (" + std::to_string(s.size()) + " characters)";
}

}  // namespace shuangkou
