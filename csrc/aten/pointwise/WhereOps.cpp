// where(condition, self, other): SelectV2 with three-way broadcasting.
#include <ATen/ExpandUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace at_npu {
namespace native {

at::Tensor& NPUNativeFunctions::where_out(const at::Tensor& condition, const at::Tensor& self,
                                          const at::Tensor& other, at::Tensor& out) {
  TORCH_CHECK(condition.scalar_type() == at::kBool || condition.scalar_type() == at::kByte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              condition.scalar_type());
  const auto dtype = at::result_type(self, other);
  const auto sizes = at::infer_size(at::infer_size(condition.sizes(), self.sizes()), other.sizes());
  return torch_npu::runInto("SelectV2", out, sizes, dtype, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, condition, at::kBool);
    torch_npu::addInputAs(cmd, self, dtype);
    torch_npu::addInputAs(cmd, other, dtype);
    cmd.FormatAgnostic();
  });
}

at::Tensor NPUNativeFunctions::where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  const auto sizes = at::infer_size(at::infer_size(condition.sizes(), self.sizes()), other.sizes());
  at::Tensor out = torch_npu::emptyFollowingFormat(self, sizes, at::result_type(self, other),
                                                   torch_npu::opDevice({&condition, &self, &other}));
  return where_out(condition, self, other, out);
}

// masked_fill_(mask, value): SelectV2(mask, value, self) written back into self
// (autograd of maximum/minimum uses it).
at::Tensor& NPUNativeFunctions::masked_fill_(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  const auto dtype = self.scalar_type();
  return torch_npu::runInto("SelectV2", self, self.sizes(), dtype, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, mask, at::kBool);
    cmd.InputScalar(value, dtype);
    torch_npu::addInputAs(cmd, self, dtype);
    cmd.FormatAgnostic();
  });
}

at::Tensor& NPUNativeFunctions::masked_fill_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  TORCH_CHECK(mask.scalar_type() == at::kBool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
  const auto dtype = self.scalar_type();
  return torch_npu::runInto("SelectV2", self, self.sizes(), dtype, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, mask, at::kBool);
    torch_npu::addInputAs(cmd, value, dtype);
    torch_npu::addInputAs(cmd, self, dtype);
    cmd.FormatAgnostic();
  });
}

}  // namespace native
}  // namespace at_npu
