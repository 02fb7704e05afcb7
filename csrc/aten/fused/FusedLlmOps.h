// Shared by FusedLlmOps.cpp (the kernels) and FusedLlmAutograd.cpp.
#pragma once

#include <ATen/ATen.h>

namespace at_npu {
namespace native {

// One RotaryMulGrad: dx (in the operands' common dtype), and dr1/dr2 summed
// back to each table's own shape and dtype (undefined without `need_tables`).
std::tuple<at::Tensor, at::Tensor, at::Tensor> rotaryMulGradients(const at::Tensor& grad, const at::Tensor& self,
                                                                  const at::Tensor& r1, const at::Tensor& r2,
                                                                  bool need_tables);

// One SoftmaxCrossEntropyWithLogits: the loss (x's leading dims) and its
// gradient with respect to the logits (x's shape).
std::tuple<at::Tensor, at::Tensor> softmaxCrossEntropyWithLogits(const at::Tensor& self, const at::Tensor& labels);

}  // namespace native
}  // namespace at_npu
