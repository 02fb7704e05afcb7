// fill_, zero_ and the range factories: arange, range, linspace, logspace.
#include <ATen/native/Resize.h>

#include <cmath>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

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

namespace {

// PyTorch's checks of arange's and range's arguments (its messages).
void checkRangeArguments(double xstart, double xend, double xstep) {
  TORCH_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
  TORCH_CHECK(std::isfinite(xstart) && std::isfinite(xend), "unsupported range: ", xstart, " -> ", xend);
  TORCH_CHECK(((xstep > 0) && (xend >= xstart)) || ((xstep < 0) && (xend <= xstart)),
              "upper bound and larger bound inconsistent with step sign");
}

// out = start, start + step, ... (size points) by the Range kernel, in out's dtype.
at::Tensor& rangeInto(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, int64_t size,
                      at::Tensor& out) {
  const auto dtype = out.scalar_type();
  return torch_npu::runInto("Range", out, {size}, dtype, [&](torch_npu::OpCommand& cmd) {
    cmd.InputScalar(start, dtype).InputScalar(end, dtype).InputScalar(step, dtype);
  });
}

}  // namespace

at::Tensor& NPUNativeFunctions::arange_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step,
                                           at::Tensor& out) {
  const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
  checkRangeArguments(xstart, xend, xstep);
  int64_t size;
  if (at::isIntegralType(out.scalar_type(), false) && start.isIntegral(false) && end.isIntegral(false) &&
      step.isIntegral(false)) {
    const int64_t s = start.toLong(), e = end.toLong(), st = step.toLong();
    size = (e - s + st - (st > 0 ? 1 : -1)) / st;
  } else {
    size = static_cast<int64_t>(std::ceil((xend - xstart) / xstep));
  }
  return rangeInto(start, end, step, size, out);
}

at::Tensor& NPUNativeFunctions::range_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step,
                                          at::Tensor& out) {
  const double xstart = start.toDouble(), xend = end.toDouble(), xstep = step.toDouble();
  checkRangeArguments(xstart, xend, xstep);
  const int64_t size = static_cast<int64_t>(((xend - xstart) / xstep) + 1);  // both ends included
  return rangeInto(start, end, step, size, out);
}

// Note [LinSpace from both ends] in the simulator's creation kernels: the points as PyTorch's CPU
// kernel computes them. Integer outputs take start and end as float64, as the CPU does.
at::Tensor& NPUNativeFunctions::linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps,
                                             at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  TORCH_CHECK(!out.is_complex(), "linspace: complex outputs are not supported on the NPU");
  const auto dtype = out.scalar_type();
  const auto scalar_type = at::isFloatingType(dtype) ? at::kFloat : at::kDouble;
  return torch_npu::runInto("LinSpace", out, {steps}, dtype, [&](torch_npu::OpCommand& cmd) {
    cmd.InputScalar(start, scalar_type).InputScalar(end, scalar_type);
  });
}

// base ** linspace(start, end): the exponents as linspace computes them (fp32), then Pow.
at::Tensor& NPUNativeFunctions::logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps,
                                             double base, at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  TORCH_CHECK(!out.is_complex(), "logspace: complex outputs are not supported on the NPU");
  // An integer output takes integer ends, as on the CPU (start and end converted to out's dtype).
  const bool integral = !at::isFloatingType(out.scalar_type());
  const at::Scalar first = integral ? at::Scalar(start.toLong()) : start;
  const at::Scalar last = integral ? at::Scalar(end.toLong()) : end;
  at::Tensor exponents = at::empty({steps}, out.options().dtype(at::kFloat));
  linspace_out(first, last, steps, exponents);
  at::Tensor values = at::pow(at::Scalar(base), exponents);
  at::native::resize_output(out, {steps});
  return out.copy_(values);
}

}  // namespace native
}  // namespace at_npu
