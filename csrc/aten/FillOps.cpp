// fill_, zero_ and arange.
#include <cmath>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/NPUTensorUtils.h"

namespace at_npu {
namespace native {

at::Tensor& NPUNativeFunctions::fill_(at::Tensor& self, const at::Scalar& value) {
  return torch_npu::runInto("Fill", self, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.InputScalar(value, self.scalar_type()).FormatAgnostic();
  });
}

at::Tensor& NPUNativeFunctions::fill_(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ", value.dim(),
              " dimensions.");
  return torch_npu::runInto("Fill", self, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, value, self.scalar_type());
    cmd.FormatAgnostic();
  });
}

at::Tensor& NPUNativeFunctions::zero_(at::Tensor& self) { return fill_(self, at::Scalar(0)); }

at::Tensor& NPUNativeFunctions::arange_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step,
                                           at::Tensor& out) {
  const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
  TORCH_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
  TORCH_CHECK(std::isfinite(xstart) && std::isfinite(xend), "unsupported range: ", xstart, " -> ", xend);
  TORCH_CHECK(((xstep > 0) && (xend >= xstart)) || ((xstep < 0) && (xend <= xstart)),
              "upper bound and larger bound inconsistent with step sign");
  int64_t size;
  if (at::isIntegralType(out.scalar_type(), false) && start.isIntegral(false) && end.isIntegral(false) &&
      step.isIntegral(false)) {
    const int64_t s = start.toLong(), e = end.toLong(), st = step.toLong();
    size = (e - s + st - (st > 0 ? 1 : -1)) / st;
  } else {
    size = static_cast<int64_t>(std::ceil((xend - xstart) / xstep));
  }
  const auto dtype = out.scalar_type();
  return torch_npu::runInto("Range", out, {size}, dtype, [&](torch_npu::OpCommand& cmd) {
    cmd.InputScalar(start, dtype).InputScalar(end, dtype).InputScalar(step, dtype);
  });
}

}  // namespace native
}  // namespace at_npu
