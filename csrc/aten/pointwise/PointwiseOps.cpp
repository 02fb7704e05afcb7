// clamp / clamp_min / clamp_max and addcmul / addcdiv (format-agnostic Vector ops).
#include <ATen/ExpandUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace at_npu {
namespace native {
namespace {

// clamp with optional bounds: ClipByValue for both, Maximum/Minimum for one.
// Computed in PyTorch's clamp dtype: self's when floating, else promoted with
// the bounds (an integer tensor clamped to 0.5 gives floats).
at::Tensor& clampInto(const at::Tensor& self, const c10::optional<at::Scalar>& min,
                      const c10::optional<at::Scalar>& max, at::Tensor& out) {
  TORCH_CHECK(min.has_value() || max.has_value(), "torch.clamp: At least one of 'min' or 'max' must not be None");
  auto dtype = self.scalar_type();
  if (!at::isFloatingType(dtype)) {
    if (min) dtype = c10::promoteTypes(dtype, at::result_type(self, *min));
    if (max) dtype = c10::promoteTypes(dtype, at::result_type(self, *max));
  }
  if (min && max) {
    return torch_npu::runInto("ClipByValue", out, self.sizes(), dtype, [&](torch_npu::OpCommand& cmd) {
      torch_npu::addInputAs(cmd, self, dtype);
      cmd.InputScalar(*min, dtype).InputScalar(*max, dtype).FormatAgnostic();
    });
  }
  const at::Tensor bound = at::native::wrapped_scalar_tensor(min ? *min : *max);
  return torch_npu::binaryOut(min ? "Maximum" : "Minimum", self, bound, dtype, dtype, out);
}

// addcmul / addcdiv: self + value * op(tensor1, tensor2), broadcasting.
at::Tensor& addcOpInto(const char* op, const at::Tensor& self, const at::Tensor& t1, const at::Tensor& t2,
                       const at::Scalar& value, at::Tensor& out) {
  const auto dtype = at::promote_types(at::result_type(self, t1), at::result_type(self, t2));
  const auto sizes = at::infer_size(at::infer_size(self.sizes(), t1.sizes()), t2.sizes());
  return torch_npu::runInto(op, out, sizes, dtype, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, self, dtype);
    torch_npu::addInputAs(cmd, t1, dtype);
    torch_npu::addInputAs(cmd, t2, dtype);
    cmd.Attr("value", value.to<float>()).FormatAgnostic();
  });
}

}  // namespace

// Structured kernels (Note [Structured NPU kernels]): these out= kernels also
// serve clamp/clamp_ and friends.
at::Tensor& NPUNativeFunctions::clamp_out(const at::Tensor& self, const c10::optional<at::Scalar>& min,
                                          const c10::optional<at::Scalar>& max, at::Tensor& out) {
  return clampInto(self, min, max, out);
}
at::Tensor& NPUNativeFunctions::clamp_min_out(const at::Tensor& self, const at::Scalar& min, at::Tensor& out) {
  return clampInto(self, min, c10::nullopt, out);
}
at::Tensor& NPUNativeFunctions::clamp_max_out(const at::Tensor& self, const at::Scalar& max, at::Tensor& out) {
  return clampInto(self, c10::nullopt, max, out);
}

at::Tensor& NPUNativeFunctions::addcmul_out(const at::Tensor& self, const at::Tensor& tensor1,
                                            const at::Tensor& tensor2, const at::Scalar& value, at::Tensor& out) {
  return addcOpInto("Addcmul", self, tensor1, tensor2, value, out);
}
at::Tensor& NPUNativeFunctions::addcdiv_out(const at::Tensor& self, const at::Tensor& tensor1,
                                            const at::Tensor& tensor2, const at::Scalar& value, at::Tensor& out) {
  return addcOpInto("Addcdiv", self, tensor1, tensor2, value, out);
}

}  // namespace native
}  // namespace at_npu
