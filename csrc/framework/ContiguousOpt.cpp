#include "csrc/framework/ContiguousOpt.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <numeric>

#include "csrc/framework/FormatHelper.h"
#include "csrc/framework/OpCommand.h"

namespace torch_npu {
namespace {

// src seen as a forward slice of a dense block of its storage, permuted and
// expanded (see the Note). The block's dims are src's non-broadcast dims of
// size > 1 in storage order (largest stride first).
struct ViewPlan {
  int64_t block_offset = 0;           // storage offset of the block's first element
  std::vector<int64_t> block_sizes;   // the dense block
  std::vector<int64_t> begin, end, step;  // the slice of the block (StridedSliceD)
  bool sliced = false;                // the slice is not the whole block
  std::vector<int64_t> slice_sizes;   // the slice, in storage order
  std::vector<int64_t> perm;          // Transpose's perm: output position -> storage-order dim
  std::vector<int64_t> kept_sizes;    // sizes of the permuted slice (src's order)
  bool broadcast = false;             // src has stride-0 dims of size > 1
};

bool planView(const at::Tensor& src, ViewPlan* plan) {
  std::vector<int64_t> kept;  // src dims of size > 1 with a non-zero stride
  for (int64_t d = 0; d < src.dim(); ++d) {
    if (src.size(d) == 1) continue;
    if (src.stride(d) == 0) {
      plan->broadcast = true;
    } else if (src.stride(d) < 0) {
      return false;
    } else {
      kept.push_back(d);
    }
  }
  std::vector<int64_t> order(kept.size());  // positions in `kept`, outermost storage dim first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return src.stride(kept[a]) > src.stride(kept[b]); });
  const size_t k = order.size();
  std::vector<int64_t> n(k), s(k), contiguous(k, 1);
  for (size_t i = 0; i < k; ++i) {
    n[i] = src.size(kept[order[i]]);
    s[i] = src.stride(kept[order[i]]);
  }
  // Block dim i has contiguous stride s[i] for i < k-1 (step 1) and 1 for the
  // innermost (step s[k-1]); its size is the ratio of neighbouring strides.
  for (size_t i = 0; i + 1 < k; ++i) contiguous[i] = s[i];
  plan->block_sizes.assign(k, 0);
  plan->step.assign(k, 1);
  if (k > 0) {
    plan->step[k - 1] = s[k - 1];
    // The outermost dim is taken whole from the first element on (a 1-D
    // strided run spans (n - 1) * stride + 1 elements).
    plan->block_sizes[0] = k == 1 ? (n[0] - 1) * s[0] + 1 : n[0];
  }
  for (size_t i = 1; i < k; ++i) {
    if (contiguous[i - 1] % contiguous[i] != 0) return false;  // strides that do not nest
    plan->block_sizes[i] = contiguous[i - 1] / contiguous[i];
  }
  // The slice's begin in the block, from the storage offset (the outermost
  // dim begins at 0): offset = block_offset + sum(begin[i] * contiguous[i]).
  int64_t offset = src.storage_offset();
  plan->begin.assign(k, 0);
  for (size_t i = 1; i < k; ++i) {
    plan->begin[i] = (src.storage_offset() / contiguous[i]) % plan->block_sizes[i];
    offset -= plan->begin[i] * contiguous[i];
  }
  plan->block_offset = offset;
  int64_t block_numel = 1;
  for (size_t i = 0; i < k; ++i) {
    plan->end.push_back(plan->begin[i] + (n[i] - 1) * plan->step[i] + 1);
    if (plan->end[i] > plan->block_sizes[i]) return false;  // the view wraps around a block dim
    block_numel *= plan->block_sizes[i];
    plan->sliced = plan->sliced || plan->begin[i] != 0 || plan->step[i] != 1 || plan->end[i] != plan->block_sizes[i];
  }
  if (offset < 0 || offset + block_numel > static_cast<int64_t>(src.storage().nbytes() / src.itemsize())) {
    return false;  // the block would reach outside the storage
  }
  plan->slice_sizes = n;
  plan->perm.assign(k, 0);
  for (size_t pos = 0; pos < k; ++pos) plan->perm[order[pos]] = static_cast<int64_t>(pos);
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
  if (!plan.sliced && !permuted && !plan.broadcast) return false;  // dense up to size-1 dims: a plain copy
  // Each stage writes straight into `out` when it is the last one.
  auto stageOutput = [&](const std::vector<int64_t>& sizes, bool last) {
    return last ? out.view(sizes) : at::empty(sizes, src.options());
  };
  at::Tensor current = at::empty({0}, src.options())
                           .set_(src.storage(), plan.block_offset, plan.block_sizes,
                                 c10::contiguous_strides(plan.block_sizes));
  if (plan.sliced) {
    at::Tensor sliced = stageOutput(plan.slice_sizes, !permuted && !plan.broadcast);
    RECORD_FUNCTION("contiguous_d_StridedSlice", std::vector<c10::IValue>({src}));
    OpCommand("StridedSliceD")
        .Input(current)
        .Output(sliced)
        .Attr("begin", at::IntArrayRef(plan.begin))
        .Attr("end", at::IntArrayRef(plan.end))
        .Attr("strides", at::IntArrayRef(plan.step))
        .Run();
    current = sliced;
  }
  if (permuted) {
    at::Tensor transposed = stageOutput(plan.kept_sizes, !plan.broadcast);
    RECORD_FUNCTION("contiguous_d_Transpose", std::vector<c10::IValue>({src}));
    OpCommand("Transpose").Input(current).Output(transposed).Attr("perm", at::IntArrayRef(plan.perm)).Run();
    current = transposed;
  }
  if (plan.broadcast) {
    std::vector<int64_t> compact_shape;  // src's sizes with 1 at the broadcast dims
    for (int64_t d = 0; d < src.dim(); ++d) compact_shape.push_back(src.stride(d) == 0 ? 1 : src.size(d));
    RECORD_FUNCTION("contiguous_d_BroadcastTo", std::vector<c10::IValue>({src}));
    OpCommand("BroadcastTo")
        .Input(current.view(compact_shape))
        .Output(out)
        .Attr("shape", src.sizes())
        .Run();
  }
  return true;
}

}  // namespace torch_npu
