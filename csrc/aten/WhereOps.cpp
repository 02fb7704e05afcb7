// where(condition, self, other): SelectV2 with three-way broadcasting.
#include <ATen/ExpandUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/ElementwiseOps.h"

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
  });
}

at::Tensor NPUNativeFunctions::where(const at::Tensor& condition, const at::Tensor& self, const at::Tensor& other) {
  const auto sizes = at::infer_size(at::infer_size(condition.sizes(), self.sizes()), other.sizes());
  at::Tensor out = torch_npu::emptyNpu(sizes, at::result_type(self, other),
                                       torch_npu::opDevice({&condition, &self, &other}));
  return where_out(condition, self, other, out);
}

}  // namespace native
}  // namespace at_npu
