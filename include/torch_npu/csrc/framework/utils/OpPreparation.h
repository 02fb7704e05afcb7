// Output allocation for extension kernels, as torch_npu spells it.
//
//   at::Tensor out = at_npu::native::OpPreparation::apply_tensor(self);           // like self
//   at::Tensor idx = at_npu::native::OpPreparation::apply_tensor(sizes, self.options().dtype(at::kInt), self);
//
// Results are contiguous NPU tensors in the base format of their rank, from the caching allocator,
// on the device of the tensor they are made like.
#pragma once

#include <ATen/ATen.h>

namespace at_npu {
namespace native {

class OpPreparation {
 public:
  static at::Tensor apply_tensor(const at::Tensor& like) { return apply_tensor(like.sizes(), like.options(), like); }
  static at::Tensor apply_tensor(c10::IntArrayRef sizes, const c10::TensorOptions& options, const at::Tensor& like) {
    TORCH_CHECK(like.device().type() == c10::DeviceType::PrivateUse1,
                "OpPreparation::apply_tensor: the tensor to make the result like is on ", like.device(),
                ", not on the NPU");
    return at::empty(sizes, options.device(like.device()).memory_format(c10::MemoryFormat::Contiguous));
  }
  static at::Tensor apply_tensor_without_format(c10::IntArrayRef sizes, const c10::TensorOptions& options) {
    TORCH_CHECK(options.device().type() == c10::DeviceType::PrivateUse1,
                "OpPreparation::apply_tensor_without_format: the options' device is ", options.device(),
                ", not an NPU");
    return at::empty(sizes, options);
  }
  static at::Tensor apply_tensor_without_format(const at::Tensor& like) {
    return apply_tensor_without_format(like.sizes(), like.options());
  }
};

}  // namespace native
}  // namespace at_npu
