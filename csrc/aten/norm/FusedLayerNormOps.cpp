// torch_npu's fused residual layer norms, one simulator kernel each way
// (Note [Fused layer norms] in third_party/ascend_sim/src/ops/norm/fused_layer_norm.cpp):
//   npu_add_layer_norm(x1, x2, gamma, beta, epsilon, additional_output)
//       AddLayerNorm -> (y, mean, rstd, x = x1 + x2)
//   npu_add_layer_norm_backward(dy, x1, x2, rstd, mean, gamma)
//       AddLayerNormGrad -> (dx1, dx2, dgamma, dbeta), dx1 and dx2 one tensor as in torch_npu
//   npu_deep_norm(x, gx, beta, gamma, alpha, epsilon)
//       DeepNorm -> (mean, rstd, y = LayerNorm(alpha * x + gx))
//   npu_deep_norm_backward(dy, x, gx, gamma, mean, rstd, alpha)
//       DeepNormGrad -> (dx, dgx, dbeta, dgamma)
// gamma (and beta) cover x's trailing dims; mean and rstd are fp32 with those
// dims set to 1; the parameter gradients are fp32, as torch_npu returns them.
// The autograd of the two forwards is in FusedLayerNormAutograd.cpp.
#include "FusedLayerNormOps.h"

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

// The addends (x1, x2 or x, gx): one float dtype and shape, on the NPU with the parameters.
void checkAddends(const char* op, const at::Tensor& a, const char* a_name, const at::Tensor& b, const char* b_name,
                  std::initializer_list<at::Tensor> params) {
  TORCH_CHECK(at::isFloatingType(a.scalar_type()) && a.scalar_type() != at::kDouble, op, ": expected ", a_name,
              " of float32, float16 or bfloat16, got ", a.scalar_type());
  TORCH_CHECK(a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes(), op, ": ", a_name, " and ", b_name,
              " must have one shape and dtype, got ", a.scalar_type(), " ", a.sizes(), " and ", b.scalar_type(), " ",
              b.sizes());
  TORCH_CHECK(b.device() == a.device(), op, ": ", a_name, " and ", b_name, " must be on one device, got ", a.device(),
              " and ", b.device());
  for (const at::Tensor& p : params) {
    TORCH_CHECK(p.device() == a.device(), op, ": the parameters must be on ", a.device(), " with ", a_name, ", got ",
                p.device());
    TORCH_CHECK(at::isFloatingType(p.scalar_type()), op, ": expected floating gamma and beta, got ", p.scalar_type());
  }
}

// The checks of a fused layer norm's forward, and its mean and rstd: fp32, x's
// shape with gamma's dims set to 1; NaN when the rows have no elements.
std::tuple<at::Tensor, at::Tensor> forwardStats(const char* op, const at::Tensor& x, const char* x_name,
                                                const at::Tensor& other, const char* other_name,
                                                const at::Tensor& gamma, const at::Tensor& beta) {
  checkAddends(op, x, x_name, other, other_name, {gamma, beta});
  const std::vector<int64_t> shape = torch_npu::normStatShape(op, x, gamma);
  TORCH_CHECK(beta.sizes() == gamma.sizes(), op, ": beta of shape ", beta.sizes(), " must match gamma of shape ",
              gamma.sizes());
  at::Tensor mean = torch_npu::emptyNpu(shape, at::kFloat, x.device());
  at::Tensor rstd = torch_npu::emptyNpu(shape, at::kFloat, x.device());
  if (x.numel() == 0 && mean.numel() > 0) {
    mean.fill_(NAN);
    rstd.fill_(NAN);
  }
  return {mean, rstd};
}

void checkGradOperands(const char* op, const at::Tensor& dy, const at::Tensor& x, const at::Tensor& mean,
                       const at::Tensor& rstd, const std::vector<int64_t>& stat_shape) {
  TORCH_CHECK(dy.sizes() == x.sizes(), op, ": dy of shape ", dy.sizes(), " does not match x of shape ", x.sizes());
  const int64_t rows = c10::multiply_integers(stat_shape);
  TORCH_CHECK(mean.numel() == rows && rstd.numel() == rows, op, ": mean (", mean.sizes(), ") and rstd (", rstd.sizes(),
              ") must hold one value per row of x (shape ", stat_shape, ")");
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_add_layer_norm(
    const at::Tensor& x1, const at::Tensor& x2, const at::Tensor& gamma, const at::Tensor& beta, double epsilon,
    bool additional_output) {
  auto [mean, rstd] = forwardStats("npu_add_layer_norm", x1, "x1", x2, "x2", gamma, beta);
  at::Tensor y = torch_npu::emptyNpuLike(x1), x = torch_npu::emptyNpuLike(x1);
  if (x1.numel() == 0) return {y, mean, rstd, x};
  OpCommand("AddLayerNorm")
      .Input(x1)
      .Input(x2)
      .Input(torch_npu::kernelParam(gamma, x1))
      .Input(torch_npu::kernelParam(beta, x1))
      .Output(y)
      .Output(mean)
      .Output(rstd)
      .Output(x)
      .Attr("epsilon", static_cast<float>(epsilon))
      .Attr("additional_output", additional_output)
      .Run();
  return {y, mean, rstd, x};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> addLayerNormGradients(const at::Tensor& dy, const at::Tensor& x1,
                                                                     const at::Tensor& x2, const at::Tensor& rstd,
                                                                     const at::Tensor& mean, const at::Tensor& gamma,
                                                                     const c10::optional<at::Tensor>& dsum) {
  constexpr const char* op = "npu_add_layer_norm_backward";
  checkAddends(op, x1, "x1", x2, "x2", {gamma});
  const std::vector<int64_t> stat_shape = torch_npu::normStatShape(op, x1, gamma);
  checkGradOperands(op, dy, x1, mean, rstd, stat_shape);
  at::Tensor dx = torch_npu::emptyNpuLike(x1);
  at::Tensor dgamma = torch_npu::emptyNpu(gamma.sizes(), at::kFloat, x1.device());
  at::Tensor dbeta = torch_npu::emptyNpu(gamma.sizes(), at::kFloat, x1.device());
  if (x1.numel() == 0) return {dx, dgamma.zero_(), dbeta.zero_()};
  OpCommand cmd("AddLayerNormGrad");
  cmd.Input(dy.to(x1.scalar_type()))
      .Input(x1)
      .Input(x2)
      .Input(rstd.to(at::kFloat))
      .Input(mean.to(at::kFloat))
      .Input(torch_npu::kernelParam(gamma, x1));
  if (dsum.has_value()) cmd.Input(dsum->to(x1.scalar_type()));
  cmd.Output(dx).Output(dgamma).Output(dbeta).Attr("has_dsum", dsum.has_value()).Run();
  return {dx, dgamma, dbeta};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_add_layer_norm_backward(
    const at::Tensor& dy, const at::Tensor& x1, const at::Tensor& x2, const at::Tensor& rstd, const at::Tensor& mean,
    const at::Tensor& gamma) {
  auto [dx, dgamma, dbeta] = addLayerNormGradients(dy, x1, x2, rstd, mean, gamma, c10::nullopt);
  return {dx, dx, dgamma, dbeta};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_deep_norm(const at::Tensor& x,
                                                                                 const at::Tensor& gx,
                                                                                 const at::Tensor& beta,
                                                                                 const at::Tensor& gamma, double alpha,
                                                                                 double epsilon) {
  auto [mean, rstd] = forwardStats("npu_deep_norm", x, "x", gx, "gx", gamma, beta);
  at::Tensor y = torch_npu::emptyNpuLike(x);
  if (x.numel() == 0) return {mean, rstd, y};
  OpCommand("DeepNorm")
      .Input(x)
      .Input(gx)
      .Input(torch_npu::kernelParam(beta, x))
      .Input(torch_npu::kernelParam(gamma, x))
      .Output(mean)
      .Output(rstd)
      .Output(y)
      .Attr("alpha", static_cast<float>(alpha))
      .Attr("epsilon", static_cast<float>(epsilon))
      .Run();
  return {mean, rstd, y};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_deep_norm_backward(
    const at::Tensor& dy, const at::Tensor& x, const at::Tensor& gx, const at::Tensor& gamma, const at::Tensor& mean,
    const at::Tensor& rstd, double alpha) {
  constexpr const char* op = "npu_deep_norm_backward";
  checkAddends(op, x, "x", gx, "gx", {gamma});
  const std::vector<int64_t> stat_shape = torch_npu::normStatShape(op, x, gamma);
  checkGradOperands(op, dy, x, mean, rstd, stat_shape);
  at::Tensor dx = torch_npu::emptyNpuLike(x), dgx = torch_npu::emptyNpuLike(x);
  at::Tensor dbeta = torch_npu::emptyNpu(gamma.sizes(), at::kFloat, x.device());
  at::Tensor dgamma = torch_npu::emptyNpu(gamma.sizes(), at::kFloat, x.device());
  if (x.numel() == 0) return {dx, dgx, dbeta.zero_(), dgamma.zero_()};
  OpCommand("DeepNormGrad")
      .Input(dy.to(x.scalar_type()))
      .Input(x)
      .Input(gx)
      .Input(torch_npu::kernelParam(gamma, x))
      .Input(mean.to(at::kFloat))
      .Input(rstd.to(at::kFloat))
      .Output(dx)
      .Output(dgx)
      .Output(dbeta)
      .Output(dgamma)
      .Attr("alpha", static_cast<float>(alpha))
      .Run();
  return {dx, dgx, dbeta, dgamma};
}

}  // namespace native
}  // namespace at_npu
