// npu_apply_*: one optimizer step over a (combined) parameter buffer in one
// kernel (ApplyMomentum, ApplyAdamW, ApplyRMSProp, ApplyCenteredRMSProp,
// ApplyAdadelta, ApplyLamb) — the device side of torch_npu.optim's fused optimizers (Note [Combined
// parameters] in torch_npu/optim/combined.py). Hyper-parameters travel as
// host scalars, so a learning-rate schedule does not compile new plans.
// Format-agnostic: a parameter kept in a private format (FRACTAL_Z weight,
// NC1HWC0 batch-norm parameter) is updated as stored, with its gradient and
// state in the same format, without TransData.
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

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

// Starts the op over buffers (FormatAgnostic: updated as stored).
torch_npu::OpCommand applyCommand(const char* acl_op, std::initializer_list<const at::Tensor*> buffers) {
  torch_npu::OpCommand cmd(acl_op);
  cmd.FormatAgnostic();
  for (const at::Tensor* t : buffers) cmd.Input(*t);
  return cmd;
}

void addOutputs(torch_npu::OpCommand& cmd, std::initializer_list<at::Tensor*> buffers) {
  for (at::Tensor* t : buffers) cmd.Output(*t);
}

}  // namespace

void NPUCustomFunctions::npu_apply_momentum(at::Tensor& var, at::Tensor& accum, const at::Tensor& grad, double lr,
                                             double momentum, bool nesterov, double weight_decay) {
  checkBuffers("npu_apply_momentum", {&var, &accum, &grad});
  if (var.numel() == 0) return;
  auto cmd = applyCommand("ApplyMomentum", {&var, &accum});
  addScalars(cmd, {lr});
  cmd.Input(grad);
  addScalars(cmd, {momentum, weight_decay});
  addOutputs(cmd, {&var, &accum});
  cmd.Attr("use_nesterov", nesterov).Run();
}

void NPUCustomFunctions::npu_apply_adam_w(at::Tensor& var, at::Tensor& m, at::Tensor& v, const at::Tensor& grad,
                                           double lr, double beta1, double beta2, double eps, double weight_decay,
                                           double bias_correction1, double bias_correction2, bool decoupled) {
  checkBuffers("npu_apply_adam_w", {&var, &m, &v, &grad});
  if (var.numel() == 0) return;
  auto cmd = applyCommand("ApplyAdamW", {&var, &m, &v, &grad});
  addScalars(cmd, {lr, beta1, beta2, eps, weight_decay, bias_correction1, bias_correction2});
  addOutputs(cmd, {&var, &m, &v});
  cmd.Attr("decoupled", decoupled).Run();
}

void NPUCustomFunctions::npu_apply_rms_prop(at::Tensor& var, at::Tensor& square_avg, at::Tensor& momentum_buffer,
                                             const at::Tensor& grad, double lr, double alpha, double momentum,
                                             double eps, double weight_decay) {
  checkBuffers("npu_apply_rms_prop", {&var, &square_avg, &momentum_buffer, &grad});
  if (var.numel() == 0) return;
  auto cmd = applyCommand("ApplyRMSProp", {&var, &square_avg, &momentum_buffer});
  addScalars(cmd, {lr});
  cmd.Input(grad);
  addScalars(cmd, {alpha, momentum, eps, weight_decay});
  addOutputs(cmd, {&var, &square_avg, &momentum_buffer});
  cmd.Run();
}

void NPUCustomFunctions::npu_apply_centered_rms_prop(at::Tensor& var, at::Tensor& grad_avg, at::Tensor& square_avg,
                                                      at::Tensor& momentum_buffer, const at::Tensor& grad, double lr,
                                                      double alpha, double momentum, double eps,
                                                      double weight_decay) {
  checkBuffers("npu_apply_centered_rms_prop", {&var, &grad_avg, &square_avg, &momentum_buffer, &grad});
  if (var.numel() == 0) return;
  auto cmd = applyCommand("ApplyCenteredRMSProp", {&var, &grad_avg, &square_avg, &momentum_buffer});
  addScalars(cmd, {lr, alpha, momentum, eps});
  cmd.Input(grad);
  addScalars(cmd, {weight_decay});
  addOutputs(cmd, {&var, &grad_avg, &square_avg, &momentum_buffer});
  cmd.Run();
}

void NPUCustomFunctions::npu_apply_adadelta(at::Tensor& var, at::Tensor& square_avg, at::Tensor& acc_delta,
                                             const at::Tensor& grad, double lr, double rho, double eps,
                                             double weight_decay) {
  checkBuffers("npu_apply_adadelta", {&var, &square_avg, &acc_delta, &grad});
  if (var.numel() == 0) return;
  auto cmd = applyCommand("ApplyAdadelta", {&var, &square_avg, &acc_delta});
  addScalars(cmd, {lr, rho, eps});
  cmd.Input(grad);
  addScalars(cmd, {weight_decay});
  addOutputs(cmd, {&var, &square_avg, &acc_delta});
  cmd.Run();
}

// `segments` are the element counts of the parameters combined in var (Note [LAMB over a combined buffer]
// in the simulator's optimizer_lamb.cpp); empty means var is one parameter (possibly in a private format,
// whose pads the kernel skips).
void NPUCustomFunctions::npu_apply_lamb(at::Tensor& var, at::Tensor& m, at::Tensor& v, const at::Tensor& grad,
                                         at::IntArrayRef segments, double lr, double beta1, double beta2, double eps,
                                         double weight_decay, bool adam) {
  checkBuffers("npu_apply_lamb", {&var, &m, &v, &grad});
  std::vector<int64_t> seg(segments.begin(), segments.end());
  int64_t total = 0;
  for (int64_t s : seg) {
    TORCH_CHECK(s >= 0, "npu_apply_lamb: segments must be element counts, got ", segments);
    total += s;
  }
  TORCH_CHECK(seg.empty() || total == var.numel(), "npu_apply_lamb: segments ", segments, " sum to ", total,
              " elements, var has ", var.numel());
  if (var.numel() == 0) return;
  if (seg.empty()) seg.push_back(var.numel());
  auto cmd = applyCommand("ApplyLamb", {&var, &m, &v, &grad});
  addScalars(cmd, {lr, beta1, beta2, eps, weight_decay});
  addOutputs(cmd, {&var, &m, &v});
  cmd.Attr("segments", c10::IntArrayRef(seg)).Attr("adam", adam).Run();
}

}  // namespace native
}  // namespace at_npu
