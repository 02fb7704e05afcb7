// torch_npu's mixture-of-experts routing ops, ONE simulator kernel each (OPS.md
// "Mixture-of-experts kernels"), with torch_npu's signatures and outputs:
//   npu_moe_gating_top_k_softmax   MoeGatingTopKSoftmax   softmax + top-k of the router's logits
//   npu_moe_init_routing           MoeInitRouting         token rows sorted by expert (grad MoeInitRoutingV2Grad)
//   npu_moe_compute_expert_tokens  MoeComputeExpertTokens each expert's end row (GroupedMatmul's group_list)
//   npu_moe_finalize_routing       MoeFinalizeRouting     the weighted experts' outputs back into the token
//                                                         rows (grad MoeFinalizeRoutingV2Grad)
// Their autograd is in MoeAutograd.cpp; npu_grouped_matmul in GroupedMatmulOps.cpp.
// Index tensors are int32, as torch_npu's; float operands share one dtype.
#include "MoeOps.h"

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::OpCommand;

void checkFloat(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.scalar_type() == at::kFloat || t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16, op,
              ": ", name, " must be float32, float16 or bfloat16, got ", t.scalar_type());
}

void checkInt32(const char* op, const char* name, const at::Tensor& t, int64_t dim) {
  TORCH_CHECK(t.scalar_type() == at::kInt, op, ": ", name, " must be int32 (as torch_npu's routing ops give it), got ",
              t.scalar_type());
  TORCH_CHECK(t.dim() == dim, op, ": ", name, " must be ", dim, "-D, got shape ", t.sizes());
}

void checkSameDtype(const char* op, const at::Tensor& x, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.scalar_type() == x.scalar_type(), op, ": ", name, " must have the dtype of the expert rows (",
              x.scalar_type(), "), got ", t.scalar_type());
}

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_moe_gating_top_k_softmax(
    const at::Tensor& x, const c10::optional<at::Tensor>& finished, int64_t k) {
  const char* op = "npu_moe_gating_top_k_softmax";
  checkFloat(op, "x", x);
  TORCH_CHECK(x.dim() == 2 || x.dim() == 3, op, ": x must be 2-D or 3-D [..., experts], got shape ", x.sizes());
  TORCH_CHECK(k > 0 && k <= x.size(-1) && k <= 1024, op, ": k = ", k, " must be in [1, min(experts = ", x.size(-1),
              ", 1024)]");
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = k;
  at::Tensor y = torch_npu::emptyNpu(shape, x.scalar_type(), x.device());
  at::Tensor expert_idx = torch_npu::emptyNpu(shape, at::kInt, x.device());
  at::Tensor row_idx = torch_npu::emptyNpu(shape, at::kInt, x.device());
  OpCommand cmd("MoeGatingTopKSoftmax");
  cmd.Input(x);
  if (torch_npu::given(finished)) {
    TORCH_CHECK(finished->scalar_type() == at::kBool && finished->sizes() == x.sizes().slice(0, x.dim() - 1), op,
                ": finished must be bool of shape ", x.sizes().slice(0, x.dim() - 1),
                " (x's without the experts dim), got ", finished->scalar_type(), " ", finished->sizes());
    cmd.Input(*finished);
  }
  cmd.Output(y).Output(expert_idx).Output(row_idx).Attr("k", k).Run();
  return {y, expert_idx, row_idx};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUCustomFunctions::npu_moe_init_routing(const at::Tensor& x,
                                                                                        const at::Tensor& row_idx,
                                                                                        const at::Tensor& expert_idx,
                                                                                        int64_t active_num) {
  const char* op = "npu_moe_init_routing";
  checkFloat(op, "x", x);
  TORCH_CHECK(x.dim() == 2, op, ": x must be 2-D [rows, H], got shape ", x.sizes());
  checkInt32(op, "expert_idx", expert_idx, 2);
  checkInt32(op, "row_idx", row_idx, 2);
  TORCH_CHECK(expert_idx.size(0) == x.size(0) && row_idx.sizes() == expert_idx.sizes(), op,
              ": expert_idx and row_idx must both be [rows = ", x.size(0), ", k], got ", expert_idx.sizes(), " and ",
              row_idx.sizes());
  TORCH_CHECK(active_num >= 0, op, ": active_num = ", active_num, " must be >= 0");
  const int64_t n = x.size(0), k = expert_idx.size(1);
  at::Tensor expanded_x = torch_npu::emptyNpu({std::min(n, active_num) * k, x.size(1)}, x.scalar_type(), x.device());
  at::Tensor expanded_row_idx = torch_npu::emptyNpu({n * k}, at::kInt, x.device());
  at::Tensor expanded_expert_idx = torch_npu::emptyNpu({n * k}, at::kInt, x.device());
  OpCommand("MoeInitRouting")
      .Input(x)
      .Input(row_idx)
      .Input(expert_idx)
      .Output(expanded_x)
      .Output(expanded_row_idx)
      .Output(expanded_expert_idx)
      .Attr("active_num", active_num)
      .Run();
  return {expanded_x, expanded_row_idx, expanded_expert_idx};
}

at::Tensor NPUCustomFunctions::npu_moe_compute_expert_tokens(const at::Tensor& sorted_expert_for_source_row,
                                                             int64_t num_expert) {
  const char* op = "npu_moe_compute_expert_tokens";
  checkInt32(op, "sorted_expert_for_source_row", sorted_expert_for_source_row, 1);
  TORCH_CHECK(num_expert > 0 && num_expert <= 2048, op, ": num_expert = ", num_expert, " must be in [1, 2048]");
  at::Tensor out = torch_npu::emptyNpu({num_expert}, at::kInt, sorted_expert_for_source_row.device());
  OpCommand("MoeComputeExpertTokens")
      .Input(sorted_expert_for_source_row)
      .Output(out)
      .Attr("num_experts", num_expert)
      .Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_moe_finalize_routing(
    const at::Tensor& expanded_permuted_rows, const c10::optional<at::Tensor>& skip1,
    const c10::optional<at::Tensor>& skip2, const c10::optional<at::Tensor>& bias,
    const c10::optional<at::Tensor>& scales, const at::Tensor& expanded_src_to_dst_row,
    const c10::optional<at::Tensor>& export_for_source_row, c10::optional<int64_t> drop_pad_mode) {
  const char* op = "npu_moe_finalize_routing";
  const at::Tensor& x = expanded_permuted_rows;
  checkFloat(op, "expanded_permuted_rows", x);
  TORCH_CHECK(x.dim() == 2, op, ": expanded_permuted_rows must be 2-D [rows * k, H], got shape ", x.sizes());
  checkInt32(op, "expanded_src_to_dst_row", expanded_src_to_dst_row, 1);
  TORCH_CHECK(drop_pad_mode.value_or(0) == 0, op, ": drop_pad_mode = ", *drop_pad_mode,
              " (drop and pad) is not supported by the NPU backend; only 0");
  // N, the output's rows: from whichever operand has them.
  int64_t n = -1;
  for (const auto* t : {&skip1, &skip2, &scales, &export_for_source_row})
    if (torch_npu::given(*t)) n = (*t)->size(0);
  TORCH_CHECK(n > 0, op, ": needs skip1, skip2, scales or export_for_source_row to know the number of token rows");
  TORCH_CHECK(expanded_src_to_dst_row.numel() % n == 0, op, ": expanded_src_to_dst_row of ",
              expanded_src_to_dst_row.numel(), " entries is not rows * k for ", n, " rows");
  OpCommand cmd("MoeFinalizeRouting");
  cmd.Input(x);
  const std::pair<const char*, const c10::optional<at::Tensor>*> floats[] = {
      {"skip1", &skip1}, {"skip2", &skip2}, {"bias", &bias}, {"scales", &scales}};
  for (const auto& [name, t] : floats) {
    if (!torch_npu::given(*t)) continue;
    checkSameDtype(op, x, name, **t);
    TORCH_CHECK((*t)->dim() == 2, op, ": ", name, " must be 2-D, got shape ", (*t)->sizes());
    cmd.Input(**t);
  }
  cmd.Input(expanded_src_to_dst_row);
  if (torch_npu::given(export_for_source_row)) {
    checkInt32(op, "export_for_source_row", *export_for_source_row, 2);
    cmd.Input(*export_for_source_row);
  }
  TORCH_CHECK(!torch_npu::given(bias) || torch_npu::given(export_for_source_row), op,
              ": bias needs export_for_source_row (which expert's bias row each choice adds)");
  at::Tensor out = torch_npu::emptyNpu({n, x.size(1)}, x.scalar_type(), x.device());
  cmd.Output(out)
      .Attr("has_skip1", torch_npu::given(skip1))
      .Attr("has_skip2", torch_npu::given(skip2))
      .Attr("has_bias", torch_npu::given(bias))
      .Attr("has_scales", torch_npu::given(scales))
      .Attr("has_expert_idx", torch_npu::given(export_for_source_row))
      .Run();
  return out;
}

at::Tensor moeInitRoutingGrad(const at::Tensor& grad_expanded_x, const at::Tensor& expanded_row_idx, int64_t top_k,
                              int64_t active_num) {
  const int64_t n = expanded_row_idx.numel() / top_k;
  at::Tensor grad_x =
      torch_npu::emptyNpu({n, grad_expanded_x.size(1)}, grad_expanded_x.scalar_type(), grad_expanded_x.device());
  OpCommand("MoeInitRoutingV2Grad")
      .Input(grad_expanded_x)
      .Input(expanded_row_idx)
      .Output(grad_x)
      .Attr("top_k", top_k)
      .Attr("active_num", active_num)
      .Run();
  return grad_x;
}

std::tuple<at::Tensor, at::Tensor> moeFinalizeRoutingGrad(const at::Tensor& grad_y, const at::Tensor& expanded_row_idx,
                                                          const at::Tensor& expanded_x, const at::Tensor& scales,
                                                          const at::Tensor& expert_idx, const at::Tensor& bias) {
  const int64_t n = grad_y.size(0), k = expanded_row_idx.numel() / n;
  at::Tensor grad_expanded_x = torch_npu::emptyNpuLike(expanded_x);
  at::Tensor grad_scales = torch_npu::emptyNpu({n, k}, grad_y.scalar_type(), grad_y.device());
  OpCommand cmd("MoeFinalizeRoutingV2Grad");
  cmd.Input(grad_y).Input(expanded_row_idx).Input(expanded_x);
  for (const at::Tensor* t : {&scales, &expert_idx, &bias})
    if (t->defined()) cmd.Input(*t);
  cmd.Output(grad_expanded_x)
      .Output(grad_scales)
      .Attr("has_scales", scales.defined())
      .Attr("has_expert_idx", expert_idx.defined())
      .Attr("has_bias", bias.defined())
      .Run();
  return {grad_expanded_x, grad_scales};
}

}  // namespace native
}  // namespace at_npu
