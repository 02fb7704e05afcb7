// npu_alloc_float_status / npu_get_float_status / npu_clear_float_status: the
// device's sticky fp16 overflow flag (saturation mode, Ascend910A), as
// Ascend's torch_npu exposes it: an 8-element float32 status tensor (from
// npu_alloc_float_status) whose element 0 is non-zero after an overflow.
// The loss-scaling loop of torch_npu code:
//   status = torch_npu.npu_alloc_float_status(x)
//   torch_npu.npu_get_float_status(status)[0] != 0  ->  skip the step
//   torch_npu.npu_clear_float_status(status)
#include <ATen/ATen.h>

#include "NPUCustomFunctions.h"
#include "csrc/core/DeviceOptions.h"

namespace at_npu {
namespace native {
namespace {

constexpr int64_t kFloatStatusSize = 8;  // elements, as in torch_npu

c10::DeviceIndex statusDevice(const at::Tensor& self, const char* op) {
  TORCH_CHECK(self.device().type() == c10::DeviceType::PrivateUse1, op, " expects an npu tensor, got one on ",
              self.device());
  return self.device().index();
}

// get / clear take the status tensor of npu_alloc_float_status.
c10::DeviceIndex statusTensorDevice(const at::Tensor& self, const char* op) {
  TORCH_CHECK(self.scalar_type() == at::kFloat && self.numel() == kFloatStatusSize, op, " expects the ",
              kFloatStatusSize, "-element float32 status tensor of torch_npu.npu_alloc_float_status, got a ",
              self.scalar_type(), " tensor of shape ", self.sizes());
  return statusDevice(self, op);
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_alloc_float_status(const at::Tensor& self) {
  statusDevice(self, "npu_alloc_float_status");
  return at::zeros({kFloatStatusSize}, self.options().dtype(at::kFloat));
}

at::Tensor NPUCustomFunctions::npu_get_float_status(const at::Tensor& self) {
  const auto device = statusTensorDevice(self, "npu_get_float_status");
  at::Tensor status = at::zeros({kFloatStatusSize});
  status[0] = torch_npu::readOverflowFlag(device) ? 1.0f : 0.0f;
  return status.to(self.device());
}

at::Tensor NPUCustomFunctions::npu_clear_float_status(const at::Tensor& self) {
  torch_npu::clearOverflowFlag(statusTensorDevice(self, "npu_clear_float_status"));
  return at::zeros({kFloatStatusSize}, self.options().dtype(at::kFloat));
}

}  // namespace native
}  // namespace at_npu
