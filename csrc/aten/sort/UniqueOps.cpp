// unique (sorted, consecutive, along a dim) on UniqueWithCountsAndSorting /
// UniqueConsecutive. Outputs are sized for the worst case and narrowed to the
// count the kernel reports, which is read back (a host synchronisation, as
// on real devices): Note [Unique outputs] in the simulator's unique.cpp.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

struct UniqueResult {
  at::Tensor values, inverse, counts;
};

// The unique elements of self (axis absent) or slices along *axis, in sorted
// order (op UniqueWithCountsAndSorting) or as consecutive runs (UniqueConsecutive).
// Slices run as self.transpose(0, axis) along axis 0: the kernel compares a
// slice's elements in row-major order, and PyTorch orders them as that
// transpose does (dims 1..axis-1, 0, axis+1..); the values come back transposed.
UniqueResult runUnique(const char* op, const at::Tensor& self, c10::optional<int64_t> axis) {
  const int64_t dim = axis ? c10::maybe_wrap_dim(*axis, self.dim()) : 0;
  if (axis) {
    for (int64_t d = 0; d < self.dim(); ++d)
      TORCH_CHECK(d == dim || self.size(d) > 0,
                  "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  }
  const int64_t slices = axis ? self.size(dim) : self.numel();
  const at::Tensor x = axis ? self.transpose(0, dim) : self;
  const auto device = self.device();
  UniqueResult r;
  r.values = torch_npu::emptyNpu(axis ? x.sizes() : at::IntArrayRef{slices}, self.scalar_type(), device);
  r.inverse = torch_npu::emptyNpu(axis ? at::IntArrayRef{slices} : self.sizes(), at::kLong, device);
  r.counts = torch_npu::emptyNpu({slices}, at::kLong, device);
  if (slices == 0) {
    if (axis) r.values = r.values.transpose(0, dim);
    return r;
  }
  at::Tensor num = torch_npu::emptyNpu({1}, at::kLong, device);
  torch_npu::OpCommand cmd(op);
  cmd.Input(x).Output(r.values).Output(r.inverse).Output(r.counts).Output(num);
  cmd.Attr("sorted", true).Attr("return_inverse", true).Attr("return_counts", true);
  if (axis) cmd.Attr("axis", int64_t{0});
  cmd.Run();
  const int64_t n = num.item<int64_t>();
  r.values = axis ? r.values.narrow(0, 0, n).transpose(0, dim) : r.values.narrow(0, 0, n);
  r.counts = r.counts.narrow(0, 0, n);
  return r;
}

at::Tensor noIndices(const at::Tensor& self) { return torch_npu::emptyNpu({0}, at::kLong, self.device()); }

std::tuple<at::Tensor, at::Tensor, at::Tensor> asked(const UniqueResult& r, const at::Tensor& self,
                                                     bool return_inverse, bool return_counts) {
  return {r.values, return_inverse ? r.inverse : noIndices(self), return_counts ? r.counts : noIndices(self)};
}

}  // namespace

// sorted=false returns the sorted order too (one valid order). Like PyTorch's
// CPU kernel, asking for counts returns the inverse as well.
std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::_unique2(const at::Tensor& self, bool /*sorted*/,
                                                                           bool return_inverse, bool return_counts) {
  return asked(runUnique("UniqueWithCountsAndSorting", self, c10::nullopt), self, return_inverse || return_counts,
               return_counts);
}

std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::_unique(const at::Tensor& self, bool /*sorted*/,
                                                              bool return_inverse) {
  const auto r = asked(runUnique("UniqueWithCountsAndSorting", self, c10::nullopt), self, return_inverse, false);
  return {std::get<0>(r), std::get<1>(r)};
}

// Along a dim PyTorch returns inverse and counts whether asked or not.
std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::unique_dim(const at::Tensor& self, int64_t dim,
                                                                             bool /*sorted*/, bool /*return_inverse*/,
                                                                             bool /*return_counts*/) {
  const auto r = runUnique("UniqueWithCountsAndSorting", self, dim);
  return {r.values, r.inverse, r.counts};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::unique_dim_consecutive(const at::Tensor& self,
                                                                                         int64_t dim,
                                                                                         bool /*return_inverse*/,
                                                                                         bool /*return_counts*/) {
  const auto r = runUnique("UniqueConsecutive", self, dim);
  return {r.values, r.inverse, r.counts};
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> NPUNativeFunctions::unique_consecutive(const at::Tensor& self,
                                                                                     bool return_inverse,
                                                                                     bool return_counts,
                                                                                     c10::optional<int64_t> dim) {
  if (dim) return unique_dim_consecutive(self, *dim, return_inverse, return_counts);
  return asked(runUnique("UniqueConsecutive", self, c10::nullopt), self, return_inverse, return_counts);
}

}  // namespace native
}  // namespace at_npu
