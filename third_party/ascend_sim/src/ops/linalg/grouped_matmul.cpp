// GroupedMatmul (OPS.md "Mixture-of-experts kernels"), on the Cube: many
// independent matrix products of different sizes in one launch, the experts
// of a mixture-of-experts layer (npu_grouped_matmul).
//
// Note [Grouped matmul operands]
// Inputs x_0.., weight_0.., and optionally bias_0.. (attrs x_num and
// weight_num give the first two counts; the rest are biases, one per weight
// or none). Each group g multiplies A_g [m, k] by B_g [k, n], adds bias_g
// [n] in fp32 and rounds once to x's dtype:
//   group_type 0 (split M, the forward): B_g = weight_g ([k, n], or [n, k]
//     read transposed with attr transpose_weight). A_g = x_g when there are
//     as many x as weights, or rows [start_g, end_g) of the one x [M, k] where
//     end_g = group_list[g] (cumulative, attr; start_0 = 0). x_g of any rank
//     >= 2 is taken as [rows, k] when every tensor is separate.
//   group_type 2 (split K, a weight gradient): one x [M, k] and one weight
//     [M, n], A_g = x[start_g:end_g]^T (attr transpose_x = true) and B_g =
//     weight[start_g:end_g]: y_g [k, n] = the sum over the group's rows.
// Outputs: split_item 0 / 1 give one y per group (y_g [m_g, n_g], x_g's
// leading dims); 2 / 3 give one y: the groups' rows stacked (group_type 0:
// [M, n], every n equal; group_type 2: [groups, k, n]).
#include <algorithm>
#include <string>
#include <vector>

#include "aicore/thread_pool.h"
#include "kernel/op_utils.h"
#include "ops/linalg/cube_gemm.h"

namespace ascend_sim {
namespace {

struct GroupProduct {
  GmMatrix a, b;
  int64_t m = 0, n = 0, k = 0;
  const TensorArg* bias = nullptr;
  const TensorArg* y = nullptr;
  int64_t y_offset = 0;  // element offset of the group's result in y
};

std::string indexed(const char* name, size_t i) { return std::string(name) + "_" + std::to_string(i); }

// Every group's operands, checked (shapes, dtypes, the group list).
std::vector<GroupProduct> groupsOf(const OpCall& call) {
  const int64_t x_num = attrInt(call, "x_num", 1), w_num = attrInt(call, "weight_num", 1);
  const int64_t total = static_cast<int64_t>(call.inputs.size());
  if (x_num < 1 || w_num < 1 || x_num + w_num > total || (total - x_num - w_num != 0 && total - x_num - w_num != w_num))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         std::to_string(total) + " inputs do not split into x_num = " + std::to_string(x_num) +
             " x, weight_num = " + std::to_string(w_num) + " weights and none or one bias per weight");
  const int64_t group_type = attrInt(call, "group_type", 0), split_item = attrInt(call, "split_item", 0);
  if (group_type != 0 && group_type != 2)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr group_type = " + std::to_string(group_type) + " must be 0 or 2");
  if (split_item < 0 || split_item > 3)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr split_item = " + std::to_string(split_item) + " must be 0..3");
  const bool trans_w = attrBool(call, "transpose_weight", false), trans_x = attrBool(call, "transpose_x", false);
  const std::vector<int64_t> ends = attrInts(call, "group_list", {});
  const bool single_x = x_num == 1 && (w_num > 1 || !ends.empty() || group_type == 2);
  const int64_t groups = group_type == 2 ? static_cast<int64_t>(ends.size()) : w_num;
  const TensorArg& x0 = call.inputs[0];
  checkDtype(call, x0, "input x_0", kFloatTypes);
  for (int64_t i = 0; i < total; ++i) {
    const bool is_bias = i >= x_num + w_num;
    const std::string name =
        i < x_num ? indexed("input x", i)
                  : (is_bias ? indexed("input bias", i - x_num - w_num) : indexed("input weight", i - x_num));
    if (is_bias)
      checkDtype(call, call.inputs[i], name, kFloatTypes);
    else
      checkSameDtype(call, x0, "x_0", call.inputs[i], name);
  }
  if (group_type == 2 && (x_num != 1 || w_num != 1 || !trans_x || trans_w || total != 2))
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
         "group_type 2 (split K) takes one x read transposed (transpose_x = true), one weight and no bias");
  if (group_type == 0 && trans_x) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "transpose_x needs group_type 2");
  if (!single_x && x_num != w_num)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "x_num = " + std::to_string(x_num) +
             " must be 1 (split by group_list) or weight_num = " + std::to_string(w_num));
  if (single_x && (x0.shape.size() != 2 || static_cast<int64_t>(ends.size()) != groups))
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "one x split into " + std::to_string(groups) + " groups must be [M, k] with a group_list of " +
             std::to_string(groups) + " cumulative row ends, got x " + shapeToString(x0.shape) + " and " +
             std::to_string(ends.size()) + " ends");
  if (!single_x && !ends.empty())
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "group_list splits one x; there are " + std::to_string(x_num));
  if (single_x) {
    int64_t prev = 0;
    for (int64_t e : ends) {
      if (e < prev)
        fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
             "group_list must be non-decreasing row ends, got " + shapeToString(ends));
      prev = e;
    }
    if (prev != x0.shape[0])
      fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH,
           "group_list's last end " + std::to_string(prev) + " must be x's rows " + std::to_string(x0.shape[0]));
  }
  const bool single_y = split_item >= 2;
  const size_t want_outputs = single_y ? 1 : static_cast<size_t>(groups);
  if (call.outputs.size() != want_outputs)
    fail(call, ACL_ERROR_OP_OUTPUT_NOT_MATCH,
         "split_item " + std::to_string(split_item) + " with " + std::to_string(groups) + " groups gives " +
             std::to_string(want_outputs) + " outputs, got " + std::to_string(call.outputs.size()));

  std::vector<GroupProduct> out(static_cast<size_t>(groups));
  int64_t y_rows = 0, common_n = -1;
  for (int64_t g = 0; g < groups; ++g) {
    GroupProduct& p = out[g];
    const int64_t start = single_x && g > 0 ? ends[g - 1] : 0;
    const TensorArg& w = call.inputs[x_num + (group_type == 2 ? 0 : g)];
    if (group_type == 2) {
      const TensorArg& x = call.inputs[0];
      if (w.shape.size() != 2 || w.shape[0] != x.shape[0])
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             "weight_0 " + shapeToString(w.shape) + " must be [M, n] with x's M = " + std::to_string(x.shape[0]));
      p.m = x.shape[1];
      p.k = ends[g] - start;
      p.n = w.shape[1];
      p.a = GmMatrix{x.dtype, x.data, start * x.shape[1], 1, x.shape[1]};
      p.b = GmMatrix{w.dtype, w.data, start * p.n, p.n, 1};
    } else {
      const TensorArg& x = call.inputs[single_x ? 0 : g];
      if (x.shape.size() < 2 || x.shape.size() > 6 || w.shape.size() != 2)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             indexed("x", single_x ? 0 : g) + " " + shapeToString(x.shape) + " must be 2-D to 6-D and " +
                 indexed("weight", g) + " " + shapeToString(w.shape) + " 2-D");
      p.k = x.shape.back();
      p.m = single_x ? ends[g] - start : x.numel() / std::max<int64_t>(p.k, 1);
      if (p.k == 0) p.m = numelOf(Shape(x.shape.begin(), x.shape.end() - 1));
      p.n = trans_w ? w.shape[0] : w.shape[1];
      if ((trans_w ? w.shape[1] : w.shape[0]) != p.k)
        fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
             indexed("weight", g) + " " + shapeToString(w.shape) + " does not multiply x rows of length " +
                 std::to_string(p.k) + (trans_w ? " (read transposed)" : ""));
      p.a = GmMatrix{x.dtype, x.data, start * p.k, p.k, 1};
      p.b = trans_w ? GmMatrix{w.dtype, w.data, 0, 1, p.k} : GmMatrix{w.dtype, w.data, 0, p.n, 1};
      if (total > x_num + w_num) {
        p.bias = &call.inputs[x_num + w_num + g];
        checkShapeEq(call, *p.bias, indexed("input bias", g), {p.n}, "[n] of its weight");
      }
    }
    if (common_n >= 0 && single_y && group_type == 0 && p.n != common_n)
      fail(
          call, ACL_ERROR_OP_INPUT_NOT_MATCH,
          "one output y needs every weight's n equal, got " + std::to_string(common_n) + " and " + std::to_string(p.n));
    common_n = p.n;
    p.y = &call.outputs[single_y ? 0 : g];
    p.y_offset = single_y ? y_rows * p.n : 0;
    y_rows += p.m;
    const std::string yname = single_y ? "output y" : indexed("output y", g);
    checkSameDtype(call, x0, "x_0", *p.y, yname);
    if (!single_y) {
      Shape want{p.m, p.n};
      if (!single_x && group_type == 0) {
        want = call.inputs[g].shape;
        want.back() = p.n;
      }
      checkShapeEq(call, *p.y, yname, want, "its group's [rows, n]");
    }
  }
  if (single_y) {
    const Shape want = group_type == 2 ? Shape{groups, x0.shape[1], common_n < 0 ? 0 : common_n}
                                       : Shape{y_rows, common_n < 0 ? 0 : common_n};
    checkShapeEq(call, call.outputs[0], "output y", want, "the groups' results stacked");
  }
  return out;
}

void validateGroupedMatmul(const OpCall& call) {
  checkArity(call, 2, 1u << 12, call.outputs.size() == 0 ? 1 : call.outputs.size());
  groupsOf(call);
  if (call.attrs.has("output_dtype") && attrInt(call, "output_dtype") != -1)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr output_dtype is for int8 quantisation, not modelled");
}

void computeGroupedMatmul(const OpCall& call) {
  const std::vector<GroupProduct> groups = groupsOf(call);
  const CubeRounding rnd = cubeRoundingOf(call);
  std::vector<UnitCounters> cnt(groups.size());
  parallelFor(static_cast<int64_t>(groups.size()), [&](int64_t g) {
    const GroupProduct& p = groups[g];
    std::vector<float> c(static_cast<size_t>(p.m * p.n), 0.0f);
    if (p.m > 0 && p.n > 0 && p.k > 0) cubeGemm(p.a, p.b, p.m, p.n, p.k, rnd, c.data(), &cnt[g]);
    if (p.bias != nullptr) {
      std::vector<float> b(static_cast<size_t>(p.n));
      loadFloat(p.bias->dtype, p.bias->data, 0, 1, p.n, b.data());
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) c[i * p.n + j] += b[j];
    }
    storeFloat(p.y->dtype, p.y->data, p.y_offset, p.m * p.n, c.data());
  });
  for (const UnitCounters& u : cnt)
    if (u.fp16_overflow && call.ctx.overflow) *call.ctx.overflow = true;
}

KernelCost costGroupedMatmul(const OpCall& call) {
  KernelCost c;
  c.core = CoreType::kAiCore;
  for (const GroupProduct& p : groupsOf(call)) {
    c.cube_macs += cubeUnit().padded_macs(p.m, p.n, p.k);
    c.flops += 2.0 * static_cast<double>(p.m * p.n) * static_cast<double>(p.k);
  }
  for (const TensorArg& t : call.inputs) c.mte_bytes += tensorBytes(t);
  for (const TensorArg& t : call.outputs) c.mte_bytes += tensorBytes(t);
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"GroupedMatmul", &validateGroupedMatmul, &computeGroupedMatmul,
                                     &costGroupedMatmul});

}  // namespace
}  // namespace ascend_sim
