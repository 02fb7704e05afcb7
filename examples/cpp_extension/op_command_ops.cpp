// An OpCommand extension: two NPU ops composed from existing CANN ops, with autograd.
//
//   npu_ext::scaled_add(x, y, alpha) = x + alpha * y       one CANN Axpy
//   npu_ext::bias_gelu(x, bias)      = gelu(x + bias)      CANN Add, then Gelu; backward: GeluGrad and a sum
//   npu_ext::clip(x, lo, hi)         = clamp(x, lo, hi)    CANN ClipByValue, bounds as host 0-d inputs; backward: a mask
//
// Built by setup.py (NpuExtension) or just in time (torch_npu.utils.cpp_extension.load); the ops are
// then torch.ops.npu_ext.scaled_add / bias_gelu, and the module's functions of the same names.
#include <torch/extension.h>

#include "torch_npu/csrc/framework/OpCommand.h"
#include "torch_npu/csrc/framework/utils/OpPreparation.h"

using at_npu::native::OpCommand;
using at_npu::native::OpPreparation;

namespace {

at::Tensor scaled_add_npu(const at::Tensor& x, const at::Tensor& y, double alpha) {
  TORCH_CHECK(x.sizes() == y.sizes(), "scaled_add: x ", x.sizes(), " and y ", y.sizes(), " differ in shape");
  TORCH_CHECK(x.scalar_type() == y.scalar_type(), "scaled_add: x is ", x.scalar_type(), ", y is ", y.scalar_type());
  at::Tensor out = OpPreparation::apply_tensor(x);
  OpCommand cmd;
  cmd.Name("Axpy").Input(x).Input(y).Output(out).Attr("alpha", static_cast<float>(alpha)).Run();
  return out;
}

// Host 0-d inputs: CANN's ClipByValue takes its bounds as const inputs, in x's dtype.
at::Tensor clip_npu(const at::Tensor& x, double lo, double hi) {
  TORCH_CHECK(lo <= hi, "clip: lo ", lo, " is above hi ", hi);
  at::Tensor out = OpPreparation::apply_tensor(x);
  OpCommand cmd;
  cmd.Name("ClipByValue").Input(x).Input(c10::Scalar(lo), x.scalar_type()).Input(c10::Scalar(hi), x.scalar_type());
  cmd.Output(out).Run();
  return out;
}

// x + bias, the input of the Gelu (kept for the backward pass).
at::Tensor biased(const at::Tensor& x, const at::Tensor& bias) {
  TORCH_CHECK(bias.dim() == 1 && x.dim() >= 1 && bias.size(0) == x.size(-1), "bias_gelu: bias ", bias.sizes(),
              " must be 1-d with the last dimension of x ", x.sizes());
  at::Tensor sum = OpPreparation::apply_tensor(x);
  OpCommand add;
  add.Name("Add").Input(x).Input(bias).Output(sum).Run();
  return sum;
}

at::Tensor gelu_npu(const at::Tensor& t) {
  at::Tensor out = OpPreparation::apply_tensor(t);
  OpCommand cmd;
  cmd.Name("Gelu").Input(t).Output(out).Run();
  return out;
}

at::Tensor bias_gelu_npu(const at::Tensor& x, const at::Tensor& bias) { return gelu_npu(biased(x, bias)); }

class BiasGelu : public torch::autograd::Function<BiasGelu> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& bias) {
    at::AutoDispatchBelowADInplaceOrView guard;
    at::Tensor t = biased(x, bias);
    ctx->save_for_backward({t});
    return gelu_npu(t);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor t = ctx->get_saved_variables()[0];
    const at::Tensor dy = grads[0].contiguous();
    at::Tensor dx = OpPreparation::apply_tensor(t);
    OpCommand cmd;
    cmd.Name("GeluGrad").Input(dy).Input(t).Output(dx).Run();
    std::vector<int64_t> leading(static_cast<size_t>(t.dim() - 1));
    for (size_t i = 0; i < leading.size(); ++i) leading[i] = static_cast<int64_t>(i);
    at::Tensor dbias = leading.empty() ? dx : dx.sum(leading);
    return {dx, dbias};
  }
};

at::Tensor bias_gelu_autograd(const at::Tensor& x, const at::Tensor& bias) { return BiasGelu::apply(x, bias); }

class ScaledAdd : public torch::autograd::Function<ScaledAdd> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, const at::Tensor& y,
                            double alpha) {
    at::AutoDispatchBelowADInplaceOrView guard;
    ctx->saved_data["alpha"] = alpha;
    return scaled_add_npu(x, y, alpha);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const double alpha = ctx->saved_data["alpha"].toDouble();
    return {grads[0], grads[0] * alpha, at::Tensor()};
  }
};

at::Tensor scaled_add_autograd(const at::Tensor& x, const at::Tensor& y, double alpha) {
  return ScaledAdd::apply(x, y, alpha);
}

// clamp's gradient: the incoming one where lo <= x <= hi, else 0.
class Clip : public torch::autograd::Function<Clip> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x, double lo, double hi) {
    at::AutoDispatchBelowADInplaceOrView guard;
    ctx->save_for_backward({x});
    ctx->saved_data["lo"] = lo;
    ctx->saved_data["hi"] = hi;
    return clip_npu(x, lo, hi);
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const at::Tensor x = ctx->get_saved_variables()[0];
    const at::Tensor inside =
        x.ge(ctx->saved_data["lo"].toDouble()).logical_and(x.le(ctx->saved_data["hi"].toDouble()));
    return {grads[0] * inside, at::Tensor(), at::Tensor()};
  }
};

at::Tensor clip_autograd(const at::Tensor& x, double lo, double hi) { return Clip::apply(x, lo, hi); }

}  // namespace

TORCH_LIBRARY(npu_ext, m) {
  m.def("scaled_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor");
  m.def("bias_gelu(Tensor x, Tensor bias) -> Tensor");
  m.def("clip(Tensor x, float lo, float hi) -> Tensor");
}

TORCH_LIBRARY_IMPL(npu_ext, PrivateUse1, m) {
  m.impl("scaled_add", &scaled_add_npu);
  m.impl("bias_gelu", &bias_gelu_npu);
  m.impl("clip", &clip_npu);
}

TORCH_LIBRARY_IMPL(npu_ext, AutogradPrivateUse1, m) {
  m.impl("scaled_add", &scaled_add_autograd);
  m.impl("bias_gelu", &bias_gelu_autograd);
  m.impl("clip", &clip_autograd);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("scaled_add", &scaled_add_autograd, "x + alpha * y on the NPU (CANN Axpy)", py::arg("x"), py::arg("y"),
        py::arg("alpha") = 1.0);
  m.def("bias_gelu", &bias_gelu_autograd, "gelu(x + bias) on the NPU (CANN Add and Gelu)");
}
