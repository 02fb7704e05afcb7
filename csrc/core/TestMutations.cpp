#include "csrc/core/TestMutations.h"

#if TORCH_NPU_TEST_MUTATIONS

#include <cstdlib>
#include <string>

namespace torch_npu {

bool testMutation(const char* mutation) {
  static const std::string active = [] {
    const char* env = std::getenv("TORCH_NPU_TEST_MUTATION");
    return std::string(env ? env : "");
  }();
  return !active.empty() && active == mutation;
}

}  // namespace torch_npu

#endif  // TORCH_NPU_TEST_MUTATIONS
