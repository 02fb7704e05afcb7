// npu_format_cast / npu_format_cast_: change the storage format of a tensor.
// See Note [Private formats and ordinary ops].
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

}  // namespace native
}  // namespace at_npu
