// native_batch_norm (train and eval) and its backward on the BN* ops (OPS.md).
// 2-D/3-D inputs ([N,C], [N,C,L]) are viewed as [N,C,L,1]. 5-D ones
// ([N,C,D,H,W], BatchNorm3d) train on the BN3D* ops as they are (NDC1HWC0 or
// NCDHW: Note [Batch norm of 5-D activations] in the simulator), and are
// viewed as [N,C,D·H,W] in eval mode. Running statistics are updated in place
// by BNTrainingUpdate, exactly like PyTorch (unbiased variance, momentum).
// Outputs are NC1HWC0 (5-D training: NDC1HWC0) when internal formats are
// allowed; in training, the weight/bias gradients follow the weight's format.
#include <ATen/ATen.h>

#include <string>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

constexpr std::initializer_list<aclFormat> kBnFormats = {ACL_FORMAT_NC1HWC0};
constexpr std::initializer_list<aclFormat> kBn3dFormats = {ACL_FORMAT_NDC1HWC0};

// The training ops and activation formats of one input rank: BN3D* on NDC1HWC0 for 5-D, else
// BN* on NC1HWC0 (the input viewed as 4-D).
struct BnFamily {
  bool three_d;
  std::string op(const char* name) const { return std::string(three_d ? "BN3D" : "BN") + name; }
  std::initializer_list<aclFormat> formats() const { return three_d ? kBn3dFormats : kBnFormats; }
  aclFormat preferred() const { return three_d ? ACL_FORMAT_NDC1HWC0 : ACL_FORMAT_NC1HWC0; }
};

at::Tensor as4d(const at::Tensor& t) {
  TORCH_CHECK(t.dim() >= 2 && t.dim() <= 5, "batch_norm on the NPU expects a 2-D to 5-D input, got ", t.dim(), "-D");
  if (t.dim() == 4) return t;
  if (t.dim() == 5) return t.reshape({t.size(0), t.size(1), t.size(2) * t.size(3), t.size(4)});  // BatchNorm3d
  return t.reshape({t.size(0), t.size(1), t.dim() == 3 ? t.size(2) : 1, 1});
}

// A [C] float32 parameter (or `fill` when absent).
at::Tensor channelParam(const c10::optional<at::Tensor>& t, int64_t channels, double fill, const at::Tensor& like) {
  if (t.has_value() && t->defined()) {
    TORCH_CHECK(t->numel() == channels, "batch_norm: expected a parameter of ", channels, " elements, got ",
                t->sizes());
    return t->scalar_type() == at::kFloat ? *t : t->to(at::kFloat);
  }
  return at::full({channels}, fill, like.options().dtype(at::kFloat));
}

}  // namespace

::std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::native_batch_norm(
    const at::Tensor& input, const c10::optional<at::Tensor>& weight, const c10::optional<at::Tensor>& bias,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var, bool training,
    double momentum, double eps) {
  const BnFamily fam{training && input.dim() == 5};
  const at::Tensor x = fam.three_d ? input : as4d(input);
  const int64_t c = x.size(1);
  const at::Tensor scale = channelParam(weight, c, 1.0, x), offset = channelParam(bias, c, 0.0, x);
  at::Tensor y = torch_npu::emptyPreferringFormat(x.sizes(), x.scalar_type(), x.device(), fam.preferred());
  if (!training) {
    TORCH_CHECK(torch_npu::given(running_mean) && torch_npu::given(running_var),
                "batch_norm in eval mode needs running_mean and running_var");
    torch_npu::OpCommand cmd("BNInfer");
    cmd.InputKeepFormat(x, kBnFormats).InputKeepFormat(scale, kBnFormats).InputKeepFormat(offset, kBnFormats);
    cmd.InputKeepFormat(channelParam(running_mean, c, 0, x), kBnFormats);
    cmd.InputKeepFormat(channelParam(running_var, c, 1, x), kBnFormats);
    cmd.OutputKeepFormat(y, kBnFormats).Attr("epsilon", static_cast<float>(eps)).Run();
    const at::Tensor empty = at::empty({0}, x.options().dtype(at::kFloat));
    return {y.view(input.sizes()), empty, empty.clone()};
  }
  if (x.numel() == 0) {
    // Statistics of nothing (the CPU kernel divides by zero here): NaN, running statistics unchanged.
    const at::Tensor nan = at::full({c}, NAN, x.options().dtype(at::kFloat));
    return {torch_npu::emptyNpu(input.sizes(), input.scalar_type(), input.device()), nan, nan.clone()};
  }
  TORCH_CHECK(x.numel() / c > 1 || !torch_npu::given(running_var),
              "Expected more than 1 value per channel when training, "
              "got input size ",
              input.sizes());
  at::Tensor sum = at::empty({c}, x.options().dtype(at::kFloat)), square_sum = at::empty_like(sum);
  torch_npu::OpCommand(fam.op("TrainingReduce")).InputKeepFormat(x, fam.formats()).Output(sum).Output(square_sum).Run();
  // Running statistics are updated in place (outputs alias inputs).
  const bool track = torch_npu::given(running_mean) && torch_npu::given(running_var);
  // BNTrainingUpdate keeps the statistics in float32; running statistics of
  // another dtype (a model converted with .half()) are updated through a
  // float32 copy written back below, as the CPU does in its accumulate type.
  const bool stats_as_is = !track || (running_mean->scalar_type() == at::kFloat && running_mean->is_contiguous() &&
                                      running_var->scalar_type() == at::kFloat && running_var->is_contiguous());
  if (track) {
    TORCH_CHECK(running_mean->numel() == c && running_var->numel() == c, "batch_norm: expected running statistics of ",
                c, " elements, got ", running_mean->sizes(), " and ", running_var->sizes());
    TORCH_CHECK(at::isFloatingType(running_mean->scalar_type()) && at::isFloatingType(running_var->scalar_type()),
                "batch_norm: running statistics must be floating point, got ", running_mean->scalar_type(), " and ",
                running_var->scalar_type());
  }
  at::Tensor rm = !track ? at::zeros({c}, sum.options()) : stats_as_is ? *running_mean : running_mean->to(at::kFloat).contiguous();
  at::Tensor rv = !track ? at::ones({c}, sum.options()) : stats_as_is ? *running_var : running_var->to(at::kFloat).contiguous();
  at::Tensor save_mean = at::empty({c}, sum.options()), save_invstd = at::empty({c}, sum.options());
  torch_npu::OpCommand cmd(fam.op("TrainingUpdate"));
  cmd.InputKeepFormat(x, fam.formats()).Input(sum).Input(square_sum);
  cmd.InputKeepFormat(scale, kBnFormats).InputKeepFormat(offset, kBnFormats);
  cmd.InputKeepFormat(rm, kBnFormats).InputKeepFormat(rv, kBnFormats);
  cmd.OutputKeepFormat(y, fam.formats()).OutputKeepFormat(rm, kBnFormats).OutputKeepFormat(rv, kBnFormats);
  cmd.Output(save_mean).Output(save_invstd);
  cmd.Attr("epsilon", static_cast<float>(eps)).Attr("factor", static_cast<float>(momentum)).Run();
  if (!stats_as_is) {
    running_mean->copy_(rm);
    running_var->copy_(rv);
  }
  return {fam.three_d ? y : y.view(input.sizes()), save_mean, save_invstd};
}

::std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::native_batch_norm_backward(
    const at::Tensor& grad_out, const at::Tensor& input, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& running_mean, const c10::optional<at::Tensor>& running_var,
    const c10::optional<at::Tensor>& save_mean, const c10::optional<at::Tensor>& save_invstd, bool train, double eps,
    ::std::array<bool, 3> output_mask) {
  const BnFamily fam{train && input.dim() == 5};
  const at::Tensor x = fam.three_d ? input : as4d(input), dy = fam.three_d ? grad_out : as4d(grad_out);
  const int64_t c = x.size(1);
  const at::Tensor scale = channelParam(weight, c, 1.0, x);
  at::Tensor grad_input, grad_weight, grad_bias;
  if (!train) {
    // Eval mode: y = (x - mean) * invstd * scale + offset with fixed statistics.
    const at::Tensor invstd = at::rsqrt(channelParam(running_var, c, 1, x) + eps);
    const at::Tensor mean = channelParam(running_mean, c, 0, x);
    if (output_mask[0]) grad_input = (dy * (scale * invstd).reshape({1, c, 1, 1})).to(x.scalar_type());
    if (output_mask[1]) {
      grad_weight = (dy * (x - mean.reshape({1, c, 1, 1})) * invstd.reshape({1, c, 1, 1})).sum({0, 2, 3});
    }
    if (output_mask[2]) grad_bias = dy.sum({0, 2, 3}, false, at::kFloat);
  } else {
    TORCH_CHECK(torch_npu::given(save_mean) && torch_npu::given(save_invstd),
                "batch_norm backward in training mode needs the saved "
                "mean and inverse standard deviation");
    // The parameter gradients follow the format of the parameters (NC1HWC0 [C]
    // when the model was moved with internal formats allowed), so the
    // optimizer updates them without TransData.
    at::Tensor diff_scale = torch_npu::emptyFollowingFormat(scale, {c}, at::kFloat, x.device());
    at::Tensor diff_offset = torch_npu::emptyFollowingFormat(scale, {c}, at::kFloat, x.device());
    torch_npu::OpCommand(fam.op("TrainingUpdateGrad"))
        .InputKeepFormat(dy, fam.formats())
        .InputKeepFormat(x, fam.formats())
        .Input(*save_mean)
        .Input(*save_invstd)
        .OutputKeepFormat(diff_scale, kBnFormats)
        .OutputKeepFormat(diff_offset, kBnFormats)
        .Attr("epsilon", static_cast<float>(eps))
        .Run();
    if (output_mask[0]) {
      grad_input = torch_npu::emptyPreferringFormat(x.sizes(), x.scalar_type(), x.device(), fam.preferred());
      torch_npu::OpCommand(fam.op("TrainingReduceGrad"))
          .InputKeepFormat(dy, fam.formats())
          .InputKeepFormat(x, fam.formats())
          .InputKeepFormat(diff_scale, kBnFormats)
          .InputKeepFormat(diff_offset, kBnFormats)
          .InputKeepFormat(scale, kBnFormats)
          .Input(*save_mean)
          .Input(*save_invstd)
          .OutputKeepFormat(grad_input, fam.formats())
          .Attr("epsilon", static_cast<float>(eps))
          .Run();
    }
    grad_weight = diff_scale;
    grad_bias = diff_offset;
  }
  const auto param_type = torch_npu::given(weight) ? weight->scalar_type() : at::kFloat;
  if (grad_input.defined() && !fam.three_d) grad_input = grad_input.view(input.sizes());
  if (output_mask[1] && grad_weight.defined()) grad_weight = grad_weight.to(param_type);
  if (output_mask[2] && grad_bias.defined()) grad_bias = grad_bias.to(param_type);
  return {output_mask[0] ? grad_input : at::Tensor(), output_mask[1] ? grad_weight : at::Tensor(),
          output_mask[2] ? grad_bias : at::Tensor()};
}

}  // namespace native
}  // namespace at_npu
