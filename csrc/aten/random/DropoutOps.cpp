// Dropout as torch_npu runs it: a bit mask from DropOutGenMask applied by
// DropOutDoMask (Note [Dropout bit masks] in the simulator), the fused
// softmax + dropout of npu_dropout_with_add_softmax, and F.dropout routed
// through npu_dropout.
//
// Note [Dropout on the NPU]
// aten::dropout is CompositeImplicitAutograd in PyTorch; on the CPU it is a
// bernoulli_ mask, a division and a multiplication. As torch_npu does, the
// backend registers it on AutogradPrivateUse1 (yaml `autograd:`) so that a
// training-mode dropout of an NPU tensor is npu_dropout: two kernels forward
// (DropOutGenMask, DropOutDoMask) and one backward (DropOutDoMask on the
// saved mask), with a mask of n / 8 bytes instead of n elements. Dtypes the
// Vector kernels do not take (float64) keep PyTorch's composite. The mask's
// bits come from the device generator's Philox stream (Note [NPU random
// numbers]), so dropout is reproducible under torch.npu.manual_seed.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/native/Resize.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/random/DropoutOps.h"
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/core/NPUGenerator.h"

namespace at_npu {
namespace native {
namespace {

void checkProbability(const char* op, double p) {
  TORCH_CHECK(p >= 0.0 && p <= 1.0, op, ": dropout probability has to be between 0 and 1, but got ", p);
}

void checkDropoutInput(const char* op, const at::Tensor& self) {
  const auto dtype = self.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16, op,
              ": expected a float32, float16 or bfloat16 tensor, got ", dtype);
}

void checkMaskFor(const char* op, const at::Tensor& mask, const at::Tensor& self) {
  TORCH_CHECK(mask.device() == self.device(), op, ": mask is on ", mask.device(), " but the input is on ",
              self.device());
  TORCH_CHECK(mask.scalar_type() == at::kByte && mask.dim() == 1 && mask.numel() == dropoutMaskBytes(self.numel()), op,
              ": expected a uint8 bit mask of ", dropoutMaskBytes(self.numel()), " bytes for ", self.numel(),
              " elements (as npu_dropout_gen_mask makes), got ", mask.scalar_type(), " of shape ", mask.sizes());
}

at::Tensor genMask(at::IntArrayRef size, double p, c10::Device device) {
  checkProbability("npu_dropout_gen_mask", p);
  const int64_t numel = c10::multiply_integers(size);
  at::Tensor mask = torch_npu::emptyNpu({dropoutMaskBytes(numel)}, at::kByte, device);
  if (numel == 0) return mask;
  const auto [seed, offset] = torch_npu::NPUGenerator::forDevice(device.index()).reserve(static_cast<uint64_t>(numel));
  torch_npu::OpCommand cmd("DropOutGenMask");
  cmd.Output(mask)
      .Attr("shape", std::vector<int64_t>{numel})
      .Attr("keep_prob", static_cast<float>(1.0 - p))
      .Attr("seed", static_cast<int64_t>(seed))
      .Attr("offset", static_cast<int64_t>(offset))
      .Run();
  return mask;
}

at::Tensor doMask(const at::Tensor& self, const at::Tensor& mask, double p) {
  at::Tensor result = torch_npu::emptyNpu(self.sizes(), self.scalar_type(), self.device());
  if (self.numel() == 0) return result;
  torch_npu::OpCommand cmd("DropOutDoMask");
  cmd.Input(self).Input(mask).Output(result).Attr("keep_prob", static_cast<float>(1.0 - p)).Run();
  return result;
}

// npu_dropout_gen_mask has no tensor argument: the dispatcher reaches it
// through BackendSelect, which must find the device in `device`.
at::Tensor genMaskBackendSelect(at::IntArrayRef size, double p, c10::optional<at::ScalarType> dtype,
                                c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                                c10::optional<bool> pin_memory) {
  return NPUCustomFunctions::npu_dropout_gen_mask(size, p, dtype, layout, device, pin_memory);
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_dropout_gen_mask(at::IntArrayRef size, double p,
                                                    c10::optional<at::ScalarType> dtype,
                                                    c10::optional<at::Layout> layout,
                                                    c10::optional<at::Device> device,
                                                    c10::optional<bool> pin_memory) {
  const c10::Device d = device.value_or(c10::Device(c10::DeviceType::PrivateUse1, -1));
  TORCH_CHECK(d.type() == c10::DeviceType::PrivateUse1, "npu_dropout_gen_mask: device must be an npu device, got ",
              d);
  TORCH_CHECK(!pin_memory.value_or(false) && layout.value_or(at::kStrided) == at::kStrided,
              "npu_dropout_gen_mask: only strided, non-pinned masks exist");
  (void)dtype;  // the mask is always uint8 bits
  return genMask(size, p, d.has_index() ? d : torch_npu::emptyNpu({0}, at::kByte).device());
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_dropout_do_mask(const at::Tensor& self,
                                                                            const at::Tensor& mask, double p) {
  checkDropoutInput("npu_dropout_do_mask", self);
  checkProbability("npu_dropout_do_mask", p);
  checkMaskFor("npu_dropout_do_mask", mask, self);
  return {doMask(self, mask, p), mask};
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_dropout(const at::Tensor& self, double p) {
  checkDropoutInput("npu_dropout", self);
  checkProbability("npu_dropout", p);
  const at::Tensor mask = genMask(self.sizes(), p, self.device());
  return {doMask(self, mask, p), mask};
}

at::Tensor NPUCustomFunctions::npu_dropout_backward(const at::Tensor& grad_output, const at::Tensor& mask, double p) {
  checkDropoutInput("npu_dropout_backward", grad_output);
  checkProbability("npu_dropout_backward", p);
  checkMaskFor("npu_dropout_backward", mask, grad_output);
  return doMask(grad_output, mask, p);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_dropout_with_add_softmax(
    const at::Tensor& self, const at::Tensor& x1, const at::Scalar& alpha, double prob, int64_t dim) {
  checkDropoutInput("npu_dropout_with_add_softmax", self);
  checkProbability("npu_dropout_with_add_softmax", prob);
  TORCH_CHECK(x1.device() == self.device() && x1.scalar_type() == self.scalar_type() && x1.sizes() == self.sizes(),
              "npu_dropout_with_add_softmax: x1 must match self in shape, dtype and device; got ", x1.sizes(), " ",
              x1.scalar_type(), " on ", x1.device(), " for self ", self.sizes(), " ", self.scalar_type(), " on ",
              self.device());
  const int64_t axis = at::maybe_wrap_dim(dim, self.dim());
  const at::Tensor mask = genMask(self.sizes(), prob, self.device());
  at::Tensor softmax_out = torch_npu::emptyNpuLike(self);
  at::Tensor result = torch_npu::emptyNpuLike(self);
  if (self.numel() == 0) return {mask, softmax_out, result};
  torch_npu::OpCommand cmd("AxpyWithSoftmaxAndDropOutDoMask");
  cmd.Input(self)
      .Input(x1)
      .Input(mask)
      .Output(softmax_out)
      .Output(result)
      .Attr("alpha", static_cast<float>(alpha.toDouble()))
      .Attr("input_keep_prob", static_cast<float>(1.0 - prob))
      .Attr("axis", axis)
      .Run();
  return {mask, softmax_out, result};
}

// Gradients of self (alpha · d softmax) and of x1 (d softmax).
std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_dropout_with_add_softmax_backward(
    const at::Tensor& grad, const at::Tensor& mask, const at::Tensor& softmax_out, const at::Scalar& alpha,
    double prob, int64_t dim) {
  checkDropoutInput("npu_dropout_with_add_softmax_backward", softmax_out);
  checkProbability("npu_dropout_with_add_softmax_backward", prob);
  checkMaskFor("npu_dropout_with_add_softmax_backward", mask, softmax_out);
  TORCH_CHECK(grad.sizes() == softmax_out.sizes(), "npu_dropout_with_add_softmax_backward: grad of shape ",
              grad.sizes(), " does not match softmax_out of shape ", softmax_out.sizes());
  const int64_t axis = at::maybe_wrap_dim(dim, softmax_out.dim());
  at::Tensor grad_x1 = torch_npu::emptyNpuLike(softmax_out);
  if (softmax_out.numel() == 0) return {grad_x1.clone(), grad_x1};
  torch_npu::OpCommand cmd("DropoutWithMulsAndSoftmaxGrad");
  cmd.Input(grad.to(softmax_out.scalar_type()))
      .Input(mask)
      .Input(softmax_out)
      .Output(grad_x1)
      .Attr("alpha", 1.0f)
      .Attr("input_keep_prob", static_cast<float>(1.0 - prob))
      .Attr("axes", std::vector<int64_t>{axis})
      .Run();
  return {grad_x1.mul(alpha), grad_x1};
}

std::tuple<at::Tensor, at::Tensor> callNpuDropout(const at::Tensor& self, double p) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("npu::npu_dropout", "")
                             .typed<std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, double)>();
  return op.call(self, p);
}

// Note [Dropout on the NPU]
at::Tensor NPUNativeFunctions::dropout(const at::Tensor& input, double p, bool train) {
  checkProbability("dropout", p);
  const auto dtype = input.scalar_type();
  if (dtype != at::kFloat && dtype != at::kHalf && dtype != at::kBFloat16) return at::native::dropout(input, p, train);
  if (p == 0 || !train || input.numel() == 0) return input;
  return std::get<0>(callNpuDropout(input, p));
}

namespace {

class DropoutFunction : public torch::autograd::Function<DropoutFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self,
                                                double p) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [result, mask] = NPUCustomFunctions::npu_dropout(self, p);
    ctx->save_for_backward({mask});
    ctx->saved_data["p"] = p;
    ctx->mark_non_differentiable({mask});
    return {result, mask};
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor mask = ctx->get_saved_variables()[0];
    return {NPUCustomFunctions::npu_dropout_backward(grads[0], mask, ctx->saved_data["p"].toDouble()), at::Tensor()};
  }
};

class DropoutWithAddSoftmaxFunction : public torch::autograd::Function<DropoutWithAddSoftmaxFunction> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self,
                                                const at::Tensor& x1, const at::Scalar& alpha, double prob,
                                                int64_t dim) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [mask, softmax_out, result] = NPUCustomFunctions::npu_dropout_with_add_softmax(self, x1, alpha, prob, dim);
    ctx->save_for_backward({mask, softmax_out});
    ctx->saved_data["alpha"] = alpha;
    ctx->saved_data["prob"] = prob;
    ctx->saved_data["dim"] = dim;
    ctx->mark_non_differentiable({mask, softmax_out});
    return {mask, softmax_out, result};
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto [grad_self, grad_x1] = NPUCustomFunctions::npu_dropout_with_add_softmax_backward(
        grads[2], saved[0], saved[1], ctx->saved_data["alpha"].toScalar(), ctx->saved_data["prob"].toDouble(),
        ctx->saved_data["dim"].toInt());
    return {grad_self, grad_x1, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

std::tuple<at::Tensor, at::Tensor> dropoutWithAutograd(const at::Tensor& self, double p) {
  auto outs = DropoutFunction::apply(self, p);
  return {outs[0], outs[1]};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> dropoutWithAddSoftmaxWithAutograd(const at::Tensor& self,
                                                                                 const at::Tensor& x1,
                                                                                 const at::Scalar& alpha, double prob,
                                                                                 int64_t dim) {
  auto outs = DropoutWithAddSoftmaxFunction::apply(self, x1, alpha, prob, dim);
  return {outs[0], outs[1], outs[2]};
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_dropout", TORCH_FN(dropoutWithAutograd));
  m.impl("npu_dropout_with_add_softmax", TORCH_FN(dropoutWithAddSoftmaxWithAutograd));
}

TORCH_LIBRARY_IMPL(npu, BackendSelect, m) { m.impl("npu_dropout_gen_mask", TORCH_FN(genMaskBackendSelect)); }

}  // namespace native
}  // namespace at_npu
