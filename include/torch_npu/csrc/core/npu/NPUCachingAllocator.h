// The NPU's caching allocator from C++, as torch_npu spells it (c10_npu::NPUCachingAllocator).
//
//   c10::Allocator* a = c10_npu::NPUCachingAllocator::get();
//   c10_npu::NPUCachingAllocator::recordStream(t.storage().data_ptr(), side_stream);
//   c10_npu::NPUCachingAllocator::emptyCache();
#pragma once

#include "csrc/core/NPUCachingAllocator.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"

namespace c10_npu {
namespace NPUCachingAllocator {

using ::torch_npu::allocator::DeviceStats;
using ::torch_npu::allocator::emptyCache;
using ::torch_npu::allocator::get;
using ::torch_npu::allocator::getDeviceStats;
using ::torch_npu::allocator::recordStream;
using ::torch_npu::allocator::resetPeakStats;

}  // namespace NPUCachingAllocator
}  // namespace c10_npu
