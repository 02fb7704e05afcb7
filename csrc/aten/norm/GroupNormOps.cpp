// native_group_norm and native_group_norm_backward on GroupNorm /
// GroupNormGrad (OPS.md "Dense prediction, padding, layout and indexing",
// Note [Group norm numerics]). Empty inputs (a batch of 0, or no spatial
// elements) launch nothing: the outputs are filled as the CPU fills them
// (mean 0, rstd NaN = 1 / sqrt(0 / 0); dgamma NaN when there are samples).
#include <ATen/ATen.h>

#include <limits>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkGroupNorm(const at::Tensor& X, const at::Tensor& gamma, const at::Tensor& beta, int64_t N, int64_t C,
                    int64_t HxW, int64_t group) {
  TORCH_CHECK(group > 0, "Expected num groups to be greater than 0, got ", group);
  TORCH_CHECK(C % group == 0, "Expected number of channels in input to be divisible by num_groups, but got input of "
              "shape ", X.sizes(), " and num_groups=", group);
  TORCH_CHECK(X.dim() >= 2 && X.numel() == N * C * HxW && X.size(0) == N && X.size(1) == C,
              "native_group_norm: input of shape ", X.sizes(), " does not match N=", N, ", C=", C, ", HxW=", HxW);
  for (const at::Tensor* p : {&gamma, &beta}) {
    TORCH_CHECK(!p->defined() || (p->dim() == 1 && p->numel() == C), "Expected ", p == &gamma ? "weight" : "bias",
                " to be a vector of size equal to the number of channels in input, but got ",
                p == &gamma ? "weight" : "bias", " of shape ", p->sizes(), " and input of shape ", X.sizes());
  }
}

void addParam(torch_npu::OpCommand& cmd, const at::Tensor& p, c10::ScalarType dtype) {
  if (p.defined()) torch_npu::addInputAs(cmd, p, dtype);
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::native_group_norm(
    const at::Tensor& X, const c10::optional<at::Tensor>& gamma_opt, const c10::optional<at::Tensor>& beta_opt,
    int64_t N, int64_t C, int64_t HxW, int64_t group, double eps) {
  const at::Tensor gamma = gamma_opt.value_or(at::Tensor());
  const at::Tensor beta = beta_opt.value_or(at::Tensor());
  checkGroupNorm(X, gamma, beta, N, C, HxW, group);
  const auto dtype = X.scalar_type();
  at::Tensor Y = torch_npu::emptyNpu(X.sizes(), dtype, X.device());
  at::Tensor mean = torch_npu::emptyNpu({N, group}, dtype, X.device());
  at::Tensor rstd = torch_npu::emptyNpu({N, group}, dtype, X.device());
  if (X.numel() == 0) {
    mean.zero_();
    rstd.fill_(std::numeric_limits<double>::quiet_NaN());
    return {Y, mean, rstd};
  }
  torch_npu::OpCommand cmd("GroupNorm");
  cmd.Input(X);
  addParam(cmd, gamma, dtype);
  addParam(cmd, beta, dtype);
  cmd.Output(Y).Output(mean).Output(rstd);
  cmd.Attr("num_groups", group).Attr("epsilon", static_cast<float>(eps));
  cmd.Attr("has_gamma", gamma.defined()).Attr("has_beta", beta.defined()).Run();
  return {Y, mean, rstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::native_group_norm_backward(
    const at::Tensor& dY, const at::Tensor& X, const at::Tensor& mean, const at::Tensor& rstd,
    const c10::optional<at::Tensor>& gamma_opt, int64_t N, int64_t C, int64_t HxW, int64_t group,
    std::array<bool, 3> output_mask) {
  const at::Tensor gamma = gamma_opt.value_or(at::Tensor());
  checkGroupNorm(X, gamma, at::Tensor(), N, C, HxW, group);
  TORCH_CHECK(dY.sizes().equals(X.sizes()), "native_group_norm_backward: grad_out of shape ", dY.sizes(),
              " does not match the input's ", X.sizes());
  const auto dtype = X.scalar_type();
  at::Tensor dX = torch_npu::emptyNpu(X.sizes(), dtype, X.device());
  at::Tensor dgamma = torch_npu::emptyNpu({C}, dtype, X.device());
  at::Tensor dbeta = torch_npu::emptyNpu({C}, dtype, X.device());
  if (X.numel() == 0) {
    dgamma.fill_(N > 0 ? std::numeric_limits<double>::quiet_NaN() : 0.0);
    dbeta.zero_();
  } else {
    torch_npu::OpCommand cmd("GroupNormGrad");
    torch_npu::addInputAs(cmd, dY, dtype);
    cmd.Input(X);
    torch_npu::addInputAs(cmd, mean, dtype);
    torch_npu::addInputAs(cmd, rstd, dtype);
    addParam(cmd, gamma, dtype);
    cmd.Output(dX).Output(dgamma).Output(dbeta);
    cmd.Attr("num_groups", group).Attr("has_gamma", gamma.defined()).Run();
  }
  return {output_mask[0] ? dX : at::Tensor(), output_mask[1] ? dgamma : at::Tensor(),
          output_mask[2] ? dbeta : at::Tensor()};
}

}  // namespace native
}  // namespace at_npu
