// npu::npu_dropout through the dispatcher (so autograd records it).
#pragma once

#include <ATen/ATen.h>

#include <tuple>

namespace at_npu {
namespace native {

std::tuple<at::Tensor, at::Tensor> callNpuDropout(const at::Tensor& self, double p);

}  // namespace native
}  // namespace at_npu
