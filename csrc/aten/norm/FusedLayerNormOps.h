// The fused residual layer norms' kernels beyond torch_npu's entry points
// (FusedLayerNormOps.cpp), for their autograd (FusedLayerNormAutograd.cpp).
#pragma once

#include <ATen/ATen.h>

#include <tuple>

namespace at_npu {
namespace native {

// AddLayerNormGrad: (dx, dgamma, dbeta) of npu_add_layer_norm, plus dsum (the
// gradient of its output x, when given) in dx.
std::tuple<at::Tensor, at::Tensor, at::Tensor> addLayerNormGradients(const at::Tensor& dy, const at::Tensor& x1,
                                                                     const at::Tensor& x2, const at::Tensor& rstd,
                                                                     const at::Tensor& mean, const at::Tensor& gamma,
                                                                     const c10::optional<at::Tensor>& dsum);

}  // namespace native
}  // namespace at_npu
