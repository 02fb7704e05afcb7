// masked_select and nonzero: outputs sized by the data. The count is computed
// on the NPU (a sum of the mask) and read back, then MaskedSelect / NonZero
// run with that size — see Note [Ops whose output size depends on the data]
// in the simulator's masked_select.cpp. Like on real devices these ops
// synchronize the host with the device.
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

int64_t countTrue(const at::Tensor& mask) { return mask.sum().item<int64_t>(); }

}  // namespace

at::Tensor& NPUNativeFunctions::masked_select_out(const at::Tensor& self, const at::Tensor& mask, at::Tensor& out) {
  TORCH_CHECK(mask.scalar_type() == at::kBool || mask.scalar_type() == at::kByte,
              "masked_select: expected BoolTensor for mask, got ", mask.scalar_type());
  const auto sizes = at::infer_size(self.sizes(), mask.sizes());
  const at::Tensor m = mask.to(at::kBool).expand(sizes).contiguous();
  const int64_t count = countTrue(m);
  return torch_npu::runInto("MaskedSelect", out, {count}, self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self.expand(sizes)).Input(m);
  });
}
at::Tensor NPUNativeFunctions::masked_select(const at::Tensor& self, const at::Tensor& mask) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return masked_select_out(self, mask, out);
}

at::Tensor& NPUNativeFunctions::nonzero_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(out.scalar_type() == at::kLong, "nonzero: expected out of dtype int64, got ", out.scalar_type());
  const at::Tensor m = self.scalar_type() == at::kBool ? self : self.ne(0);
  const int64_t count = countTrue(m);
  return torch_npu::runInto("NonZero", out, {count, self.dim()}, at::kLong,
                            [&](torch_npu::OpCommand& cmd) { cmd.Input(m); });
}
at::Tensor NPUNativeFunctions::nonzero(const at::Tensor& self) {
  at::Tensor out = torch_npu::emptyNpu({0}, at::kLong, self.device());
  return nonzero_out(self, out);
}

// masked_scatter_ (masked_select's backward): self[mask] = source[:count],
// scattered at the mask's flat positions.
at::Tensor& NPUNativeFunctions::masked_scatter_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& source) {
  TORCH_CHECK(mask.scalar_type() == at::kBool || mask.scalar_type() == at::kByte,
              "masked_scatter_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "masked_scatter_: expected self and source to have same "
              "dtypes but got ", self.scalar_type(), " and ", source.scalar_type());
  const at::Tensor positions = nonzero(mask.to(at::kBool).expand(self.sizes()).reshape({-1})).reshape({-1});
  const int64_t count = positions.numel();
  TORCH_CHECK(source.numel() >= count, "masked_scatter_: expected source to have at least ", count,
              " elements (the number of true mask entries), got ", source.numel());
  const at::Tensor values = source.reshape({-1}).narrow(0, 0, count);
  at::Tensor flat = self.is_contiguous() ? self.view({-1}) : self.contiguous().view({-1});
  flat.scatter_(0, positions, values);
  if (!flat.is_alias_of(self)) self.copy_(flat.view(self.sizes()));
  return self;
}

}  // namespace native
}  // namespace at_npu
