// Note [No silent CPU fallback]
// An aten operator without an NPU kernel must fail loudly, naming the
// operator and the backend, instead of PyTorch's generic "Could not run ...
// 'PrivateUse1'" or, worse, silently running on the CPU. A boxed fallback on
// PrivateUse1 does that. AutogradPrivateUse1 gets a fallthrough, which
// PyTorch 1.13 does not register itself (custom and c10d ops need it).
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

namespace at_npu {
namespace native {
namespace {

void notImplementedOnNpu(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, "The operator '", op.schema().operator_name(),
                              "' is not implemented for the NPU backend (torch_npu, device type 'npu'). "
                              "Please open an issue, or move the tensors to the CPU with .cpu() for this "
                              "operation.");
}

}  // namespace

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&notImplementedOnNpu>());
}

TORCH_LIBRARY_IMPL(_, AutogradPrivateUse1, m) { m.fallback(torch::CppFunction::makeFallthrough()); }

}  // namespace native
}  // namespace at_npu
