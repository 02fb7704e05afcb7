#include "csrc/aten/common/StructuredOutputs.h"

#include <ATen/native/Resize.h>

#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUFunctions.h"

namespace torch_npu {
namespace {

c10::Device deviceOf(const at::Tensor& like, const at::TensorOptions& options) {
  if (options.has_device() && options.device().type() == c10::DeviceType::PrivateUse1) return options.device();
  if (like.defined() && like.device().type() == c10::DeviceType::PrivateUse1) return like.device();
  return c10::Device(c10::DeviceType::PrivateUse1, current_device());
}

}  // namespace

at::Tensor emptyStructuredOutput(const at::Tensor& like, at::IntArrayRef sizes, const at::TensorOptions& options) {
  const auto dtype = c10::typeMetaToScalarType(options.dtype());
  const auto device = deviceOf(like, options);
  if (like.defined()) return emptyFollowingFormat(like, sizes, dtype, device);
  return emptyNpu(sizes, dtype, device);
}

void checkStructuredInplace(const at::Tensor& self, at::IntArrayRef sizes, const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == self.dtype(), "Bad in-place call: input tensor dtype ", self.dtype(),
              " and output tensor dtype ", options.dtype(), " should match");
  TORCH_CHECK(!options.has_device() || options.device() == self.device(), "Bad in-place call: input tensor device ",
              self.device(), " and output tensor device ", options.device(), " should match");
  TORCH_CHECK(sizes == self.sizes(), "Bad in-place call: input tensor size ", self.sizes(), " and output tensor size ",
              sizes, " should match");
}

void resizeStructuredOut(const at::Tensor& out, at::IntArrayRef sizes, const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ", options.dtype(), ", but got ",
              out.dtype(), " instead");
  TORCH_CHECK(!options.has_device() || options.device() == out.device(), "Expected out tensor to have device ",
              options.device(), ", but got ", out.device(), " instead");
  at::native::resize_output(out, sizes);
}

}  // namespace torch_npu
