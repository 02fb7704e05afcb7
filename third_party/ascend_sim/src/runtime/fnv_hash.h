// 64-bit FNV-1a, the hash of plan keys (compile_cache.cpp) and of the
// persistent compile cache's file names (disk_cache.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ascend_sim {

struct FnvHasher {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    const unsigned char* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= c[i];
      h *= 1099511628211ull;
    }
  }
  template <typename T>
  void pod(const T& v) {
    bytes(&v, sizeof v);
  }
  void str(const std::string& s) {
    pod(s.size());
    bytes(s.data(), s.size());
  }
  void shape(const std::vector<int64_t>& s) {
    pod(s.size());
    if (!s.empty()) bytes(s.data(), s.size() * sizeof(int64_t));
  }
};

}  // namespace ascend_sim
