#include "csrc/framework/ContiguousOpt.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>

#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/OpCommand.h"

namespace torch_npu {
namespace {

// src seen as a dense block of its storage, permuted and expanded (see the Note).
struct ViewPlan {
  std::vector<int64_t> block_sizes;  // the dense block, in storage order
  std::vector<int64_t> perm;         // Transpose's perm: output position -> block dim
  std::vector<int64_t> kept_sizes;   // sizes of the permuted block (src's non-broadcast dims > 1)
  bool broadcast = false;            // src has stride-0 dims of size > 1
};

bool planView(const at::Tensor& src, ViewPlan* plan) {
  std::vector<int64_t> kept;  // src dims of size > 1 with a non-zero stride
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (src.size(d) == 1) continue;
    if (src.stride(d) == 0) {
      plan->broadcast = true;
    } else {
      kept.push_back(d);
    }
  }
  std::vector<int64_t> order(kept.size());  // positions in `kept`, outermost storage dim first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return src.stride(kept[a]) > src.stride(kept[b]); });
  int64_t expected = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int64_t d = kept[*it];
    if (src.stride(d) != expected) return false;  // gaps or overlaps: not a dense block
    expected *= src.size(d);
  }
  plan->perm.assign(kept.size(), 0);
  for (size_t pos = 0; pos < order.size(); ++pos) {
    plan->block_sizes.push_back(src.size(kept[order[pos]]));
    plan->perm[order[pos]] = static_cast<int64_t>(pos);
  }
  for (int64_t d : kept) plan->kept_sizes.push_back(src.size(d));
  return true;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

bool gatherWithAiCoreOps(const at::Tensor& src, const at::Tensor& out) {
  if (src.numel() == 0 || hasPrivateFormat(src)) return false;
  ViewPlan plan;
  if (!planView(src, &plan)) return false;
  const bool permuted = !isIdentity(plan.perm);
  if (!permuted && !plan.broadcast) return false;  // dense already up to size-1 dims: a plain copy does it
  at::Tensor block = at::empty({0}, src.options())
                         .set_(src.storage(), src.storage_offset(), plan.block_sizes,
                               c10::contiguous_strides(plan.block_sizes));
  at::Tensor compact = block;
  if (permuted) {
    compact = plan.broadcast ? at::empty(plan.kept_sizes, src.options()) : out.view(plan.kept_sizes);
    OpCommand("Transpose").Input(block).Output(compact).Attr("perm", at::IntArrayRef(plan.perm)).Run();
  }
  if (plan.broadcast) {
    std::vector<int64_t> compact_shape;  // src's sizes with 1 at the broadcast dims
    for (int64_t d = 0; d < src.dim(); ++d) compact_shape.push_back(src.stride(d) == 0 ? 1 : src.size(d));
    OpCommand("BroadcastTo")
        .Input(compact.view(compact_shape))
        .Output(out)
        .Attr("shape", src.sizes())
        .Run();
  }
  return true;
}

}  // namespace torch_npu
