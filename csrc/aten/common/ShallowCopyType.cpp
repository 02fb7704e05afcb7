// _has_compatible_shallow_copy_type, registered on AutogradPrivateUse1 (yaml "autograd:").
//
// Note [Parameters keep their identity across devices]
// `param.data = new` (Tensor::set_data) and nn.Module._apply, behind .to() / .npu() / .cpu() /
// .half(), ask this op whether `new` may take the place of `param` in memory: set_data then
// shallow-copies storage, sizes, strides, dtype, device and dispatch keys into the same
// TensorImpl, so the Python object, its autograd meta (hooks, requires_grad) and everything keyed
// on it (optimizer param groups and state, id()-keyed dicts, weight tying) stay valid. PyTorch
// 1.13's answer (TensorImpl::has_compatible_shallow_copy_type, inline in c10) calls a tensor
// "dense" only on CPU, CUDA, MPS, HIP and XPU, so between CPU and NPU it says no and _apply wraps
// every moved tensor in a *new* Parameter: an optimizer built before model.npu() keeps stepping
// the old CPU tensors and the NPU weights never change, silently.
//
// A dense NPU tensor is a plain c10::TensorImpl over an NPUStorageImpl (the storage carries the
// format descriptor), with nothing in the TensorImpl that a shallow copy would lose, so it is as
// compatible with a dense CPU tensor as a CUDA one is. This kernel is reached whenever either
// operand is an NPU tensor (AutogradPrivateUse1 outranks every other backend in the key set) and
// gives PyTorch's own answer with PrivateUse1 counted among the dense backends.
#include <ATen/ATen.h>

#include "PrivateUse1NativeFunctions.h"

namespace at_npu {
namespace native {
namespace {

bool isDense(c10::DispatchKeySet keys) {
  constexpr auto kDenseBackends = c10::DispatchKeySet({c10::BackendComponent::CPUBit,
                                                      c10::BackendComponent::CUDABit,
                                                      c10::BackendComponent::MPSBit,
                                                      c10::BackendComponent::HIPBit,
                                                      c10::BackendComponent::XPUBit,
                                                      c10::BackendComponent::PrivateUse1Bit});
  return keys.has_any(c10::DispatchKeySet(c10::DispatchKey::Dense)) && keys.has_any(kDenseBackends);
}

}  // namespace

bool NPUNativeFunctions::_has_compatible_shallow_copy_type(const at::Tensor& self, const at::Tensor& from) {
  return self.unsafeGetTensorImpl()->has_compatible_shallow_copy_type(from.key_set()) ||
         (isDense(self.key_set()) && isDense(from.key_set()));
}

}  // namespace native
}  // namespace at_npu
