// c10_npu streams: the NPU's stream API as torch_npu spells it.
//
//   c10_npu::NPUStream s = c10_npu::getCurrentNPUStream();
//   aclrtStream handle = s.stream();   // for the simulator's ACL runtime calls
#pragma once

#include "csrc/core/NPUStream.h"

namespace c10_npu {

using ::torch_npu::getCurrentNPUStream;
using ::torch_npu::getDefaultNPUStream;
using ::torch_npu::getStreamFromPool;
using ::torch_npu::NPUStream;
using ::torch_npu::setCurrentNPUStream;

}  // namespace c10_npu
