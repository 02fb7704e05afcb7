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

// npu_grouped_matmul's quantisation lists (Note [Quantised groups] in the
// simulator): scale (+ offset) for int8 x and weights, antiquant_scale (+
// antiquant_offset) for int8 weights under fp16 / bf16 x; each empty or one
// tensor per weight. output_dtype is y's for int8 x (int8 when absent).
struct GroupedQuant {
  std::vector<at::Tensor> scale, offset, antiquant_scale, antiquant_offset;
  c10::optional<at::ScalarType> output_dtype;
  bool int8() const { return !scale.empty(); }
  bool weightOnly() const { return !antiquant_scale.empty(); }
  bool any() const { return int8() || weightOnly() || !offset.empty() || !antiquant_offset.empty(); }
};

// One GroupedMatmul launch (Note [Grouped matmul operands]): y per group, or
// one y when split_item >= 2; `group_list` the cumulative row ends of a single x.
std::vector<at::Tensor> groupedMatmul(at::TensorList x, at::TensorList weight, at::TensorList bias,
                                      at::IntArrayRef group_list, int64_t split_item, bool transpose_weight,
                                      int64_t group_type = 0, const GroupedQuant& quant = {});

}  // namespace native
}  // namespace at_npu
