// npu_apply_momentum / npu_apply_adam_w: one optimizer step over a
// (combined) parameter buffer in one kernel, ApplyMomentum / ApplyAdamW —
// the device side of torch_npu.optim's fused optimizers (Note [Combined
// parameters] in torch_npu/optim/combined.py). Hyper-parameters travel as
// host scalars, so a learning-rate schedule does not compile new plans.
// Format-agnostic: a parameter kept in a private format (FRACTAL_Z weight,
// NC1HWC0 batch-norm parameter) is updated as stored, with its gradient and
// state in the same format, without TransData.
#include "NPUCustomFunctions.h"
#include "csrc/aten/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void checkBuffers(const char* op, std::initializer_list<const at::Tensor*> buffers) {
  const at::Tensor& var = **buffers.begin();
  TORCH_CHECK(var.device().type() == c10::DeviceType::PrivateUse1, op, ": var must be an NPU tensor, got one on ",
              var.device());
  TORCH_CHECK(var.scalar_type() == at::kFloat || var.scalar_type() == at::kHalf, op,
              ": var must be float32 or float16, got ", var.scalar_type());
  for (const at::Tensor* t : buffers) {
    TORCH_CHECK(t->device() == var.device() && t->scalar_type() == var.scalar_type() && t->sizes() == var.sizes(),
                op, ": every buffer must match var (", var.scalar_type(), " ", var.sizes(), " on ", var.device(),
                "), got ", t->scalar_type(), " ", t->sizes(), " on ", t->device());
    TORCH_CHECK(t->is_contiguous(), op, ": buffers must be contiguous");
  }
}

void addScalars(torch_npu::OpCommand& cmd, std::initializer_list<double> values) {
  for (double v : values) cmd.InputScalar(at::Scalar(v), at::kDouble);
}

}  // namespace

void NPUCustomFunctions::npu_apply_momentum(at::Tensor& var, at::Tensor& accum, const at::Tensor& grad, double lr,
                                             double momentum, bool nesterov) {
  checkBuffers("npu_apply_momentum", {&var, &accum, &grad});
  if (var.numel() == 0) return;
  torch_npu::OpCommand cmd("ApplyMomentum");
  cmd.FormatAgnostic().Input(var).Input(accum);
  addScalars(cmd, {lr});
  cmd.Input(grad);
  addScalars(cmd, {momentum});
  cmd.Output(var).Output(accum).Attr("use_nesterov", nesterov).Run();
}

void NPUCustomFunctions::npu_apply_adam_w(at::Tensor& var, at::Tensor& m, at::Tensor& v, const at::Tensor& grad,
                                           double lr, double beta1, double beta2, double eps, double weight_decay,
                                           double bias_correction1, double bias_correction2, bool decoupled) {
  checkBuffers("npu_apply_adam_w", {&var, &m, &v, &grad});
  if (var.numel() == 0) return;
  torch_npu::OpCommand cmd("ApplyAdamW");
  cmd.FormatAgnostic().Input(var).Input(m).Input(v).Input(grad);
  addScalars(cmd, {lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2});
  cmd.Output(var).Output(m).Output(v).Attr("decoupled", decoupled).Run();
}

}  // namespace native
}  // namespace at_npu
