// PYTORCH_NPU_ALLOC_CONF: the caching allocator's options, in the form
// torch_npu (and PYTORCH_CUDA_ALLOC_CONF) takes them: "key:value,key:value".
//
// Note [Allocator options]
//   max_split_size_mb:N            cached blocks of N MiB or more are never split: a request
//                                  below N does not take one, a request of N or more takes one
//                                  only if it wastes less than 20 MiB (kLargeBuffer). Fewer
//                                  large blocks are carved up by small tensors (fragmentation)
//                                  at the cost of more segments. N must exceed 20.
//   garbage_collection_threshold:T with set_per_process_memory_fraction(f): before mapping a
//                                  segment that would take the reserved bytes above T x the
//                                  allowed bytes, unused cached segments are returned to the
//                                  device, largest first, until it would not (PyTorch frees
//                                  the least recently used first). 0 < T < 1.
//   expandable_segments:True|False True: each stream's pools grow one segment, a range of device
//                                  addresses mapped to HBM granule by granule as needed (Note
//                                  [Expandable segments] in NPUCachingAllocator.cpp). Default False.
// Any other key, or a malformed value, raises naming the variable and the key. The variable is
// read once, when the allocator first serves a request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace torch_npu {
namespace allocator {

struct AllocatorConfig {
  size_t max_split_size = SIZE_MAX;         // bytes; SIZE_MAX: every block may be split
  double garbage_collection_threshold = 0;  // 0: off
  bool expandable_segments = false;
};

// Parses `text` (the variable's value); raises c10::Error naming the bad key or value.
AllocatorConfig parseAllocatorConfig(const std::string& text);
// PYTORCH_NPU_ALLOC_CONF, parsed on first use.
const AllocatorConfig& allocatorConfig();

}  // namespace allocator
}  // namespace torch_npu
