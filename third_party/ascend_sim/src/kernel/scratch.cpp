// See Note [Reused scratch] in kernel/scratch.h.
#include "kernel/scratch.h"

#include <algorithm>
#include <vector>

namespace ascend_sim {

float* threadScratch(ScratchSlot slot, int64_t n, bool zero) {
  static thread_local std::vector<float> bufs[static_cast<int>(ScratchSlot::kCount)];
  std::vector<float>& b = bufs[static_cast<int>(slot)];
  if (b.size() < static_cast<size_t>(n)) b.resize(static_cast<size_t>(n));
  if (zero) std::fill(b.begin(), b.begin() + n, 0.0f);
  return b.data();
}

}  // namespace ascend_sim
