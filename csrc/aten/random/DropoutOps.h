// npu::npu_dropout through the dispatcher (so autograd records it), and the
// size of the dropout bit masks.
#pragma once

#include <ATen/ATen.h>

#include <tuple>

namespace at_npu {
namespace native {

std::tuple<at::Tensor, at::Tensor> callNpuDropout(const at::Tensor& self, double p);

// Bytes of the dropout bit mask of `numel` elements (DropOutGenMask's): ceil(numel / 128) * 16.
inline int64_t dropoutMaskBytes(int64_t numel) { return (numel + 127) / 128 * 16; }

}  // namespace native
}  // namespace at_npu
