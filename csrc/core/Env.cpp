#include "csrc/core/Env.h"

#include <cstdlib>
#include <cstring>

namespace torch_npu {

bool envFlag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strcmp(v, "0") != 0;
}

}  // namespace torch_npu
