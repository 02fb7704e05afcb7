// MoeInitRouting, its gradient MoeInitRoutingV2Grad and MoeComputeExpertTokens
// (OPS.md "Mixture-of-experts kernels"), on the Vector unit: the token
// permutation of a mixture-of-experts layer, which sorts the (row, choice)
// pairs by expert so that every expert's rows are contiguous for one
// GroupedMatmul.
//
// Note [MoE routing]
// x [N, H]; expert_idx [N, K] and row_idx [N, K] (int32; row_idx[r][k] =
// k * N + r, what MoeGatingTopKSoftmax writes). With p = r * K + k the
// position of a pair in expert_idx's row-major order:
//   sorted = the positions p in ascending (expert_idx[p], p)   (a stable sort)
//   expanded_expert_idx[i] = expert_idx[sorted[i]]
//   expanded_row_idx[row_idx[sorted[i]]] = i        (source pair -> its expanded row)
//   expanded_x[i] = x[row_idx[sorted[i]] % N]     for i < min(N, active_num) * K
// row_idx must hold each of 0 .. N*K-1 once (else a device fault).
// MoeInitRoutingV2Grad gives x's gradient: every expanded row's gradient
// back to its source row, summed over the row's K choices in order k = 0..K-1:
//   grad_x[r] = sum_k grad_expanded_x[expanded_row_idx[k * N + r]]
// (pairs whose expanded row is past the active rows contribute nothing).
// MoeComputeExpertTokens: sorted expert ids [M] -> for each expert e < E the
// end of its rows, out[e] = #{ i : sorted[i] <= e } (the binary search of the
// real kernel; the input must be sorted, else a device fault): the cumulative
// group list GroupedMatmul takes.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernel/op_utils.h"

namespace ascend_sim {
namespace {

constexpr DtypeMask kInt32 = dtBit(ACL_INT32);

struct RoutingDims {
  int64_t n = 0, h = 0, k = 0, active_rows = 0;  // active_rows = min(N, active_num) * K
};

RoutingDims routingDimsOf(const OpCall& call, int64_t n, int64_t h, int64_t k) {
  const int64_t active = attrInt(call, "active_num", n);
  if (active < 0)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr active_num = " + std::to_string(active) + " must be >= 0");
  return RoutingDims{n, h, k, std::min(n, active) * k};
}

void checkIndexMatrix(const OpCall& call, const TensorArg& t, const std::string& name, const Shape& want) {
  checkDtype(call, t, name, kInt32);
  checkShapeEq(call, t, name, want, "[rows, k]");
}

// --- MoeInitRouting --------------------------------------------------------------

// inputs: x [N, H], row_idx [N, K], expert_idx [N, K]; attr active_num;
// outputs: expanded_x [min(N, active_num) * K, H], expanded_row_idx [N*K], expanded_expert_idx [N*K].
RoutingDims initDimsOf(const OpCall& call) {
  const TensorArg &x = call.inputs[0], &expert = call.inputs[2];
  checkDtype(call, x, "input x", kFloatTypes);
  if (x.shape.size() != 2 || expert.shape.size() != 2)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "input x must be [rows, H] and expert_idx [rows, k], got " + shapeToString(x.shape) + " and " +
             shapeToString(expert.shape));
  const RoutingDims d = routingDimsOf(call, x.shape[0], x.shape[1], expert.shape[1]);
  checkIndexMatrix(call, expert, "input expert_idx", {d.n, d.k});
  checkIndexMatrix(call, call.inputs[1], "input row_idx", {d.n, d.k});
  return d;
}

void validateMoeInitRouting(const OpCall& call) {
  checkArity(call, 3, 3, 3);
  const RoutingDims d = initDimsOf(call);
  checkSameDtype(call, call.inputs[0], "x", call.outputs[0], "output expanded_x");
  checkShapeEq(call, call.outputs[0], "output expanded_x", {d.active_rows, d.h}, "[min(rows, active_num) * k, H]");
  for (int i = 1; i < 3; ++i) {
    const std::string name = i == 1 ? "output expanded_row_idx" : "output expanded_expert_idx";
    checkDtype(call, call.outputs[i], name, kInt32);
    checkShapeEq(call, call.outputs[i], name, {d.n * d.k}, "[rows * k]");
  }
}

void computeMoeInitRouting(const OpCall& call) {
  const RoutingDims d = initDimsOf(call);
  const int64_t pairs = d.n * d.k;
  std::vector<int64_t> expert(static_cast<size_t>(pairs)), row(static_cast<size_t>(pairs));
  loadInt(ACL_INT32, call.inputs[2].data, 0, 1, pairs, expert.data());
  loadInt(ACL_INT32, call.inputs[1].data, 0, 1, pairs, row.data());
  std::vector<int64_t> sorted(static_cast<size_t>(pairs)), dst(static_cast<size_t>(pairs), -1),
      sorted_expert(static_cast<size_t>(pairs));
  std::iota(sorted.begin(), sorted.end(), 0);
  std::stable_sort(sorted.begin(), sorted.end(), [&](int64_t a, int64_t b) { return expert[a] < expert[b]; });
  for (int64_t i = 0; i < pairs; ++i) {
    const int64_t src = row[sorted[i]];
    if (src < 0 || src >= pairs || dst[src] != -1)
      fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
           "row_idx must hold each of 0.." + std::to_string(pairs - 1) + " once, found " + std::to_string(src) +
               (src >= 0 && src < pairs ? " twice" : ""));
    dst[src] = i;
    sorted_expert[i] = expert[sorted[i]];
  }
  const TensorArg &x = call.inputs[0], &ex = call.outputs[0];
  const size_t row_bytes = static_cast<size_t>(d.h) * dtypeSize(x.dtype);
  for (int64_t i = 0; i < d.active_rows; ++i)
    std::copy_n(static_cast<const uint8_t*>(x.data) + (row[sorted[i]] % d.n) * row_bytes, row_bytes,
                static_cast<uint8_t*>(ex.data) + i * row_bytes);
  storeInt(ACL_INT32, call.outputs[1].data, 0, pairs, dst.data());
  storeInt(ACL_INT32, call.outputs[2].data, 0, pairs, sorted_expert.data());
}

KernelCost costMoeInitRouting(const OpCall& call) {
  KernelCost c = vectorCost(call);
  // A merge sort of the N*K (expert, position) keys: log2 passes over them.
  const double pairs = static_cast<double>(call.inputs[2].numel());
  const double passes = pairs > 1 ? std::ceil(std::log2(pairs)) : 1.0;
  c.vector_repeats = passes * vectorUnit().repeats(2 * call.inputs[2].numel(), ACL_INT32) +
                     vectorUnit().repeats(call.outputs[0].numel(), call.outputs[0].dtype);
  c.flops = 0;
  return c;
}

// --- MoeInitRoutingV2Grad ----------------------------------------------------------

// inputs: grad_expanded_x [A, H] (A <= N*K active rows), expanded_row_idx [N*K];
// attrs top_k (K), active_num; output: grad_x [N, H].
void validateMoeInitRoutingGrad(const OpCall& call) {
  checkArity(call, 2, 2, 1);
  const TensorArg &g = call.inputs[0], &dst = call.inputs[1], &gx = call.outputs[0];
  checkDtype(call, g, "input grad_expanded_x", kFloatTypes);
  checkDtype(call, dst, "input expanded_row_idx", kInt32);
  const int64_t k = attrInt(call, "top_k");
  if (k <= 0) fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr top_k = " + std::to_string(k) + " must be > 0");
  if (g.shape.size() != 2 || dst.shape.size() != 1 || dst.shape[0] % k != 0)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH,
         "grad_expanded_x must be [rows, H] and expanded_row_idx [N * top_k], got " + shapeToString(g.shape) + " and " +
             shapeToString(dst.shape));
  const RoutingDims d = routingDimsOf(call, dst.shape[0] / k, g.shape[1], k);
  checkShapeEq(call, g, "input grad_expanded_x", {d.active_rows, d.h}, "[min(N, active_num) * top_k, H]");
  checkSameDtype(call, g, "grad_expanded_x", gx, "output grad_x");
  checkShapeEq(call, gx, "output grad_x", {d.n, d.h}, "[N, H]");
}

void computeMoeInitRoutingGrad(const OpCall& call) {
  const TensorArg &g = call.inputs[0], &gx = call.outputs[0];
  const int64_t k = attrInt(call, "top_k"), n = call.inputs[1].shape[0] / k, h = g.shape[1], rows = g.shape[0];
  std::vector<int64_t> dst(static_cast<size_t>(n * k));
  loadInt(ACL_INT32, call.inputs[1].data, 0, 1, n * k, dst.data());
  std::vector<float> acc(static_cast<size_t>(h)), row(static_cast<size_t>(h));
  for (int64_t r = 0; r < n; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int64_t c = 0; c < k; ++c) {
      const int64_t i = dst[c * n + r];
      if (i < 0 || i >= n * k)
        fail(call, ACL_ERROR_RT_AICORE_EXCEPTION,
             "expanded_row_idx[" + std::to_string(c * n + r) + "] = " + std::to_string(i) + " is outside [0, " +
                 std::to_string(n * k) + ")");
      if (i >= rows) continue;  // dropped: past the active rows
      loadFloat(g.dtype, g.data, i * h, 1, h, row.data());
      for (int64_t j = 0; j < h; ++j) acc[j] += row[j];
    }
    storeFloat(gx.dtype, gx.data, r * h, h, acc.data());
  }
}

// --- MoeComputeExpertTokens ----------------------------------------------------------

// input: sorted_experts [M] int32; attr num_experts; output: [num_experts] int32.
void validateMoeComputeExpertTokens(const OpCall& call) {
  checkArity(call, 1, 1, 1);
  const TensorArg &s = call.inputs[0], &out = call.outputs[0];
  checkDtype(call, s, "input sorted_experts", kInt32);
  if (s.shape.size() != 1)
    fail(call, ACL_ERROR_OP_INPUT_NOT_MATCH, "input sorted_experts must be 1-D, got " + shapeToString(s.shape));
  const int64_t e = attrInt(call, "num_experts");
  if (e <= 0 || e > 2048)
    fail(call, ACL_ERROR_OP_ATTR_NOT_MATCH, "attr num_experts = " + std::to_string(e) + " must be in [1, 2048]");
  checkDtype(call, out, "output expert_tokens", kInt32);
  checkShapeEq(call, out, "output expert_tokens", {e}, "[num_experts]");
}

void computeMoeComputeExpertTokens(const OpCall& call) {
  const int64_t m = call.inputs[0].shape[0], e = attrInt(call, "num_experts");
  std::vector<int64_t> s(static_cast<size_t>(m)), out(static_cast<size_t>(e));
  loadInt(ACL_INT32, call.inputs[0].data, 0, 1, m, s.data());
  if (!std::is_sorted(s.begin(), s.end()))
    fail(call, ACL_ERROR_RT_AICORE_EXCEPTION, "sorted_experts is not sorted in ascending order");
  for (int64_t x = 0; x < e; ++x) out[x] = std::upper_bound(s.begin(), s.end(), x) - s.begin();
  storeInt(ACL_INT32, call.outputs[0].data, 0, e, out.data());
}

KernelCost costMoeComputeExpertTokens(const OpCall& call) {
  KernelCost c = vectorCost(call);
  const int64_t m = call.inputs[0].shape[0];
  // one binary search per expert over M sorted ids
  c.vector_repeats = static_cast<double>(call.outputs[0].numel()) * std::ceil(std::log2(static_cast<double>(m) + 2));
  c.flops = 0;
  return c;
}

ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MoeInitRouting", &validateMoeInitRouting, &computeMoeInitRouting,
                                     &costMoeInitRouting, /*moves_data_only=*/true});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MoeInitRoutingV2Grad", &validateMoeInitRoutingGrad, &computeMoeInitRoutingGrad,
                                     &vectorCost});
ASCEND_SIM_REGISTER_KERNEL(KernelDef{"MoeComputeExpertTokens", &validateMoeComputeExpertTokens,
                                     &computeMoeComputeExpertTokens, &costMoeComputeExpertTokens});

}  // namespace
}  // namespace ascend_sim
