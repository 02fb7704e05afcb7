// Advanced indexing: x[i, :, j] (index.Tensor) and x[i, :, j] = v / += v
// (_index_put_impl_, behind index_put_ and the backward of indexing) on the
// simulator's Index and IndexPutV2 (OPS.md, Note [Advanced index geometry]).
//
// Note [Advanced indexing on the NPU]
// As in Ascend's torch_npu, boolean / uint8 masks become integer index
// tensors with nonzero (a host sync: the result size depends on the data),
// CPU index tensors are moved to the NPU, and all index tensors are broadcast
// to one shape before the launch; the kernel then places the broadcast dims
// by NumPy's rule (in place when the indexed dims are adjacent, first
// otherwise). The common assignment x[mask] = scalar keeps its sync-free
// path (masked_fill_ / where over the broadcast mask).
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/IndexingUtils.h>

#include <sstream>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using OptionalTensors = c10::List<c10::optional<at::Tensor>>;

// The launch operands of one indexing: a 0/1 entry per dim of self, the
// broadcast integer index tensors (on self's device), and the result sizes.
struct IndexPlan {
  std::vector<int64_t> indexed_sizes;
  std::vector<at::Tensor> indices;
  std::vector<int64_t> result_sizes;
};

// PyTorch's message when index tensors do not broadcast together.
void checkBroadcastable(const std::vector<at::Tensor>& indices) {
  std::vector<int64_t> shape;
  bool ok = true;
  for (const at::Tensor& t : indices) {
    const at::IntArrayRef s = t.sizes();
    if (s.size() > shape.size()) shape.insert(shape.begin(), s.size() - shape.size(), 1);
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& d = shape[shape.size() - s.size() + i];
      if (d == 1) d = s[i];
      else if (s[i] != 1 && s[i] != d) ok = false;
    }
  }
  if (ok) return;
  std::ostringstream shapes;
  for (size_t i = 0; i < indices.size(); ++i) shapes << (i ? ", " : "") << indices[i].sizes();
  TORCH_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
                    shapes.str());
}

IndexPlan planIndex(const at::Tensor& self, const OptionalTensors& indices) {
  int64_t consumed = 0;  // dims of self the indices cover (a mask covers its rank)
  for (const c10::optional<at::Tensor>& i : indices) {
    const bool mask = i.has_value() && i->defined() && (i->scalar_type() == at::kBool || i->scalar_type() == at::kByte);
    consumed += mask ? i->dim() : 1;
  }
  TORCH_CHECK_INDEX(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim(), " (got ",
                    consumed, ")");
  at::native::checkIndexTensorTypes(indices);
  std::vector<at::Tensor> expanded = at::native::expandTensors(self, indices);
  expanded.resize(static_cast<size_t>(self.dim()));
  IndexPlan plan;
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const at::Tensor& t = expanded[static_cast<size_t>(d)];
    plan.indexed_sizes.push_back(t.defined() ? 1 : 0);
    if (!t.defined()) continue;
    dims.push_back(d);
    plan.indices.push_back(t.device() == self.device() ? t : t.to(self.device()));
  }
  TORCH_CHECK_INDEX(!plan.indices.empty(), "advanced indexing on the NPU needs at least one index tensor");
  checkBroadcastable(plan.indices);
  plan.indices = at::expand_outplace(plan.indices);
  const at::IntArrayRef b = plan.indices.front().sizes();
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  if (!adjacent) plan.result_sizes.assign(b.begin(), b.end());
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (adjacent && d == dims.front()) plan.result_sizes.insert(plan.result_sizes.end(), b.begin(), b.end());
    if (!plan.indexed_sizes[static_cast<size_t>(d)]) plan.result_sizes.push_back(self.size(d));
  }
  return plan;
}

void addIndices(torch_npu::OpCommand& cmd, const IndexPlan& plan) {
  for (const at::Tensor& i : plan.indices) cmd.Input(i);
  cmd.Attr("indexed_sizes", at::IntArrayRef(plan.indexed_sizes));
}

// The single boolean mask over the leading dims of x[mask] = scalar, if that
// is the indexing (Note [Advanced indexing on the NPU]).
c10::optional<at::Tensor> leadingMask(const at::Tensor& self, const OptionalTensors& indices,
                                      const at::Tensor& values) {
  if (indices.size() != 1 || values.numel() != 1) return c10::nullopt;
  const c10::optional<at::Tensor> index = indices.get(0);
  if (!index.has_value() || !index->defined()) return c10::nullopt;
  if (index->scalar_type() != at::kBool && index->scalar_type() != at::kByte) return c10::nullopt;
  if (index->dim() > self.dim() || !self.sizes().slice(0, index->dim()).equals(index->sizes())) return c10::nullopt;
  return index;
}

at::Tensor& putScalarThroughMask(at::Tensor& self, const at::Tensor& index, const at::Tensor& values, bool accumulate) {
  std::vector<int64_t> mask_view = index.sizes().vec();
  mask_view.resize(static_cast<size_t>(self.dim()), 1);
  const at::Tensor mask = index.to(self.device()).to(at::kBool).view(mask_view).expand(self.sizes());
  const at::Tensor value = values.reshape({});
  if (accumulate) return self.add_(at::where(mask, value, at::zeros({}, self.options())));
  return self.masked_fill_(mask, value);
}

}  // namespace

at::Tensor& NPUNativeFunctions::index_out(const at::Tensor& self, const OptionalTensors& indices, at::Tensor& out) {
  const IndexPlan plan = planIndex(self, indices);
  at::assert_no_overlap(out, self);
  return torch_npu::runInto("Index", out, plan.result_sizes, self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self);
    addIndices(cmd, plan);
  });
}

at::Tensor NPUNativeFunctions::index(const at::Tensor& self, const OptionalTensors& indices) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return index_out(self, indices, out);
}

at::Tensor& NPUNativeFunctions::_index_put_impl_(at::Tensor& self, const OptionalTensors& indices,
                                                 const at::Tensor& values, bool accumulate, bool /*unsafe*/) {
  at::assert_no_internal_overlap(self);
  if (const c10::optional<at::Tensor> mask = leadingMask(self, indices, values)) {
    return putScalarThroughMask(self, *mask, values, accumulate);
  }
  const IndexPlan plan = planIndex(self, indices);
  TORCH_CHECK(values.device() == self.device() || torch_npu::isCpuScalar(values), "index_put_: values are on ",
              values.device(), ", expected ", self.device(), " (the indexed tensor's device) or a 0-d CPU tensor");
  at::Tensor v = values.device() == self.device() ? values : values.to(self.device());
  TORCH_CHECK(at::is_expandable_to(v.sizes(), plan.result_sizes), "shape mismatch: value tensor of shape ",
              values.sizes(), " cannot be broadcast to indexing result of shape ", at::IntArrayRef(plan.result_sizes));
  at::assert_no_overlap(self, v);
  return torch_npu::runInto("IndexPutV2", self, self.sizes(), self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self);
    torch_npu::addInputAs(cmd, v, self.scalar_type());
    addIndices(cmd, plan);
    cmd.Attr("accumulate", accumulate);
  });
}

}  // namespace native
}  // namespace at_npu
