// The mixture-of-experts kernels' gradient launches (MoeOps.cpp), for the
// autograd of MoeAutograd.cpp and GroupedMatmulOps.cpp.
#pragma once

#include <ATen/ATen.h>

#include <vector>

namespace at_npu {
namespace native {

// MoeInitRoutingV2Grad: x's gradient [N, H] from expanded_x's (Note [MoE routing]).
at::Tensor moeInitRoutingGrad(const at::Tensor& grad_expanded_x, const at::Tensor& expanded_row_idx, int64_t top_k,
                              int64_t active_num);

// MoeFinalizeRoutingV2Grad: (grad_expanded_x, grad_scales) of npu_moe_finalize_routing
// (Note [MoE finalize routing]); scales / expert_idx / bias may be undefined.
std::tuple<at::Tensor, at::Tensor> moeFinalizeRoutingGrad(const at::Tensor& grad_y, const at::Tensor& expanded_row_idx,
                                                          const at::Tensor& expanded_x, const at::Tensor& scales,
                                                          const at::Tensor& expert_idx, const at::Tensor& bias);

// One GroupedMatmul launch (Note [Grouped matmul operands]): y per group, or
// one y when split_item >= 2; `group_list` the cumulative row ends of a single x.
std::vector<at::Tensor> groupedMatmul(at::TensorList x, at::TensorList weight, at::TensorList bias,
                                      at::IntArrayRef group_list, int64_t split_item, bool transpose_weight,
                                      int64_t group_type = 0);

}  // namespace native
}  // namespace at_npu
