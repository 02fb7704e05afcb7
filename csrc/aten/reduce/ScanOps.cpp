// Scans: cumsum, cumprod, logcumsumexp and the cummax / cummin helpers, on
// the Cumsum / Cumprod / CumulativeLogsumexp / Cummax / Cummin kernels
// (Note [Scan order] in the simulator's scan.cpp).
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// A value scan of self along dim in out's dtype (chosen by the meta function
// for the structured ops), written into out.
at::Tensor& valueScan(const char* op, const at::Tensor& self, int64_t dim, at::Tensor& out) {
  const int64_t axis = c10::maybe_wrap_dim(dim, self.dim());
  const auto type = out.scalar_type();
  return torch_npu::runInto(op, out, self.sizes(), type, [&](torch_npu::OpCommand& cmd) {
    torch_npu::addInputAs(cmd, self, type);
    cmd.Attr("axis", axis).Attr("exclusive", false).Attr("reverse", false);
  });
}

void extremeScan(const char* op, const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  const int64_t axis = c10::maybe_wrap_dim(dim, self.dim());
  at::Tensor v = torch_npu::prepareOut(op, values, self.sizes(), self.scalar_type());
  at::Tensor i = torch_npu::prepareOut(op, indices, self.sizes(), at::kLong);
  torch_npu::OpCommand(op).Input(self).Output(v).Output(i).Attr("dim", axis).Run();
  torch_npu::finishOut(values, v);
  torch_npu::finishOut(indices, i);
}

}  // namespace

// cumsum.out / cumprod.out are structured: out has the meta function's sizes and dtype.
at::Tensor& NPUNativeFunctions::cumsum_out(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> /*dtype*/,
                                           at::Tensor& out) {
  return valueScan("Cumsum", self, dim, out);
}
at::Tensor& NPUNativeFunctions::cumprod_out(const at::Tensor& self, int64_t dim, c10::optional<at::ScalarType> /*dtype*/,
                                            at::Tensor& out) {
  return valueScan("Cumprod", self, dim, out);
}

at::Tensor& NPUNativeFunctions::_logcumsumexp_out(const at::Tensor& self, int64_t dim, at::Tensor& out) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "logcumsumexp(): expected a floating point input, got ",
              self.scalar_type());
  TORCH_CHECK(out.scalar_type() == self.scalar_type(), "logcumsumexp(): expected out of dtype ", self.scalar_type(),
              ", got ", out.scalar_type());
  return valueScan("CumulativeLogsumexp", self, dim, out);
}
at::Tensor NPUNativeFunctions::_logcumsumexp(const at::Tensor& self, int64_t dim) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return _logcumsumexp_out(self, dim, out);
}

// Called by cummax / cummin (composite) with their (possibly non-contiguous) outputs.
void NPUNativeFunctions::_cummax_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  extremeScan("Cummax", self, values, indices, dim);
}
void NPUNativeFunctions::_cummin_helper(const at::Tensor& self, at::Tensor& values, at::Tensor& indices, int64_t dim) {
  extremeScan("Cummin", self, values, indices, dim);
}

}  // namespace native
}  // namespace at_npu
