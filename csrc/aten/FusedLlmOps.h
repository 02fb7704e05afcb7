// Shared by FusedLlmOps.cpp (the kernels) and FusedLlmAutograd.cpp.
#pragma once

#include <ATen/ATen.h>

namespace at_npu {
namespace native {

// npu_rotary_mul's operands in their common dtype, the tables expanded to one
// shape with x's last dim (Note [Fused LLM op operands]).
struct RotaryOperands {
  at::Tensor x, r1, r2;
  at::ScalarType dtype;
};
RotaryOperands rotaryOperands(const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2, const char* op);

// One RotaryMulGrad: dx, and dr1/dr2 in the expanded table shape (left
// unwritten without `need_tables`).
std::tuple<at::Tensor, at::Tensor, at::Tensor> rotaryMulBackward(const at::Tensor& grad, const RotaryOperands& in,
                                                                 bool need_tables);

// One SoftmaxCrossEntropyWithLogits: the loss (x's leading dims) and its
// gradient with respect to the logits (x's shape).
std::tuple<at::Tensor, at::Tensor> softmaxCrossEntropyWithLogits(const at::Tensor& self, const at::Tensor& labels);

}  // namespace native
}  // namespace at_npu
