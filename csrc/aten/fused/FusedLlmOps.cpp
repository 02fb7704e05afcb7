// torch_npu's fused LLM custom ops, each ONE simulator kernel each way (OPS.md
// "Fused LLM kernels" and "More elementwise"), where an unfused graph runs
// four to six Vector ops:
//   fast_gelu / npu_fast_gelu            FastGelu         (backward FastGeluGrad)
//   npu_rms_norm                         RmsNorm          (backward RmsNormGrad)
//   npu_add_rms_norm                     AddRmsNorm       (backward RmsNormGrad)
//   npu_rotary_mul                       RotaryMul        (backward RotaryMulGrad)
//   npu_softmax_cross_entropy_with_logits SoftmaxCrossEntropyWithLogits
// Their autograd is in FusedLlmAutograd.cpp.
//
// Note [Fused LLM op operands]
// The kernels take operands of one float dtype; these entry points promote
// their tensor operands with PyTorch's rules first (an fp16 query with fp32
// cos/sin tables computes in fp32, as the composite expression would), except
// npu_rms_norm, whose y keeps x's dtype and whose gamma may be any float
// dtype, as in torch_npu. Tables of npu_rotary_mul that broadcast differently
// from each other, or along the last dim, are expanded to one table shape.
// softmax cross entropy runs on [rows, C] over the last dim of any rank >= 1.
#include "FusedLlmOps.h"

#include <ATen/ExpandUtils.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/aten/pointwise/PointwiseMath.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

// npu_rotary_mul's operands in their common dtype, the tables expanded to one
// shape with x's last dim (Note [Fused LLM op operands]).
struct RotaryOperands {
  at::Tensor x, r1, r2;
  at::ScalarType dtype;
};

at::Tensor fastGelu(const at::Tensor& self) {
  torch_npu::checkFloatingInput("fast_gelu", self);
  at::Tensor out = torch_npu::pointwiseResult({self}, self.scalar_type());
  return torch_npu::pointwiseInto("FastGelu", {self}, self.scalar_type(), self.scalar_type(), out);
}

// rstd's shape (torch_npu::normStatShape), for float x and gamma.
std::vector<int64_t> rmsStatShape(const at::Tensor& self, const at::Tensor& gamma, const char* op) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) && at::isFloatingType(gamma.scalar_type()), op,
              ": expected floating x and gamma, got ", self.scalar_type(), " and ", gamma.scalar_type());
  return torch_npu::normStatShape(op, self, gamma);
}

}  // namespace

at::Tensor NPUCustomFunctions::fast_gelu(const at::Tensor& self) { return fastGelu(self); }

at::Tensor NPUCustomFunctions::npu_fast_gelu(const at::Tensor& self) { return fastGelu(self); }

at::Tensor NPUCustomFunctions::npu_fast_gelu_backward(const at::Tensor& grad, const at::Tensor& self) {
  torch_npu::checkFloatingInput("npu_fast_gelu_backward", self);
  TORCH_CHECK(grad.sizes() == self.sizes(), "npu_fast_gelu_backward: grad of shape ", grad.sizes(),
              " does not match self of shape ", self.sizes());
  const auto dtype = torch_npu::commonDtype({grad, self}, false);
  at::Tensor out = torch_npu::pointwiseResult({grad, self}, dtype);
  return torch_npu::pointwiseInto("FastGeluGrad", {grad, self}, dtype, dtype, out);
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_rms_norm(const at::Tensor& self, const at::Tensor& gamma,
                                                                    double epsilon) {
  const std::vector<int64_t> stat_shape = rmsStatShape(self, gamma, "npu_rms_norm");
  at::Tensor y = torch_npu::emptyNpuLike(self);
  at::Tensor rstd = torch_npu::emptyNpu(stat_shape, at::kFloat, self.device());
  if (self.numel() == 0) return {y, gamma.numel() == 0 ? rstd.fill_(NAN) : rstd};  // rms of nothing: NaN
  OpCommand("RmsNorm").Input(self).Input(gamma).Output(y).Output(rstd).Attr("epsilon", static_cast<float>(epsilon)).Run();
  return {y, rstd};
}

std::tuple<at::Tensor, at::Tensor> NPUCustomFunctions::npu_rms_norm_backward(const at::Tensor& dy,
                                                                             const at::Tensor& self,
                                                                             const at::Tensor& gamma,
                                                                             const at::Tensor& rstd) {
  const std::vector<int64_t> stat_shape = rmsStatShape(self, gamma, "npu_rms_norm_backward");
  TORCH_CHECK(dy.sizes() == self.sizes(), "npu_rms_norm_backward: dy of shape ", dy.sizes(),
              " does not match x of shape ", self.sizes());
  TORCH_CHECK(rstd.numel() == c10::multiply_integers(stat_shape), "npu_rms_norm_backward: rstd of shape ",
              rstd.sizes(), " must hold one value per row of x (shape ", stat_shape, ")");
  at::Tensor dx = torch_npu::emptyNpuLike(self);
  at::Tensor dgamma = torch_npu::emptyNpu(gamma.sizes(), at::kFloat, self.device());
  if (self.numel() == 0) return {dx, dgamma.zero_()};
  OpCommand("RmsNormGrad")
      .Input(dy.to(self.scalar_type()))
      .Input(self)
      .Input(rstd.to(at::kFloat))
      .Input(gamma)
      .Output(dx)
      .Output(dgamma)
      .Run();
  return {dx, dgamma};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_add_rms_norm(const at::Tensor& x1,
                                                                                    const at::Tensor& x2,
                                                                                    const at::Tensor& gamma,
                                                                                    double epsilon) {
  constexpr const char* op = "npu_add_rms_norm";
  TORCH_CHECK(x1.sizes() == x2.sizes() && x1.scalar_type() == x2.scalar_type(), op,
              ": x1 and x2 must have one shape and dtype, got ", x1.scalar_type(), " ", x1.sizes(), " and ",
              x2.scalar_type(), " ", x2.sizes());
  TORCH_CHECK(x2.device() == x1.device() && gamma.device() == x1.device(), op,
              ": x1, x2 and gamma must be on one device, got ", x1.device(), ", ", x2.device(), " and ",
              gamma.device());
  const std::vector<int64_t> stat_shape = rmsStatShape(x1, gamma, op);
  at::Tensor y = torch_npu::emptyNpuLike(x1), x = torch_npu::emptyNpuLike(x1);
  at::Tensor rstd = torch_npu::emptyNpu(stat_shape, at::kFloat, x1.device());
  if (x1.numel() == 0) return {y, gamma.numel() == 0 ? rstd.fill_(NAN) : rstd, x};  // rms of nothing: NaN
  OpCommand("AddRmsNorm")
      .Input(x1)
      .Input(x2)
      .Input(gamma)
      .Output(y)
      .Output(rstd)
      .Output(x)
      .Attr("epsilon", static_cast<float>(epsilon))
      .Run();
  return {y, rstd, x};
}

namespace {

RotaryOperands rotaryOperands(const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2, const char* op) {
  const int64_t d = self.dim() == 0 ? 0 : self.size(-1);
  TORCH_CHECK(self.dim() >= 1 && d % 2 == 0, op, ": the last dim of x (", self.sizes(),
              ") must be even: its two halves are rotated");
  const auto dtype = at::promote_types(at::result_type(self, r1), r2.scalar_type());
  TORCH_CHECK(at::isFloatingType(dtype), op, ": expected floating x, r1 and r2, got ", self.scalar_type(), ", ",
              r1.scalar_type(), " and ", r2.scalar_type());
  const bool fits = at::is_expandable_to(r1.sizes(), self.sizes()) && at::is_expandable_to(r2.sizes(), self.sizes());
  TORCH_CHECK(fits, op, ": r1 of shape ", r1.sizes(), " and r2 of shape ", r2.sizes(), " must broadcast to x of shape ",
              self.sizes());
  std::vector<int64_t> table = at::infer_size(r1.sizes(), r2.sizes());
  if (table.empty()) table.push_back(d);  // 0-d tables
  table.back() = d;
  return {self.to(dtype), r1.to(dtype).expand(table), r2.to(dtype).expand(table), dtype};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> rotaryMulBackward(const at::Tensor& grad, const RotaryOperands& in,
                                                                 bool need_tables) {
  TORCH_CHECK(grad.sizes() == in.x.sizes(), "npu_rotary_mul_backward: grad of shape ", grad.sizes(),
              " does not match x of shape ", in.x.sizes());
  at::Tensor dx = torch_npu::emptyNpuLike(in.x);
  at::Tensor dr1 = torch_npu::emptyNpu(in.r1.sizes(), in.dtype, in.x.device());
  at::Tensor dr2 = torch_npu::emptyNpu(in.r2.sizes(), in.dtype, in.x.device());
  if (in.x.numel() == 0) return {dx, dr1.zero_(), dr2.zero_()};
  OpCommand("RotaryMulGrad")
      .Input(grad.to(in.dtype))
      .Input(in.x)
      .Input(in.r1)
      .Input(in.r2)
      .Output(dx)
      .Output(dr1)
      .Output(dr2)
      .Attr("need_backward", need_tables)
      .Run();
  return {dx, dr1, dr2};
}

}  // namespace

at::Tensor NPUCustomFunctions::npu_rotary_mul(const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2) {
  const RotaryOperands in = rotaryOperands(self, r1, r2, "npu_rotary_mul");
  at::Tensor y = torch_npu::emptyNpu(self.sizes(), in.dtype, self.device());
  if (self.numel() == 0) return y;
  OpCommand("RotaryMul").Input(in.x).Input(in.r1).Input(in.r2).Output(y).Run();
  return y;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> rotaryMulGradients(const at::Tensor& grad, const at::Tensor& self,
                                                                  const at::Tensor& r1, const at::Tensor& r2,
                                                                  bool need_tables) {
  auto [dx, dr1, dr2] = rotaryMulBackward(grad, rotaryOperands(self, r1, r2, "npu_rotary_mul_backward"), need_tables);
  if (!need_tables) return {dx, at::Tensor(), at::Tensor()};
  return {dx, at::sum_to(dr1, r1.sizes()).to(r1.scalar_type()), at::sum_to(dr2, r2.sizes()).to(r2.scalar_type())};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_rotary_mul_backward(const at::Tensor& grad,
                                                                                           const at::Tensor& self,
                                                                                           const at::Tensor& r1,
                                                                                           const at::Tensor& r2) {
  return rotaryMulGradients(grad, self, r1, r2, true);
}

std::tuple<at::Tensor, at::Tensor> softmaxCrossEntropyWithLogits(const at::Tensor& self, const at::Tensor& labels) {
  const char* op = "npu_softmax_cross_entropy_with_logits";
  TORCH_CHECK(self.sizes() == labels.sizes(), op, ": logits ", self.sizes(), " and labels ", labels.sizes(),
              " must have the same shape");
  TORCH_CHECK(self.dim() >= 1, op, ": expected logits with a class dim (rank >= 1), got a 0-d tensor");
  const auto dtype = at::result_type(self, labels);
  TORCH_CHECK(at::isFloatingType(dtype), op, ": expected floating logits and labels, got ", self.scalar_type(),
              " and ", labels.scalar_type());
  const auto leading = self.sizes().slice(0, self.dim() - 1);
  if (self.numel() == 0) {  // no rows, or no classes: each loss is an empty sum
    return {torch_npu::emptyNpu(leading, dtype, self.device()).zero_(),
            torch_npu::emptyNpu(self.sizes(), dtype, self.device())};
  }
  const int64_t c = self.size(-1), rows = self.numel() / c;
  at::Tensor loss = torch_npu::emptyNpu({rows}, dtype, self.device());
  at::Tensor backprop = torch_npu::emptyNpu({rows, c}, dtype, self.device());
  OpCommand("SoftmaxCrossEntropyWithLogits")
      .Input(self.to(dtype).reshape({rows, c}))
      .Input(labels.to(dtype).reshape({rows, c}))
      .Output(loss)
      .Output(backprop)
      .Run();
  return {loss.reshape(leading), backprop.reshape(self.sizes())};
}

at::Tensor NPUCustomFunctions::npu_softmax_cross_entropy_with_logits(const at::Tensor& self,
                                                                     const at::Tensor& labels) {
  return std::get<0>(softmaxCrossEntropyWithLogits(self, labels));
}

at::Tensor NPUCustomFunctions::npu_softmax_cross_entropy_with_logits_backward(const at::Tensor& grad,
                                                                              const at::Tensor& self,
                                                                              const at::Tensor& labels) {
  const at::Tensor backprop = std::get<1>(softmaxCrossEntropyWithLogits(self, labels));
  return grad.unsqueeze(-1) * backprop;
}

}  // namespace native
}  // namespace at_npu
