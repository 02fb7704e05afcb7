// searchsorted / bucketize on SearchSorted; isin from a sorted copy of the
// test elements (Sort, then SearchSorted); equal.
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// PyTorch's argument checks of searchsorted; returns whether to search right.
bool checkSearch(const at::Tensor& boundaries, const at::Tensor& input, bool right,
                 const c10::optional<c10::string_view> side, const c10::optional<at::Tensor>& sorter) {
  if (side) {
    TORCH_CHECK(*side == "left" || *side == "right", "torch.searchsorted(): side can only be 'left' or 'right' but ",
                "got ", *side);
    TORCH_CHECK(!right || *side == "right", "torch.searchsorted(): side and right can't be set to opposites, got side "
                "of ", *side, " while right was True");
    right = *side == "right";
  }
  TORCH_CHECK(boundaries.dim() > 0, "torch.searchsorted(): boundaries tensor should have positive dimension, but ",
              "got 0 dimension");
  TORCH_CHECK(boundaries.dim() == 1 || input.dim() > 0, "torch.searchsorted(): input value can be a scalar only when "
              "boundaries tensor dimension is 1, but we got boundaries tensor dim(", boundaries.dim(),
              ") and input value's dim(", input.dim(), ") numel(", input.numel(), ")");
  TORCH_CHECK(boundaries.dim() == 1 || (boundaries.dim() == input.dim() &&
                                        boundaries.sizes().slice(0, boundaries.dim() - 1) ==
                                            input.sizes().slice(0, input.dim() - 1)),
              "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
              "boundaries tensor and input value tensor must match, but we got boundaries tensor ",
              boundaries.sizes(), " and input value tensor ", input.sizes());
  if (sorter && sorter->defined()) {
    TORCH_CHECK(sorter->scalar_type() == at::kLong, "torch.searchsorted(): sorter must be a tensor of long dtype but ",
                "got dtype ", sorter->scalar_type());
    TORCH_CHECK(sorter->sizes() == boundaries.sizes(), "torch.searchsorted(): boundary and sorter must have the "
                "same size, but got boundary tensor ", boundaries.sizes(), " and got sorter tensor ",
                sorter->sizes());
  }
  return right;
}

at::Tensor& searchInto(const at::Tensor& boundaries, const at::Tensor& input, bool out_int32, bool right,
                       const c10::optional<c10::string_view> side, const c10::optional<at::Tensor>& sorter,
                       at::Tensor& out) {
  right = checkSearch(boundaries, input, right, side, sorter);
  const auto common = at::result_type(boundaries, input);
  const at::Tensor seq = sorter && sorter->defined() ? boundaries.gather(-1, *sorter) : boundaries;
  return torch_npu::runInto("SearchSorted", out, input.sizes(), out_int32 ? at::kInt : at::kLong,
                            [&](torch_npu::OpCommand& cmd) {
                              cmd.Input(seq.to(common)).Input(input.to(common)).Attr("right", right);
                            });
}

at::Tensor newIndices(const at::Tensor& like, bool out_int32) {
  return torch_npu::emptyNpu({0}, out_int32 ? at::kInt : at::kLong, like.device());
}

// A 0-d NPU tensor holding a Scalar argument, in the dtype PyTorch promotes
// it to with `like` (a Python number does not widen like's dtype category).
at::Tensor scalarOn(const at::Scalar& s, const at::Tensor& like) {
  return at::scalar_tensor(s, like.options().dtype(at::result_type(like, s)).device(at::kCPU)).to(like.device());
}

// Whether each element of `elements` occurs in `test` (NaN never does):
// binary search in a sorted copy of test, then compare what was found. The
// search runs on a copy whose NaN tail reads +inf, so that it stays a sorted
// sequence (a NaN would send the bisection past equal values before it); a
// real +inf sorts before that tail and is found first.
at::Tensor contained(const at::Tensor& elements, const at::Tensor& test) {
  const auto common = at::result_type(elements, test);
  const at::Tensor values = elements.to(common);
  if (test.numel() == 0) return at::zeros(elements.sizes(), elements.options().dtype(at::kBool));
  at::Tensor sorted = std::get<0>(test.reshape({-1}).to(common).sort(0));
  const at::Tensor search = at::isFloatingType(common) ? sorted.masked_fill(sorted.isnan(), INFINITY) : sorted;
  at::Tensor pos = at::searchsorted(search, values);
  const int64_t n = sorted.numel();
  const at::Tensor found = sorted.index_select(0, pos.clamp_max(n - 1).reshape({-1})).view(values.sizes());
  return found.eq(values).logical_and(pos.lt(n));
}

// (The meta function of isin.Scalar_Tensor sizes out as [0]; PyTorch's kernel resizes it to the result's [].)
at::Tensor& writeIsin(const at::Tensor& result, bool invert, at::Tensor& out) {
  at::native::resize_output(out, result.sizes());
  return out.copy_(invert ? result.logical_not() : result);
}

}  // namespace

at::Tensor& NPUNativeFunctions::searchsorted_out(const at::Tensor& sorted_sequence, const at::Tensor& self,
                                                 bool out_int32, bool right,
                                                 c10::optional<c10::string_view> side,
                                                 const c10::optional<at::Tensor>& sorter, at::Tensor& out) {
  return searchInto(sorted_sequence, self, out_int32, right, side, sorter, out);
}
at::Tensor NPUNativeFunctions::searchsorted(const at::Tensor& sorted_sequence, const at::Tensor& self,
                                            bool out_int32, bool right, c10::optional<c10::string_view> side,
                                            const c10::optional<at::Tensor>& sorter) {
  at::Tensor out = newIndices(self, out_int32);
  return searchInto(sorted_sequence, self, out_int32, right, side, sorter, out);
}
at::Tensor NPUNativeFunctions::searchsorted(const at::Tensor& sorted_sequence, const at::Scalar& self,
                                            bool out_int32, bool right, c10::optional<c10::string_view> side,
                                            const c10::optional<at::Tensor>& sorter) {
  at::Tensor out = newIndices(sorted_sequence, out_int32);
  return searchInto(sorted_sequence, scalarOn(self, sorted_sequence), out_int32, right, side, sorter, out);
}

at::Tensor& NPUNativeFunctions::bucketize_out(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32,
                                              bool right, at::Tensor& out) {
  TORCH_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchInto(boundaries, self, out_int32, right, c10::nullopt, c10::nullopt, out);
}
at::Tensor NPUNativeFunctions::bucketize(const at::Tensor& self, const at::Tensor& boundaries, bool out_int32,
                                         bool right) {
  at::Tensor out = newIndices(self, out_int32);
  return bucketize_out(self, boundaries, out_int32, right, out);
}
at::Tensor NPUNativeFunctions::bucketize(const at::Scalar& self, const at::Tensor& boundaries, bool out_int32,
                                         bool right) {
  at::Tensor out = newIndices(boundaries, out_int32);
  return bucketize_out(scalarOn(self, boundaries), boundaries, out_int32, right, out);
}

// isin.*_out are structured: the meta function has checked the dtypes and sized `out` (bool, elements' shape).
at::Tensor& NPUNativeFunctions::isin_out(const at::Tensor& elements, const at::Tensor& test_elements,
                                         bool /*assume_unique*/, bool invert, at::Tensor& out) {
  return writeIsin(contained(elements, test_elements), invert, out);
}
at::Tensor& NPUNativeFunctions::isin_out(const at::Tensor& elements, const at::Scalar& test_element,
                                         bool /*assume_unique*/, bool invert, at::Tensor& out) {
  return writeIsin(contained(elements, scalarOn(test_element, elements)), invert, out);
}
at::Tensor& NPUNativeFunctions::isin_out(const at::Scalar& element, const at::Tensor& test_elements,
                                         bool /*assume_unique*/, bool invert, at::Tensor& out) {
  return writeIsin(contained(scalarOn(element, test_elements), test_elements), invert, out);
}

bool NPUNativeFunctions::equal(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.device() == other.device(), "Cannot compare two tensors on different devices. Got: ",
              self.device(), " and ", other.device());
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  return self.eq(other).all().item<bool>();
}

}  // namespace native
}  // namespace at_npu
