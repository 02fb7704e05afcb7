// torch_npu's gated linear units (Note [Gated linear units] in the simulator's
// gated_linear_units.cpp), one Vector kernel each way:
//   npu_swiglu(x, dim=-1)                                 SwiGlu       silu(A) * B
//   npu_swiglu_backward(grad, x, dim=-1)                  SwiGluGrad
//   npu_geglu(x, dim=-1, approximate=1, activate_left=False) -> (y, gelu)
//                                                         GeGluV2      A * gelu(B) (activate_left: gelu(A) * B)
//   npu_geglu_grad(grad, x, gelu, dim=-1, approximate=1, activate_left=False)
//                                                         GeGluGradV2
// A and B are the halves of x along `dim`. Differentiable (AutogradPrivateUse1, below): the
// backward of each forward is its grad kernel; npu_geglu's gelu output is not differentiable, as
// in torch_npu.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using torch_npu::OpCommand;

// The split dim of x, checked: a float32 / float16 / bfloat16 input of rank >= 1 whose `dim` is even.
int64_t splitDim(const at::Tensor& self, int64_t dim, const char* op) {
  const auto dtype = self.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kBFloat16, op,
              ": expected a float32, float16 or bfloat16 input on the NPU, got ", dtype);
  TORCH_CHECK(self.dim() >= 1, op, ": expected an input of rank >= 1 to split into two halves, got a 0-d tensor");
  TORCH_CHECK_INDEX(dim >= -self.dim() && dim < self.dim(), op, ": dim ", dim, " is out of range for an input of ",
                    self.dim(), " dims (expected [", -self.dim(), ", ", self.dim() - 1, "])");
  const int64_t d = dim < 0 ? dim + self.dim() : dim;
  TORCH_CHECK(self.size(d) % 2 == 0, op, ": dim ", d, " of the input of shape ", self.sizes(),
              " has an odd size: it must split into two halves");
  return d;
}

std::vector<int64_t> halfSizes(const at::Tensor& self, int64_t d) {
  std::vector<int64_t> sizes(self.sizes().begin(), self.sizes().end());
  sizes[d] /= 2;
  return sizes;
}

// A gradient of the halves' shape, in x's dtype.
at::Tensor halfGrad(const at::Tensor& grad, const at::Tensor& self, int64_t d, const char* op, const char* what) {
  const std::vector<int64_t> want = halfSizes(self, d);
  TORCH_CHECK(grad.sizes() == at::IntArrayRef(want), op, ": ", what, " of shape ", grad.sizes(), " must have shape ",
              at::IntArrayRef(want), " (the input's with dim ", d, " halved)");
  return grad.to(self.scalar_type());
}

void checkApproximate(int64_t approximate, const char* op) {
  TORCH_CHECK(approximate == 0 || approximate == 1, op, ": approximate must be 0 (erf GELU) or 1 (tanh GELU), got ",
              approximate);
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_swiglu(const at::Tensor& self, int64_t dim) {
  const int64_t d = splitDim(self, dim, "npu_swiglu");
  at::Tensor y = torch_npu::emptyNpu(halfSizes(self, d), self.scalar_type(), self.device());
  if (y.numel() == 0) return y;
  OpCommand("SwiGlu").Input(self).Output(y).Attr("dim", d).Run();
  return y;
}

at::Tensor NPUCustomFunctions::npu_swiglu_backward(const at::Tensor& grad_output, const at::Tensor& self, int64_t dim) {
  const char* op = "npu_swiglu_backward";
  const int64_t d = splitDim(self, dim, op);
  const at::Tensor grad = halfGrad(grad_output, self, d, op, "grad_output");
  at::Tensor dx = torch_npu::emptyNpuLike(self);
  if (dx.numel() == 0) return dx;
  OpCommand("SwiGluGrad").Input(grad).Input(self).Output(dx).Attr("dim", d).Run();
  return dx;
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_geglu(const at::Tensor& self, int64_t dim,
                                                                 int64_t approximate, bool activate_left) {
  const int64_t d = splitDim(self, dim, "npu_geglu");
  checkApproximate(approximate, "npu_geglu");
  const std::vector<int64_t> half = halfSizes(self, d);
  at::Tensor y = torch_npu::emptyNpu(half, self.scalar_type(), self.device());
  at::Tensor gelu = torch_npu::emptyNpu(half, self.scalar_type(), self.device());
  if (y.numel() == 0) return {y, gelu};
  OpCommand("GeGluV2")
      .Input(self)
      .Output(y)
      .Output(gelu)
      .Attr("dim", d)
      .Attr("approximate", approximate)
      .Attr("activate_left", activate_left)
      .Run();
  return {y, gelu};
}

at::Tensor NPUCustomFunctions::npu_geglu_grad(const at::Tensor& grad_output, const at::Tensor& self,
                                              const at::Tensor& gelu, int64_t dim, int64_t approximate,
                                              bool activate_left) {
  const char* op = "npu_geglu_grad";
  const int64_t d = splitDim(self, dim, op);
  checkApproximate(approximate, op);
  const at::Tensor grad = halfGrad(grad_output, self, d, op, "grad_output");
  const at::Tensor g = halfGrad(gelu, self, d, op, "gelu");
  at::Tensor dx = torch_npu::emptyNpuLike(self);
  if (dx.numel() == 0) return dx;
  OpCommand("GeGluGradV2")
      .Input(grad)
      .Input(self)
      .Input(g)
      .Output(dx)
      .Attr("dim", d)
      .Attr("approximate", approximate)
      .Attr("activate_left", activate_left)
      .Run();
  return dx;
}

namespace {

class SwiGluFunction : public torch::autograd::Function<SwiGluFunction> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self, int64_t dim) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    ctx->save_for_backward({self});
    ctx->saved_data["dim"] = dim;
    return NPUCustomFunctions::npu_swiglu(self, dim);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor self = ctx->get_saved_variables()[0];
    return {NPUCustomFunctions::npu_swiglu_backward(grads[0], self, ctx->saved_data["dim"].toInt()), at::Tensor()};
  }
};

class GeGluFunction : public torch::autograd::Function<GeGluFunction> {
 public:
  static variable_list forward(AutogradContext* ctx, const at::Tensor& self, int64_t dim, int64_t approximate,
                               bool activate_left) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    auto [y, gelu] = NPUCustomFunctions::npu_geglu(self, dim, approximate, activate_left);
    ctx->save_for_backward({self, gelu});
    ctx->saved_data["dim"] = dim;
    ctx->saved_data["approximate"] = approximate;
    ctx->saved_data["activate_left"] = activate_left;
    ctx->mark_non_differentiable({gelu});
    ctx->set_materialize_grads(false);  // gelu's gradient is never used
    return {y, gelu};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    if (!grads[0].defined()) return {at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    const auto saved = ctx->get_saved_variables();
    const at::Tensor dx = NPUCustomFunctions::npu_geglu_grad(
        grads[0], saved[0], saved[1], ctx->saved_data["dim"].toInt(), ctx->saved_data["approximate"].toInt(),
        ctx->saved_data["activate_left"].toBool());
    return {dx, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

std::tuple<at::Tensor, at::Tensor> gegluWithAutograd(const at::Tensor& self, int64_t dim, int64_t approximate,
                                                     bool activate_left) {
  auto outs = GeGluFunction::apply(self, dim, approximate, activate_left);
  return {outs[0], outs[1]};
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_swiglu", [](const at::Tensor& self, int64_t dim) { return SwiGluFunction::apply(self, dim); });
  m.impl("npu_geglu", TORCH_FN(gegluWithAutograd));
}

}  // namespace native
}  // namespace at_npu
