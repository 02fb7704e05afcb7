// native_layer_norm and its backward on LayerNormV3 / LayerNormGradV3 (see
// Note [Layer norm rows] in the simulator). mean and rstd are fp32 for every
// input dtype, as on GPUs; the kernels need gamma/beta in the input's dtype,
// so absent ones are ones/zeros and others are cast.
#include <ATen/native/layer_norm.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// Shape of mean / rstd: the input's with the normalised dims set to 1.
std::vector<int64_t> statShape(const at::Tensor& input, int64_t axis) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().begin() + axis);
  shape.resize(input.dim(), 1);
  return shape;
}

// The kernels' dtype for gamma / beta and their gradients: float32 when the
// parameter is float32 (an fp16 / bf16 input under AMP keeps fp32 weights
// unrounded, Note [Layer norm parameter dtypes] in the simulator), else the
// input's dtype.
at::ScalarType paramDtype(const c10::optional<at::Tensor>& param, const at::Tensor& input) {
  const bool fp32 = param.has_value() && param->defined() && param->scalar_type() == at::kFloat;
  return fp32 ? at::kFloat : input.scalar_type();
}

at::Tensor paramOrFill(const c10::optional<at::Tensor>& param, int64_t n, const at::Tensor& input, double fill) {
  if (param.has_value() && param->defined()) return param->reshape({n}).to(paramDtype(param, input));
  return at::full({n}, fill, input.options());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::native_layer_norm(
    const at::Tensor& input, at::IntArrayRef normalized_shape, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& bias, double eps) {
  const at::Tensor w = weight.value_or(at::Tensor()), b = bias.value_or(at::Tensor());
  const auto [m, n] = at::native::_check_layer_norm_inputs(input, normalized_shape, w, b);
  TORCH_CHECK(at::isFloatingType(input.scalar_type()), "layer_norm: expected a floating point input, got ",
              input.scalar_type());
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  at::Tensor y = torch_npu::emptyNpu(input.sizes(), input.scalar_type(), input.device());
  at::Tensor mean = torch_npu::emptyNpu(statShape(input, axis), at::kFloat, input.device());
  at::Tensor rstd = torch_npu::emptyNpu(statShape(input, axis), at::kFloat, input.device());
  if (m == 0) return {y, mean, rstd};
  if (n == 0) return {y, mean.fill_(NAN), rstd.fill_(NAN)};  // the moments of nothing, as on the CPU
  torch_npu::OpCommand cmd("LayerNormV3");
  cmd.Input(input)
      .Input(paramOrFill(weight, n, input, 1.0))
      .Input(paramOrFill(bias, n, input, 0.0))
      .Output(y)
      .Output(mean)
      .Output(rstd)
      .Attr("begin_norm_axis", axis)
      .Attr("begin_params_axis", axis)
      .Attr("epsilon", static_cast<float>(eps))
      .Run();
  return {y, mean, rstd};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::native_layer_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, at::IntArrayRef normalized_shape, const at::Tensor& mean,
    const at::Tensor& rstd, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
    std::array<bool, 3> output_mask) {
  const at::Tensor w = weight.value_or(at::Tensor()), b = bias.value_or(at::Tensor());
  const auto [m, n] = at::native::_check_layer_norm_inputs(input, normalized_shape, w, b);
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  at::Tensor dx = torch_npu::emptyNpu(input.sizes(), input.scalar_type(), input.device());
  at::Tensor dgamma = torch_npu::emptyNpu({n}, paramDtype(weight, input), input.device());
  at::Tensor dbeta = torch_npu::emptyNpu({n}, paramDtype(bias, input), input.device());
  if (m == 0 || n == 0) {
    dx.zero_();
    dgamma.zero_();
    dbeta.zero_();
  } else {
    torch_npu::OpCommand cmd("LayerNormGradV3");
    cmd.Input(grad_out.to(input.scalar_type()))
        .Input(input);
    torch_npu::addInputAs(cmd, rstd, at::kFloat);
    torch_npu::addInputAs(cmd, mean, at::kFloat);
    cmd.Input(paramOrFill(weight, n, input, 1.0))
        .Output(dx)
        .Output(dgamma)
        .Output(dbeta)
        .Attr("begin_norm_axis", axis)
        .Attr("begin_params_axis", axis)
        .Run();
  }
  auto asParam = [&](const at::Tensor& grad, const at::Tensor& param, bool wanted) {
    if (!wanted || !param.defined()) return at::Tensor();
    return grad.reshape(param.sizes()).to(param.scalar_type());
  };
  return {output_mask[0] ? dx : at::Tensor(), asParam(dgamma, w, output_mask[1]), asParam(dbeta, b, output_mask[2])};
}

}  // namespace native
}  // namespace at_npu
