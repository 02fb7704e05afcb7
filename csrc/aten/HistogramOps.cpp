// bincount and histc on the AI CPU's Bincount / Histogram kernels. Both read
// the data's range back first (a host synchronisation, as on every device):
// bincount to size its output (Note [Ops whose output size depends on the
// data]), histc when min == max asks for the data's own range.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/NPUTensorUtils.h"

namespace at_npu {
namespace native {

at::Tensor NPUNativeFunctions::bincount(const at::Tensor& self, const c10::optional<at::Tensor>& weights_opt,
                                        int64_t minlength) {
  TORCH_CHECK(self.dim() == 1 && at::isIntegralType(self.scalar_type(), /*includeBool=*/false),
              "bincount only supports 1-d non-negative integral inputs.");
  TORCH_CHECK(minlength >= 0, "minlength should be >= 0");
  const bool weighted = weights_opt.has_value() && weights_opt->defined();
  TORCH_CHECK(!weighted || (weights_opt->dim() == 1 && weights_opt->size(0) == self.size(0)),
              "weights should be 1-d and have the same length as input");
  if (self.numel() == 0) return at::zeros({minlength}, self.options().dtype(at::kLong));
  const auto range = at::aminmax(self);
  TORCH_CHECK(std::get<0>(range).item<int64_t>() >= 0, "bincount only supports 1-d non-negative integral inputs.");
  const int64_t size = std::max(minlength, std::get<1>(range).item<int64_t>() + 1);
  // PyTorch's result dtype: counts in int64, float32 weights summed in float32, others in float64.
  const auto type = !weighted ? at::kLong : weights_opt->scalar_type() == at::kFloat ? at::kFloat : at::kDouble;
  at::Tensor out = torch_npu::emptyNpu({size}, type, self.device());
  torch_npu::OpCommand cmd("Bincount");
  cmd.Input(self);
  if (weighted) cmd.Input(*weights_opt);
  cmd.Output(out).Attr("size", size).Run();
  return out;
}

at::Tensor& NPUNativeFunctions::histc_out(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                                          const at::Scalar& max, at::Tensor& out) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "torch.histc: expected a floating point input, got ",
              self.scalar_type());
  TORCH_CHECK(bins > 0, "torch.histc(): bins must be > 0, but got ", bins);
  double lo = min.toDouble(), hi = max.toDouble();
  if (lo == hi && self.numel() > 0) {
    const auto range = at::aminmax(self);
    lo = std::get<0>(range).item<double>();
    hi = std::get<1>(range).item<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  TORCH_CHECK(std::isfinite(lo) && std::isfinite(hi), "torch.histc: range of [", lo, ", ", hi, "] is not finite");
  TORCH_CHECK(lo < hi, "torch.histc: max must be larger than min");
  return torch_npu::runInto("Histogram", out, {bins}, self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self).Attr("bins", bins).Attr("min", static_cast<float>(lo)).Attr("max", static_cast<float>(hi));
  });
}
at::Tensor NPUNativeFunctions::histc(const at::Tensor& self, int64_t bins, const at::Scalar& min,
                                     const at::Scalar& max) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return histc_out(self, bins, min, max, out);
}

}  // namespace native
}  // namespace at_npu
