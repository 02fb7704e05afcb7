// npu_format_cast / npu_format_cast_: change the storage format of a tensor.
// See Note [Private formats and ordinary ops].
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/NPUStorageImpl.h"

namespace at_npu {
namespace native {
namespace {

aclFormat targetFormat(const at::Tensor& self, int64_t acl_format) {
  TORCH_CHECK(self.device().type() == c10::DeviceType::PrivateUse1, "npu_format_cast: expected an npu tensor, got one on ",
              self.device());
  return torch_npu::effectiveFormat(torch_npu::checkFormatId(acl_format), self.sizes());
}

bool isWholeStorageIn(const at::Tensor& self, aclFormat format) {
  const auto* desc = torch_npu::storageDesc(self);
  return desc && desc->npu_format == format && self.storage_offset() == 0 && self.is_contiguous() &&
         self.sizes().equals(desc->base_sizes);
}

bool storageIsIn(const at::Tensor& self, aclFormat format) {
  const auto* desc = torch_npu::storageDesc(self);
  return desc && desc->npu_format == format;
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_format_cast(const at::Tensor& self, int64_t acl_format) {
  const aclFormat format = targetFormat(self, acl_format);
  if (isWholeStorageIn(self, format)) return self;
  return torch_npu::formatCast(self, format);
}

at::Tensor& NPUCustomFunctions::npu_format_cast_(at::Tensor& self, int64_t acl_format) {
  const aclFormat format = targetFormat(self, acl_format);
  if (storageIsIn(self, format)) return self;
  torch_npu::castStorageInPlace(self, format);
  return self;
}

namespace {

// npu_format_cast is differentiable, as in torch_npu: the values do not
// change, so the gradient passes through (the logical tensor is the same).
class FormatCastFunction : public torch::autograd::Function<FormatCastFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext*, const at::Tensor& self, int64_t acl_format) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    return NPUCustomFunctions::npu_format_cast(self, acl_format);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext*,
                                                 torch::autograd::variable_list grads) {
    return {grads[0], at::Tensor()};
  }
};

at::Tensor formatCastWithAutograd(const at::Tensor& self, int64_t acl_format) {
  return FormatCastFunction::apply(self, acl_format);
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) { m.impl("npu_format_cast", TORCH_FN(formatCastWithAutograd)); }

}  // namespace native
}  // namespace at_npu
