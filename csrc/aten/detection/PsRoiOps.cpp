// torchvision's ps_roi_align / ps_roi_pool and their backward on the NPU, as
// PSROIAlign(Grad) and PSROIPoolingV2 / PSROIPoolingGradV2D (Note
// [Position-sensitive bins] in the simulator's ops/detection/ps_roi.cpp); and
// torch_npu's npu_ps_roi_pooling (+ backward, differentiable in self) on the
// same kernels in CANN's R-FCN form (Note [R-FCN position-sensitive pooling]).
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "DetectionOps.h"
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace detection {
namespace {

void checkPsChannels(const char* op, int64_t channels, int64_t pooled_height, int64_t pooled_width) {
  TORCH_CHECK(channels % (pooled_height * pooled_width) == 0, op, ": the input's ", channels,
              " channels must be a multiple of pooled_height * pooled_width = ", pooled_height * pooled_width);
}

torch_npu::OpCommand& psAttrs(torch_npu::OpCommand& cmd, const char* acl_op, double spatial_scale,
                              int64_t pooled_height, int64_t pooled_width, int64_t sample_num) {
  cmd.Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("pooled_height", pooled_height)
      .Attr("pooled_width", pooled_width);
  if (std::string(acl_op) == "PSROIAlign" || std::string(acl_op) == "PSROIAlignGrad")
    cmd.Attr("sample_num", sample_num);
  return cmd;
}

}  // namespace

std::tuple<at::Tensor, at::Tensor> psRoi(const char* op, const char* acl_op, const at::Tensor& input,
                                         const at::Tensor& rois, double spatial_scale, int64_t pooled_height,
                                         int64_t pooled_width, int64_t sample_num) {
  checkFeatureMap(op, input);
  checkRois(op, rois, input);
  checkPooledSize(op, pooled_height, pooled_width);
  checkPsChannels(op, input.size(1), pooled_height, pooled_width);
  const std::vector<int64_t> shape{rois.size(0), input.size(1) / (pooled_height * pooled_width), pooled_height,
                                   pooled_width};
  at::Tensor out = torch_npu::emptyNpu(shape, input.scalar_type(), input.device());
  at::Tensor mapping = torch_npu::emptyNpu(shape, at::kInt, input.device());
  if (out.numel() == 0) return {out, mapping};
  torch_npu::OpCommand cmd(acl_op);
  cmd.Input(input).Input(rois).Output(out).Output(mapping);
  psAttrs(cmd, acl_op, spatial_scale, pooled_height, pooled_width, std::max<int64_t>(sample_num, 0)).Run();
  return {out, mapping};
}

at::Tensor psRoiBackward(const char* op, const char* acl_op, const at::Tensor& grad, const at::Tensor& rois,
                         const at::Tensor& channel_mapping, at::IntArrayRef input_size, double spatial_scale,
                         int64_t pooled_height, int64_t pooled_width, int64_t sample_num) {
  checkInputSize(op, input_size);
  checkRois(op, rois, grad);
  checkPooledSize(op, pooled_height, pooled_width);
  checkPsChannels(op, input_size[1], pooled_height, pooled_width);
  const int64_t c_out = input_size[1] / (pooled_height * pooled_width);
  TORCH_CHECK(grad.dim() == 4 && grad.size(0) == rois.size(0) && grad.size(1) == c_out &&
                  grad.size(2) == pooled_height && grad.size(3) == pooled_width,
              op, ": grad of shape ", grad.sizes(), " must be [K, C / (pooled_height * pooled_width), ph, pw] = [",
              rois.size(0), ", ", c_out, ", ", pooled_height, ", ", pooled_width, "]");
  TORCH_CHECK(channel_mapping.sizes() == grad.sizes(), op, ": channel_mapping of shape ", channel_mapping.sizes(),
              " must have grad's shape ", grad.sizes());
  at::Tensor grad_input = torch_npu::emptyNpu(input_size, grad.scalar_type(), grad.device());
  if (grad.numel() == 0 || grad_input.numel() == 0) return grad_input.zero_();
  torch_npu::OpCommand cmd(acl_op);
  cmd.Input(grad).Input(rois).Input(channel_mapping).Output(grad_input);
  psAttrs(cmd, acl_op, spatial_scale, pooled_height, pooled_width, std::max<int64_t>(sample_num, 0)).Run();
  return grad_input;
}

}  // namespace detection

namespace {

void checkRfcnArgs(const char* op, const at::Tensor& rois, int64_t group_size, int64_t output_dim) {
  TORCH_CHECK(rois.dim() == 3 && rois.size(1) == 5, op,
              ": rois must be [batch, 5, rois_num] (batch index, x1, y1, x2, y2 per column), got shape ", rois.sizes());
  TORCH_CHECK(at::isFloatingType(rois.scalar_type()), op, ": rois must be floating point, got ", rois.scalar_type());
  TORCH_CHECK(group_size > 0 && output_dim > 0, op, ": group_size and output_dim must be positive, got ", group_size,
              " and ", output_dim);
}

torch_npu::OpCommand& rfcnAttrs(torch_npu::OpCommand& cmd, double spatial_scale, int64_t group_size,
                                int64_t output_dim) {
  return cmd.Attr("spatial_scale", static_cast<float>(spatial_scale))
      .Attr("output_dim", output_dim)
      .Attr("group_size", group_size);
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_ps_roi_pooling(const at::Tensor& self, const at::Tensor& rois, double spatial_scale,
                                                  int64_t group_size, int64_t output_dim) {
  const char* op = "npu_ps_roi_pooling";
  detection::checkFeatureMap(op, self);
  checkRfcnArgs(op, rois, group_size, output_dim);
  TORCH_CHECK(self.size(1) == output_dim * group_size * group_size, op, ": self's ", self.size(1),
              " channels must be output_dim * group_size^2 = ", output_dim * group_size * group_size);
  TORCH_CHECK(rois.size(0) == self.size(0), op, ": rois' batch ", rois.size(0), " must be self's ", self.size(0));
  at::Tensor out = torch_npu::emptyNpu({rois.size(0) * rois.size(2), output_dim, group_size, group_size},
                                       self.scalar_type(), self.device());
  if (out.numel() == 0) return out;
  torch_npu::OpCommand cmd("PSROIPoolingV2");
  cmd.Input(self.contiguous());
  torch_npu::addInputAs(cmd, rois.contiguous(), self.scalar_type());
  rfcnAttrs(cmd.Output(out), spatial_scale, group_size, output_dim).Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_ps_roi_pooling_backward(const at::Tensor& output_grad, const at::Tensor& rois,
                                                           double spatial_scale, int64_t group_size, int64_t output_dim,
                                                           at::IntArrayRef input_size) {
  const char* op = "npu_ps_roi_pooling_backward";
  checkRfcnArgs(op, rois, group_size, output_dim);
  TORCH_CHECK(input_size.size() == 2 && input_size[0] >= 0 && input_size[1] >= 0, op,
              ": input_size must be [H, W], got ", input_size);
  const std::vector<int64_t> want{rois.size(0) * rois.size(2), output_dim, group_size, group_size};
  TORCH_CHECK(output_grad.sizes() == at::IntArrayRef(want), op, ": output_grad must be ", at::IntArrayRef(want),
              ", got ", output_grad.sizes());
  at::Tensor grad_input =
      torch_npu::emptyNpu({rois.size(0), group_size * group_size * output_dim, input_size[0], input_size[1]},
                          output_grad.scalar_type(), output_grad.device());
  if (output_grad.numel() == 0 || grad_input.numel() == 0) return grad_input.zero_();
  torch_npu::OpCommand cmd("PSROIPoolingGradV2D");
  cmd.Input(output_grad.contiguous());
  torch_npu::addInputAs(cmd, rois.contiguous(), output_grad.scalar_type());
  rfcnAttrs(cmd.Output(grad_input), spatial_scale, group_size, output_dim).Attr("input_size", input_size).Run();
  return grad_input;
}

namespace {

class PsRoiPoolingFunction : public torch::autograd::Function<PsRoiPoolingFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& self, const at::Tensor& rois,
                            double spatial_scale, int64_t group_size, int64_t output_dim) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    ctx->save_for_backward({rois});
    ctx->saved_data["spatial_scale"] = spatial_scale;
    ctx->saved_data["group_size"] = group_size;
    ctx->saved_data["output_dim"] = output_dim;
    ctx->saved_data["input_size"] = std::vector<int64_t>{self.size(2), self.size(3)};
    return NPUCustomFunctions::npu_ps_roi_pooling(self, rois, spatial_scale, group_size, output_dim);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    torch::autograd::variable_list result(5);
    if (!grads[0].defined()) return result;
    auto& d = ctx->saved_data;
    result[0] = NPUCustomFunctions::npu_ps_roi_pooling_backward(grads[0], ctx->get_saved_variables()[0],
                                                                d["spatial_scale"].toDouble(), d["group_size"].toInt(),
                                                                d["output_dim"].toInt(), d["input_size"].toIntVector());
    return result;
  }
};

at::Tensor psRoiPoolingWithAutograd(const at::Tensor& self, const at::Tensor& rois, double spatial_scale,
                                    int64_t group_size, int64_t output_dim) {
  return PsRoiPoolingFunction::apply(self, rois, spatial_scale, group_size, output_dim);
}

}  // namespace

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) { m.impl("npu_ps_roi_pooling", TORCH_FN(psRoiPoolingWithAutograd)); }

}  // namespace native
}  // namespace at_npu
