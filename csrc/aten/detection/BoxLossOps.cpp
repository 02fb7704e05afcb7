// torch_npu's IoU-family losses npu_giou, npu_diou and npu_ciou and their
// backward ops, on GIoU / DIoU / CIoU and GIoUGrad / DIoUGrad / CIoUGrad
// (Note [IoU-family losses] in the simulator's ops/detection/box_losses.cpp),
// differentiable through AutogradPrivateUse1 kernels as torch_npu's are.
//
// Note [torch_npu's IoU-loss conventions]
// Boxes are [4, N] (a row per coordinate), trans=True meaning (cx, cy, w, h).
// npu_giou returns [N, 1] (torch_npu transposes the kernel's [1, N]) and, like
// torch_npu, accepts only trans=True, is_cross=False, mode=0 even in the
// forward. npu_diou and npu_ciou return [1, N], or [M, N] with is_cross (note
// npu_ciou's default is_cross=True); their backward, like torch_npu's, needs
// trans=True, is_cross=False, mode=0. mode 1 ("iof") has no loss in the family
// and is rejected. CIoU's weight alpha is a constant in the gradient.
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using torch_npu::OpCommand;

void checkBoxRows(const char* op, const at::Tensor& t, const char* name) {
  TORCH_CHECK(t.dim() == 2 && t.size(0) == 4, op, ": ", name, " must be [4, N] (a row per coordinate), got shape ",
              t.sizes());
  TORCH_CHECK(at::isFloatingType(t.scalar_type()), op, ": ", name, " must be floating point, got ", t.scalar_type());
}

void checkMode(const char* op, int64_t mode) {
  TORCH_CHECK(mode == 0, op, ": mode must be 0 (iou), the only mode of the IoU-family losses, got ", mode);
}

// torch_npu's restriction on GIoU and on every backward of the family.
void checkGradientForm(const char* op, bool trans, bool is_cross, int64_t mode) {
  TORCH_CHECK(trans && !is_cross && mode == 0, op,
              ": only trans=True, is_cross=False, mode=0 (iou) is supported, as in torch_npu; got trans=", trans,
              ", is_cross=", is_cross, ", mode=", mode);
}

// The forward kernel: overlap [1, N] or [M, N], and CIoU's atan_sub.
std::tuple<at::Tensor, at::Tensor> runLoss(const char* op, const char* acl_op, const at::Tensor& self,
                                           const at::Tensor& gtboxes, bool trans, bool is_cross, int64_t mode) {
  checkBoxRows(op, self, "bboxes");
  checkBoxRows(op, gtboxes, "gtboxes");
  checkMode(op, mode);
  const int64_t n = self.size(1), m = gtboxes.size(1);
  TORCH_CHECK(is_cross || m == n, op,
              ": with is_cross=False bboxes and gtboxes pair up and must hold as many boxes, got ", n, " and ", m);
  const auto dtype = self.scalar_type();
  at::Tensor overlap = torch_npu::emptyNpu({is_cross ? m : 1, n}, dtype, self.device());
  const bool ciou = std::string(acl_op) == "CIoU";
  at::Tensor atan_sub = ciou ? torch_npu::emptyNpuLike(overlap) : at::Tensor();
  OpCommand cmd(acl_op);
  cmd.Input(self.contiguous());
  torch_npu::addInputAs(cmd, gtboxes.contiguous(), dtype);
  cmd.Output(overlap);
  if (ciou) cmd.Output(atan_sub);
  cmd.Attr("trans", trans).Attr("is_cross", is_cross).Attr("mode", "iou").Run();
  return {overlap, atan_sub};
}

std::tuple<at::Tensor, at::Tensor> runLossGrad(const char* op, const char* acl_op, const at::Tensor& grad,
                                               const at::Tensor& bboxes, const at::Tensor& gtboxes,
                                               const at::Tensor& atan_sub, bool trans, bool is_cross, int64_t mode) {
  checkGradientForm(op, trans, is_cross, mode);
  checkBoxRows(op, bboxes, "bboxes");
  checkBoxRows(op, gtboxes, "gtboxes");
  const int64_t n = bboxes.size(1);
  TORCH_CHECK(gtboxes.sizes() == bboxes.sizes(), op, ": gtboxes must have bboxes' shape ", bboxes.sizes(), ", got ",
              gtboxes.sizes());
  TORCH_CHECK(grad.numel() == n, op, ": grad must hold one value per box (", n, "), got shape ", grad.sizes());
  const auto dtype = bboxes.scalar_type();
  at::Tensor dboxes = torch_npu::emptyNpu({4, n}, dtype, bboxes.device());
  at::Tensor dgts = torch_npu::emptyNpu({4, n}, dtype, bboxes.device());
  OpCommand cmd(acl_op);
  torch_npu::addInputAs(cmd, grad.reshape({1, n}).contiguous(), dtype);
  cmd.Input(bboxes.contiguous());
  torch_npu::addInputAs(cmd, gtboxes.contiguous(), dtype);
  if (atan_sub.defined()) {
    TORCH_CHECK(atan_sub.numel() == n, op, ": atan_sub must hold one value per box (", n, "), got shape ",
                atan_sub.sizes());
    torch_npu::addInputAs(cmd, atan_sub.reshape({1, n}).contiguous(), dtype);
  }
  cmd.Output(dboxes).Output(dgts).Attr("trans", trans).Attr("is_cross", is_cross).Attr("mode", "iou").Run();
  return {dboxes, dgts.to(gtboxes.scalar_type())};
}

// One autograd Function per loss; Loss selects the forward and backward.
enum class Loss { kGIoU, kDIoU, kCIoU };

template <Loss L>
class BoxLossFunction : public torch::autograd::Function<BoxLossFunction<L>> {
 public:
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& self, const at::Tensor& gtboxes, bool trans,
                            bool is_cross, int64_t mode) {
    at::AutoDispatchBelowADInplaceOrView below_autograd;
    at::Tensor out, atan_sub;
    if constexpr (L == Loss::kGIoU) {
      out = NPUCustomFunctions::npu_giou(self, gtboxes, trans, is_cross, mode);
    } else if constexpr (L == Loss::kDIoU) {
      out = NPUCustomFunctions::npu_diou(self, gtboxes, trans, is_cross, mode);
    } else {
      std::tie(out, atan_sub) = runLoss("npu_ciou", "CIoU", self, gtboxes, trans, is_cross, mode);
    }
    ctx->save_for_backward({self, gtboxes, atan_sub});
    ctx->saved_data["trans"] = trans;
    ctx->saved_data["is_cross"] = is_cross;
    ctx->saved_data["mode"] = mode;
    return out;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list result(5);
    if (!grads[0].defined()) return result;
    const auto saved = ctx->get_saved_variables();
    const bool trans = ctx->saved_data["trans"].toBool(), is_cross = ctx->saved_data["is_cross"].toBool();
    const int64_t mode = ctx->saved_data["mode"].toInt();
    if constexpr (L == Loss::kGIoU) {
      std::tie(result[0], result[1]) =
          NPUCustomFunctions::npu_giou_backward(grads[0], saved[0], saved[1], trans, is_cross, mode);
    } else if constexpr (L == Loss::kDIoU) {
      std::tie(result[0], result[1]) =
          NPUCustomFunctions::npu_diou_backward(grads[0], saved[0], saved[1], trans, is_cross, mode);
    } else {
      std::tie(result[0], result[1]) =
          NPUCustomFunctions::npu_ciou_backward(grads[0], saved[0], saved[1], saved[2], trans, is_cross, mode);
    }
    return result;
  }
};

at::Tensor giouWithAutograd(const at::Tensor& self, const at::Tensor& gtboxes, bool trans, bool is_cross,
                            int64_t mode) {
  return BoxLossFunction<Loss::kGIoU>::apply(self, gtboxes, trans, is_cross, mode);
}
at::Tensor diouWithAutograd(const at::Tensor& self, const at::Tensor& gtboxes, bool trans, bool is_cross,
                            int64_t mode) {
  return BoxLossFunction<Loss::kDIoU>::apply(self, gtboxes, trans, is_cross, mode);
}
at::Tensor ciouWithAutograd(const at::Tensor& self, const at::Tensor& gtboxes, bool trans, bool is_cross, int64_t mode,
                            bool /*atan_sub_flag: the saved atan_sub is kept either way*/) {
  return BoxLossFunction<Loss::kCIoU>::apply(self, gtboxes, trans, is_cross, mode);
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_giou(const at::Tensor& self, const at::Tensor& gtboxes, bool trans, bool is_cross,
                                        int64_t mode) {
  checkGradientForm("npu_giou", trans, is_cross, mode);
  return std::get<0>(runLoss("npu_giou", "GIoU", self, gtboxes, trans, is_cross, mode)).t();
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_giou_backward(const at::Tensor& grad,
                                                                         const at::Tensor& bboxes,
                                                                         const at::Tensor& gtboxes, bool trans,
                                                                         bool is_cross, int64_t mode) {
  return runLossGrad("npu_giou_backward", "GIoUGrad", grad, bboxes, gtboxes, at::Tensor(), trans, is_cross, mode);
}

at::Tensor NPUCustomFunctions::npu_diou(const at::Tensor& self, const at::Tensor& gtboxes, bool trans, bool is_cross,
                                        int64_t mode) {
  return std::get<0>(runLoss("npu_diou", "DIoU", self, gtboxes, trans, is_cross, mode));
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_diou_backward(const at::Tensor& grad,
                                                                         const at::Tensor& bboxes,
                                                                         const at::Tensor& gtboxes, bool trans,
                                                                         bool is_cross, int64_t mode) {
  return runLossGrad("npu_diou_backward", "DIoUGrad", grad, bboxes, gtboxes, at::Tensor(), trans, is_cross, mode);
}

at::Tensor NPUCustomFunctions::npu_ciou(const at::Tensor& self, const at::Tensor& gtboxes, bool trans, bool is_cross,
                                        int64_t mode, bool /*atan_sub_flag*/) {
  return std::get<0>(runLoss("npu_ciou", "CIoU", self, gtboxes, trans, is_cross, mode));
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_ciou_backward(const at::Tensor& grad,
                                                                         const at::Tensor& bboxes,
                                                                         const at::Tensor& gtboxes,
                                                                         const c10::optional<at::Tensor>& atan_sub,
                                                                         bool trans, bool is_cross, int64_t mode) {
  checkGradientForm("npu_ciou_backward", trans, is_cross, mode);
  // CIoUGrad takes the forward's atan_sub; without one, the forward runs again for it.
  at::Tensor sub = atan_sub.has_value() && atan_sub->defined()
                       ? *atan_sub
                       : std::get<1>(runLoss("npu_ciou_backward", "CIoU", bboxes, gtboxes, trans, false, mode));
  return runLossGrad("npu_ciou_backward", "CIoUGrad", grad, bboxes, gtboxes, sub, trans, is_cross, mode);
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_giou", TORCH_FN(giouWithAutograd));
  m.impl("npu_diou", TORCH_FN(diouWithAutograd));
  m.impl("npu_ciou", TORCH_FN(ciouWithAutograd));
}

}  // namespace native
}  // namespace at_npu
