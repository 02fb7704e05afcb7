// Scatter-style indexing on ScatterElements (Note [Scatter reductions]):
// scatter(reduce=), scatter_reduce (sum / prod / mean / amax / amin,
// include_self), and, through an index expanded along `dim`, index_copy,
// index_fill and index_reduce; take and put_ on the flattened tensor
// (GatherV2, ScatterElements, IndexAdd) with PyTorch's negative indices.
#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// ScatterElements' reduction for a PyTorch reduce name (scatter_reduce's
// and the legacy scatter(reduce=) ones).
const char* reductionFor(c10::string_view reduce) {
  if (reduce == "sum" || reduce == "add") return "add";
  if (reduce == "prod" || reduce == "multiply") return "mul";
  if (reduce == "amax") return "max";
  if (reduce == "amin") return "min";
  if (reduce == "mean") return "mean";
  TORCH_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
}

// out = self with src scattered along dim (index of self's rank, or empty);
// a 0-d src is broadcast to the index's shape. As PyTorch, a 0-d self or
// index counts as 1-D of one element.
at::Tensor& scatterReduceInto(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src,
                              const char* reduction, bool include_self, at::Tensor& out) {
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "scatter(): Expected dtype int32/int64 for index, got ", index.scalar_type());
  if (index.numel() == 0) {
    at::native::resize_output(out, self.sizes());
    if (!out.is_same(self)) out.copy_(self);
    return out;
  }
  TORCH_CHECK(std::max<int64_t>(self.dim(), 1) == std::max<int64_t>(index.dim(), 1),
              "Index tensor must have the same number of dimensions as self tensor");
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  auto lift = [](const at::Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; };
  const at::Tensor idx = lift(index);
  const at::Tensor updates = src.dim() == 0 ? src.expand(idx.sizes()) : lift(src);
  at::Tensor result = torch_npu::prepareOut("ScatterElements", out, self.sizes(), self.scalar_type());
  torch_npu::OpCommand cmd("ScatterElements");
  cmd.Input(lift(self)).Input(idx);
  torch_npu::addInputAs(cmd, updates, self.scalar_type());
  cmd.Output(lift(result)).Attr("axis", dim).Attr("reduction", reduction).Attr("include_self", include_self).Run();
  return torch_npu::finishOut(out, result);
}

// A 1-D index along `dim` as an index of `sizes` (each slice j of `dim` gets index[j]).
at::Tensor expandIndex(const at::Tensor& index, int64_t dim, at::IntArrayRef sizes) {
  if (sizes.empty()) return index.reshape({});
  std::vector<int64_t> view(sizes.size(), 1);
  view[static_cast<size_t>(dim)] = index.numel();
  return index.reshape(view).expand(sizes);
}

// `sizes` with dim's size replaced by n (a 0-d tensor stays 0-d).
std::vector<int64_t> withDimSize(at::IntArrayRef sizes, int64_t dim, int64_t n) {
  std::vector<int64_t> s = sizes.vec();
  if (!s.empty()) s[static_cast<size_t>(dim)] = n;
  return s;
}

// Negative indices count from the end of a dim of size n (take, put_, index_fill_).
at::Tensor wrapNegative(const at::Tensor& index, int64_t n) { return at::where(index.lt(0), index.add(n), index); }

at::Tensor& indexFillWith(at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& value) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "index_fill_(): Expected dtype int64 for index.");
  TORCH_CHECK(index.dim() <= 1, "index_fill_(): Index has to be a vector/scalar");
  at::assert_no_overlap(self, index);
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  if (index.numel() == 0) return self;
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  const at::Tensor idx = wrapNegative(index.to(self.device()), size);
  const auto src_sizes = withDimSize(self.sizes(), dim, index.numel());
  const at::Tensor src = value.to(self.device()).to(self.scalar_type()).expand(src_sizes);
  return scatterReduceInto(self, dim, expandIndex(idx, dim, src_sizes), src, "none", true, self);
}

}  // namespace

// ---- scatter, scatter_add ---------------------------------------------------------------------

at::Tensor& NPUNativeFunctions::scatter_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                            const at::Tensor& src, at::Tensor& out) {
  return scatterReduceInto(self, dim, index, src, "none", true, out);
}
at::Tensor NPUNativeFunctions::scatter(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                       const at::Tensor& src) {
  at::Tensor out = torch_npu::emptyNpuLike(self);
  return scatter_out(self, dim, index, src, out);
}
at::Tensor& NPUNativeFunctions::scatter_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                         const at::Tensor& src) {
  return scatter_out(self, dim, index, src, self);
}
at::Tensor& NPUNativeFunctions::scatter_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                            const at::Scalar& value, at::Tensor& out) {
  return scatterReduceInto(self, dim, index, at::scalar_tensor(value, self.options()), "none", true, out);
}
at::Tensor NPUNativeFunctions::scatter(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                       const at::Scalar& value) {
  at::Tensor out = torch_npu::emptyNpuLike(self);
  return scatter_out(self, dim, index, value, out);
}
at::Tensor& NPUNativeFunctions::scatter_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                         const at::Scalar& value) {
  return scatter_out(self, dim, index, value, self);
}
at::Tensor& NPUNativeFunctions::scatter_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                                const at::Tensor& src, at::Tensor& out) {
  return scatterReduceInto(self, dim, index, src, "add", true, out);
}
at::Tensor NPUNativeFunctions::scatter_add(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                           const at::Tensor& src) {
  at::Tensor out = torch_npu::emptyNpuLike(self);
  return scatter_add_out(self, dim, index, src, out);
}
at::Tensor& NPUNativeFunctions::scatter_add_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                             const at::Tensor& src) {
  return scatter_add_out(self, dim, index, src, self);
}

// ---- scatter with reductions (structured) -----------------------------------------------------

at::Tensor& NPUNativeFunctions::scatter_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                            const at::Tensor& src, c10::string_view reduce, at::Tensor& out) {
  return scatterReduceInto(self, dim, index, src, reductionFor(reduce), true, out);
}
at::Tensor& NPUNativeFunctions::scatter_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                            const at::Scalar& value, c10::string_view reduce, at::Tensor& out) {
  return scatterReduceInto(self, dim, index, at::scalar_tensor(value, self.options()), reductionFor(reduce), true, out);
}
at::Tensor& NPUNativeFunctions::scatter_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                                   const at::Tensor& src, c10::string_view reduce, bool include_self,
                                                   at::Tensor& out) {
  return scatterReduceInto(self, dim, index, src, reductionFor(reduce), include_self, out);
}

// ---- index_copy / index_reduce (structured), index_fill_ --------------------------------------

at::Tensor& NPUNativeFunctions::index_copy_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                               const at::Tensor& source, at::Tensor& out) {
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  return scatterReduceInto(self, dim, expandIndex(index, dim, source.sizes()), source, "none", true, out);
}

at::Tensor& NPUNativeFunctions::index_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                                                 const at::Tensor& source, c10::string_view reduce,
                                                 bool include_self, at::Tensor& out) {
  dim = at::maybe_wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  return scatterReduceInto(self, dim, expandIndex(index, dim, source.sizes()), source, reductionFor(reduce),
                           include_self, out);
}

at::Tensor& NPUNativeFunctions::index_fill_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                            const at::Scalar& value) {
  return indexFillWith(self, dim, index, at::scalar_tensor(value, self.options().device(at::kCPU)));
}
at::Tensor& NPUNativeFunctions::index_fill_(at::Tensor& self, int64_t dim, const at::Tensor& index,
                                            const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return indexFillWith(self, dim, index, value);
}

// ---- take / put_ ------------------------------------------------------------------------------

at::Tensor& NPUNativeFunctions::take_out(const at::Tensor& self, const at::Tensor& index, at::Tensor& out) {
  TORCH_CHECK(index.scalar_type() == at::kLong, "take(): Expected a long tensor for index, but got ",
              index.scalar_type());
  TORCH_CHECK(!(self.numel() == 0 && index.numel() != 0), "take(): tried to take from an empty tensor");
  at::native::resize_output(out, index.sizes());
  if (index.numel() == 0) return out;
  const at::Tensor flat = self.reshape({-1});
  const at::Tensor taken = at::index_select(flat, 0, wrapNegative(index.reshape({-1}), flat.numel()));
  return out.copy_(taken.view(index.sizes()));
}
at::Tensor NPUNativeFunctions::take(const at::Tensor& self, const at::Tensor& index) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return take_out(self, index, out);
}

at::Tensor& NPUNativeFunctions::put_(at::Tensor& self, const at::Tensor& index, const at::Tensor& source,
                                     bool accumulate) {
  TORCH_CHECK_INDEX(index.scalar_type() == at::kLong, "put_(): Expected a long tensor for index, but got ",
                    index.scalar_type());
  TORCH_CHECK(self.scalar_type() == source.scalar_type(), "put_(): self and source expected to have the same dtype, "
              "but got self.dtype = ", self.scalar_type(), " and source.dtype = ", source.scalar_type());
  TORCH_CHECK(source.numel() == index.numel(), "put_(): Expected source and index to have the same number of "
              "elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  TORCH_CHECK(!(self.numel() == 0 && index.numel() != 0), "put_(): Tried to put elements into an empty tensor");
  at::assert_no_internal_overlap(self);
  if (index.numel() == 0) return self;
  at::Tensor flat = self.is_contiguous() ? self.view({-1}) : self.contiguous().view({-1});
  const at::Tensor idx = wrapNegative(index.reshape({-1}), flat.numel());
  if (accumulate) {
    flat.index_add_(0, idx, source.reshape({-1}));
  } else {
    flat.index_copy_(0, idx, source.reshape({-1}));
  }
  if (!flat.is_alias_of(self)) self.copy_(flat.view(self.sizes()));
  return self;
}

}  // namespace native
}  // namespace at_npu
