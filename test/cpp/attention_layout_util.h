// q/k/v layouts of the fused attention ops (BSH, SBH, BNSD, BSND) for the
// tests of fused/test_fusion_attention_ops.cpp and
// fused/test_inference_attention_ops.cpp: [B, N, S, D] views and shapes.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

namespace torch_npu_test {

// The [B, N, S, D] view of a q/k/v-shaped tensor in `layout` with `heads` heads.
inline at::Tensor toBnsd(const at::Tensor& t, const std::string& layout, int64_t heads) {
  if (layout == "BNSD") return t;
  if (layout == "BSND") return t.transpose(1, 2);
  if (layout == "BSH") return t.view({t.size(0), t.size(1), heads, -1}).transpose(1, 2);
  return t.view({t.size(0), t.size(1), heads, -1}).permute({1, 2, 0, 3});  // SBH
}

// A [B, N, S, D] tensor in `layout`.
inline at::Tensor fromBnsd(const at::Tensor& t, const std::string& layout) {
  if (layout == "BNSD") return t;
  if (layout == "BSND") return t.transpose(1, 2);
  if (layout == "BSH") return t.transpose(1, 2).reshape({t.size(0), t.size(2), -1});
  return t.permute({2, 0, 1, 3}).reshape({t.size(2), t.size(0), -1});  // SBH
}

// q/k/v shapes for a layout: B batches, N heads, S positions, D channels.
inline std::vector<int64_t> layoutShape(const std::string& layout, int64_t b, int64_t n, int64_t s, int64_t d) {
  if (layout == "BSH") return {b, s, n * d};
  if (layout == "SBH") return {s, b, n * d};
  if (layout == "BNSD") return {b, n, s, d};
  return {b, s, n, d};
}

}  // namespace torch_npu_test
