// torch_npu's npu_scaled_masked_softmax (Megatron's fused attention softmax) and its backward, one
// Vector kernel each way: ScaledMaskedSoftmax / ScaledMaskedSoftmaxGrad (Note [Scaled masked
// softmax] in the simulator). y = softmax((x * scale).masked_fill(mask, -10000), -1) over
// x [N, C, H, W] with a bool mask broadcast to it (true: masked out), or the causal mask with
// fixed_triu_mask. Differentiable in x (AutogradPrivateUse1, below).
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

void checkOperands(const at::Tensor& x, const at::Tensor& mask, const char* op, const char* xname) {
  const auto dtype = x.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16, op, ": expected a float32, ",
              "float16 or bfloat16 ", xname, ", got ", dtype);
  TORCH_CHECK(x.dim() == 4, op, ": expected a 4-D ", xname, " [N, C, H, W], got shape ", x.sizes());
  for (int64_t d = 2; d < 4; ++d)
    TORCH_CHECK(x.size(d) >= 32 && x.size(d) <= 4096 && x.size(d) % 32 == 0, op, ": H and W of ", xname, " of shape ",
                x.sizes(), " must be multiples of 32 in [32, 4096] (the shapes CANN's kernel supports)");
  TORCH_CHECK(mask.scalar_type() == at::kBool, op, ": expected a bool mask (true: masked out), got ",
              mask.scalar_type());
  TORCH_CHECK(mask.dim() == 4 && mask.size(2) == x.size(2) && mask.size(3) == x.size(3), op, ": the mask of shape ",
              mask.sizes(), " must be 4-D with the last two dims of ", xname, " of shape ", x.sizes());
}

at::Tensor launchSoftmax(const char* kernel, std::initializer_list<at::Tensor> inputs, const at::Tensor& like,
                         const at::Scalar& scale, bool fixed_triu_mask) {
  at::Tensor out = torch_npu::emptyNpuLike(like);
  if (out.numel() == 0) return out;
  torch_npu::OpCommand cmd(kernel);
  for (const at::Tensor& t : inputs) cmd.Input(t);
  cmd.Output(out).Attr("scale", static_cast<float>(scale.toDouble())).Attr("fixed_triu_mask", fixed_triu_mask).Run();
  return out;
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_scaled_masked_softmax(const at::Tensor& x, const at::Tensor& mask,
                                                         const at::Scalar& scale, bool fixed_triu_mask) {
  checkOperands(x, mask, "npu_scaled_masked_softmax", "x");
  return launchSoftmax("ScaledMaskedSoftmax", {x, mask}, x, scale, fixed_triu_mask);
}

at::Tensor NPUCustomFunctions::npu_scaled_masked_softmax_backward(const at::Tensor& y_grad, const at::Tensor& y,
                                                                  const at::Tensor& mask, const at::Scalar& scale,
                                                                  bool fixed_triu_mask) {
  const char* op = "npu_scaled_masked_softmax_backward";
  checkOperands(y, mask, op, "y");
  TORCH_CHECK(y_grad.sizes() == y.sizes(), op, ": y_grad of shape ", y_grad.sizes(), " must have y's shape ",
              y.sizes());
  return launchSoftmax("ScaledMaskedSoftmaxGrad", {y_grad.to(y.scalar_type()), y, mask}, y, scale, fixed_triu_mask);
}

namespace {

class ScaledMaskedSoftmaxFunction : public torch::autograd::Function<ScaledMaskedSoftmaxFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, const at::Tensor& mask, const at::Scalar& scale,
                            bool fixed_triu_mask) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    at::Tensor y = NPUCustomFunctions::npu_scaled_masked_softmax(x, mask, scale, fixed_triu_mask);
    ctx->save_for_backward({y, mask});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["fixed_triu_mask"] = fixed_triu_mask;
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor dx = NPUCustomFunctions::npu_scaled_masked_softmax_backward(
        grads[0], saved[0], saved[1], ctx->saved_data["scale"].toScalar(), ctx->saved_data["fixed_triu_mask"].toBool());
    return {dx, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_scaled_masked_softmax",
         [](const at::Tensor& x, const at::Tensor& mask, const at::Scalar& scale, bool fixed_triu_mask) {
           return ScaledMaskedSoftmaxFunction::apply(x, mask, scale, fixed_triu_mask);
         });
}

}  // namespace native
}  // namespace at_npu
