// npu_apply_rotary_pos_emb(query, key, cos, sin, layout="BSH", rotary_mode="half"):
// torch_npu's inference rotary embedding of query and key, in place, one
// ApplyRotaryPosEmb kernel (Note [Apply rotary pos emb] in
// third_party/ascend_sim/src/ops/fused/apply_rotary_pos_emb.cpp).
//
// torch_npu defines no backward for it (training uses npu_rotary_mul): as for
// any op without a derivative, autograd raises "derivative ... is not
// implemented" when a backward reaches it, and the in-place update bumps the
// version of query and key so that a saved copy of either is caught
// (PyTorch's autogradNotImplemented fallbacks, registered below).
#include <torch/csrc/autograd/autograd_not_implemented_fallback.h>
#include <torch/library.h>

#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

constexpr const char* kRopeOp = "npu_apply_rotary_pos_emb";

struct RopeLayout {
  int64_t kernel_layout;  // the kernel's attr layout
  int64_t rank, head_dim;
};

RopeLayout ropeLayoutOf(c10::string_view layout) {
  if (layout == "BSH" || layout == "BSND") return {1, 4, 2};
  if (layout == "SBND") return {2, 4, 2};
  if (layout == "BNSD") return {3, 4, 1};
  if (layout == "TND") return {4, 3, 1};
  TORCH_CHECK(false, kRopeOp, ": layout must be one of \"BSH\", \"BSND\", \"SBND\", \"BNSD\", \"TND\", got \"", layout,
              "\"");
}

void checkRopeOperands(const at::Tensor& query, const at::Tensor& key, const at::Tensor& cos, const at::Tensor& sin,
                       c10::string_view layout_name, const RopeLayout& layout, c10::string_view rotary_mode) {
  TORCH_CHECK(rotary_mode == "half" || rotary_mode == "interleave" || rotary_mode == "quarter", kRopeOp,
              ": rotary_mode must be \"half\", \"interleave\" or \"quarter\", got \"", rotary_mode, "\"");
  for (const at::Tensor* t : {&key, &cos, &sin}) {
    TORCH_CHECK(t->device() == query.device(), kRopeOp, ": query, key, cos and sin must be on one device, got ",
                query.device(), " and ", t->device());
    TORCH_CHECK(t->scalar_type() == query.scalar_type(), kRopeOp, ": query, key, cos and sin must have one dtype, got ",
                query.scalar_type(), " and ", t->scalar_type());
  }
  TORCH_CHECK(query.device().type() == c10::DeviceType::PrivateUse1, kRopeOp, ": expected NPU tensors, got ",
              query.device());
  TORCH_CHECK(at::isFloatingType(query.scalar_type()) && query.scalar_type() != at::kDouble, kRopeOp,
              ": expected float32, float16 or bfloat16 tensors, got ", query.scalar_type());
  TORCH_CHECK(query.dim() == layout.rank && key.dim() == layout.rank, kRopeOp, ": layout ", layout_name, " takes ",
              layout.rank, "-d query and key, got ", query.sizes(), " and ", key.sizes());
  std::vector<int64_t> want = query.sizes().vec();
  want[layout.head_dim] = key.size(layout.head_dim);
  TORCH_CHECK(key.sizes() == at::IntArrayRef(want), kRopeOp, ": key of shape ", key.sizes(),
              " must match query of shape ", query.sizes(), " in every dim but the head dim ", layout.head_dim);
  const int64_t parts = rotary_mode == "quarter" ? 4 : 2;
  TORCH_CHECK(query.size(-1) % parts == 0, kRopeOp, ": the head size ", query.size(-1), " must split into ", parts,
              " equal parts for rotary_mode \"", rotary_mode, "\"");
  want[layout.head_dim] = 1;
  TORCH_CHECK(cos.sizes() == sin.sizes(), kRopeOp, ": cos of shape ", cos.sizes(), " and sin of shape ", sin.sizes(),
              " must have one shape");
  bool broadcasts = cos.dim() == layout.rank && cos.size(layout.head_dim) == 1 && cos.size(-1) == query.size(-1);
  for (int64_t d = 0; broadcasts && d < cos.dim(); ++d) broadcasts = cos.size(d) == 1 || cos.size(d) == want[d];
  TORCH_CHECK(broadcasts, kRopeOp, ": cos and sin of shape ", cos.sizes(), " must broadcast to ", at::IntArrayRef(want),
              " (query's shape with 1 in the head dim of layout ", layout_name, ")");
}

}  // namespace

std::tuple<at::Tensor&, at::Tensor&> NPUCustomFunctions::npu_apply_rotary_pos_emb(at::Tensor& query, at::Tensor& key,
                                                                                  const at::Tensor& cos,
                                                                                  const at::Tensor& sin,
                                                                                  c10::string_view layout,
                                                                                  c10::string_view rotary_mode) {
  const RopeLayout rope = ropeLayoutOf(layout);
  checkRopeOperands(query, key, cos, sin, layout, rope, rotary_mode);
  if (query.numel() == 0 && key.numel() == 0) return {query, key};
  at::Tensor query_out = torch_npu::prepareOut(kRopeOp, query, query.sizes(), query.scalar_type());
  at::Tensor key_out = torch_npu::prepareOut(kRopeOp, key, key.sizes(), key.scalar_type());
  torch_npu::OpCommand("ApplyRotaryPosEmb")
      .Input(query)
      .Input(key)
      .Input(cos)
      .Input(sin)
      .Output(query_out)
      .Output(key_out)
      .Attr("layout", rope.kernel_layout)
      .Attr("rotary_mode", std::string(rotary_mode))
      .Run();
  torch_npu::finishOut(query, query_out);
  torch_npu::finishOut(key, key_out);
  return {query, key};
}

TORCH_LIBRARY_IMPL(npu, AutogradPrivateUse1, m) {
  m.impl("npu_apply_rotary_pos_emb", torch::autograd::autogradNotImplementedFallback());
}

TORCH_LIBRARY_IMPL(npu, ADInplaceOrView, m) {
  m.impl("npu_apply_rotary_pos_emb", torch::autograd::autogradNotImplementedInplaceOrViewFallback());
}

}  // namespace native
}  // namespace at_npu
