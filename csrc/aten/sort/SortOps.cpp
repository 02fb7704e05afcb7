// Sorting and order statistics on the Sort and Mode kernels: sort, argsort,
// kthvalue, median, nanmedian, mode; torch_npu's npu_sort_v2 (values only) on
// SortV2.
//
// Note [Order statistics from a stable sort]
// kthvalue, median and nanmedian sort each line with Sort (stable, NaN the
// largest value: Note [Sort order] in the simulator's sort_util.h) and gather
// one position k per line, so the index of a tied value is the one the
// stable order puts at k. PyTorch's CPU picks tied indices by its selection
// algorithm (quickselect / nth_element), which can differ for ties; values
// are always the same. The position per line:
//   kthvalue      k - 1
//   median        (n - 1) / 2, or the first NaN (position n - nans) if the
//                 line has any NaN (the result is then that NaN)
//   nanmedian     (n - nans - 1) / 2 over the non-NaN prefix, 0 if all NaN
// For median/nanmedian the NaN count comes from the device, so the position
// is a tensor and the values are gathered with GatherElements.
#include <ATen/native/Resize.h>

#include "NPUCustomFunctions.h"
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// values and int64 indices of self sorted along dim (self may be 0-d).
std::tuple<at::Tensor, at::Tensor> sortNew(const at::Tensor& self, int64_t dim, bool descending) {
  at::Tensor values = torch_npu::emptyNpu(self.sizes(), self.scalar_type(), self.device());
  at::Tensor indices = torch_npu::emptyNpu(self.sizes(), at::kLong, self.device());
  torch_npu::OpCommand("Sort")
      .Input(self)
      .Output(values)
      .Output(indices)
      .Attr("axis", dim)
      .Attr("descending", descending)
      .Attr("stable", true)
      .Run();
  return {values, indices};
}

// self viewed with at least one dim (a 0-d tensor as [1]); dim must not be empty.
at::Tensor lineView(const char* name, const at::Tensor& self, int64_t dim) {
  const at::Tensor line = self.dim() == 0 ? self.reshape({1}) : self;
  TORCH_CHECK(line.size(dim) > 0, name, "(): Expected reduction dim ", dim, " to have non-zero size.");
  return line;
}

// Copies a selected [.., 1, ..] slice into the (values, indices) outputs,
// dropping dim unless keepdim.
// An indices out= argument must be int64, as on the CPU (the kernels write
// int64; copying into an int32 tensor would narrow silently).
void checkLongIndicesOut(const char* name, const at::Tensor& indices) {
  TORCH_CHECK(indices.scalar_type() == at::kLong, name,
              "(): the indices output must be of dtype Long (int64), "
              "as on the CPU, but got ",
              indices.scalar_type());
}

void writeSelected(at::Tensor v, at::Tensor i, int64_t dim, bool keepdim, const at::Tensor& self, at::Tensor& values,
                   at::Tensor& indices) {
  if (self.dim() == 0) {
    v = v.reshape({});
    i = i.reshape({});
  } else if (!keepdim) {
    v = v.squeeze(dim);
    i = i.squeeze(dim);
  }
  at::native::resize_output(values, v.sizes());
  at::native::resize_output(indices, i.sizes());
  values.copy_(v);
  indices.copy_(i);
}

// Note [Order statistics from a stable sort]: median / nanmedian along dim.
void medianAlong(const char* name, const at::Tensor& self, int64_t dim, bool keepdim, bool ignore_nan,
                 at::Tensor& values, at::Tensor& indices) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const at::Tensor line = lineView(name, self, dim);
  const int64_t n = line.size(dim);
  const auto sorted = sortNew(line, dim, false);
  const at::Tensor& sorted_values = std::get<0>(sorted);
  const at::Tensor& sorted_indices = std::get<1>(sorted);
  if (!at::isFloatingType(self.scalar_type())) {  // no NaN: the same position on every line
    const int64_t k = (n - 1) / 2;
    writeSelected(sorted_values.narrow(dim, k, 1), sorted_indices.narrow(dim, k, 1), dim, keepdim, self, values,
                  indices);
    return;
  }
  const at::Tensor nans = line.isnan().sum(dim, /*keepdim=*/true);
  const at::Tensor pos = ignore_nan ? nans.neg().add(n - 1).div(2, "floor").clamp_min(0)
                                    : at::where(nans.gt(0), nans.neg().add(n), at::full_like(nans, (n - 1) / 2));
  writeSelected(sorted_values.gather(dim, pos), sorted_indices.gather(dim, pos), dim, keepdim, self, values, indices);
}

at::Tensor medianAll(const char* name, const at::Tensor& self, bool ignore_nan) {
  // PyTorch's result for no elements: a float NaN cast to self's dtype (integers: by the device's Cast,
  // which maps NaN to 0; the CPU's x86 conversion gives INT_MIN for int32/int64).
  if (self.numel() == 0) return at::full({}, NAN, self.options().dtype(at::kFloat)).to(self.scalar_type());
  at::Tensor values = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  at::Tensor indices = torch_npu::emptyNpu({0}, at::kLong, self.device());
  medianAlong(name, self.reshape({-1}), 0, false, ignore_nan, values, indices);
  return values;
}

}  // namespace

// sort.values_stable is structured: the meta function has sized both outputs.
::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::sort_out(const at::Tensor& self, c10::optional<bool> stable,
                                                                    int64_t dim, bool descending, at::Tensor& values,
                                                                    at::Tensor& indices) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  at::Tensor v = torch_npu::prepareOut("sort", values, self.sizes(), self.scalar_type());
  at::Tensor i = torch_npu::prepareOut("sort", indices, self.sizes(), at::kLong);
  torch_npu::OpCommand("Sort")
      .Input(self)
      .Output(v)
      .Output(i)
      .Attr("axis", dim)
      .Attr("descending", descending)
      .Attr("stable", stable.value_or(false))
      .Run();
  torch_npu::finishOut(values, v);
  torch_npu::finishOut(indices, i);
  return {values, indices};
}

at::Tensor NPUNativeFunctions::argsort(const at::Tensor& self, bool /*stable*/, int64_t dim, bool descending) {
  return std::get<1>(sortNew(self, c10::maybe_wrap_dim(dim, self.dim()), descending));
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::kthvalue_out(const at::Tensor& self, int64_t k, int64_t dim,
                                                                        bool keepdim, at::Tensor& values,
                                                                        at::Tensor& indices) {
  checkLongIndicesOut("kthvalue", indices);
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const at::Tensor line = lineView("kthvalue", self, dim);
  const int64_t n = line.size(dim);
  TORCH_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", dim);
  const auto sorted = sortNew(line, dim, false);
  writeSelected(std::get<0>(sorted).narrow(dim, k - 1, 1), std::get<1>(sorted).narrow(dim, k - 1, 1), dim, keepdim,
                self, values, indices);
  return {values, indices};
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::median_out(const at::Tensor& self, int64_t dim, bool keepdim,
                                                                      at::Tensor& values, at::Tensor& indices) {
  checkLongIndicesOut("median", indices);
  medianAlong("median", self, dim, keepdim, false, values, indices);
  return {values, indices};
}
at::Tensor NPUNativeFunctions::median(const at::Tensor& self) { return medianAll("median", self, false); }

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::nanmedian_out(const at::Tensor& self, int64_t dim,
                                                                         bool keepdim, at::Tensor& values,
                                                                         at::Tensor& indices) {
  checkLongIndicesOut("nanmedian", indices);
  medianAlong("nanmedian", self, dim, keepdim, true, values, indices);
  return {values, indices};
}
at::Tensor NPUNativeFunctions::nanmedian(const at::Tensor& self) { return medianAll("nanmedian", self, true); }

::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::mode(const at::Tensor& self, int64_t dim, bool keepdim) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const at::Tensor line = lineView("mode", self, dim);
  const auto sizes = torch_npu::reducedSizes(self, {dim}, keepdim);
  at::Tensor values = torch_npu::emptyNpu(sizes, self.scalar_type(), self.device());
  at::Tensor indices = torch_npu::emptyNpu(sizes, at::kLong, self.device());
  torch_npu::OpCommand("Mode")
      .Input(line)
      .Output(values)
      .Output(indices)
      .Attr("dim", dim)
      .Attr("keepdim", self.dim() > 0 && keepdim)
      .Run();
  return {values, indices};
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::mode_out(const at::Tensor& self, int64_t dim, bool keepdim,
                                                                    at::Tensor& values, at::Tensor& indices) {
  checkLongIndicesOut("mode", indices);
  TORCH_CHECK(values.scalar_type() == self.scalar_type(), "mode(): the values output must be of dtype ",
              self.scalar_type(), " (the input's), but got ", values.scalar_type());
  const auto result = mode(self, dim, keepdim);
  at::native::resize_output(values, std::get<0>(result).sizes());
  at::native::resize_output(indices, std::get<1>(result).sizes());
  values.copy_(std::get<0>(result));
  indices.copy_(std::get<1>(result));
  return {values, indices};
}

// SortV2 sorts along the last axis (as CANN's does): another dim is moved there and back.
at::Tensor NPUCustomFunctions::npu_sort_v2(const at::Tensor& self, int64_t dim, bool descending) {
  TORCH_CHECK(self.scalar_type() == at::kFloat || self.scalar_type() == at::kHalf,
              "npu_sort_v2: self must be float32 or float16, got ", self.scalar_type());
  if (self.dim() == 0 || self.numel() == 0) return self.clone();
  const int64_t axis = at::maybe_wrap_dim(dim, self.dim());
  const int64_t last = self.dim() - 1;
  const at::Tensor x = axis == last ? self.contiguous() : self.transpose(axis, last).contiguous();
  at::Tensor values = torch_npu::emptyNpuLike(x);
  torch_npu::OpCommand("SortV2").Input(x).Output(values).Attr("axis", int64_t{-1}).Attr("descending", descending).Run();
  return axis == last ? values : values.transpose(axis, last).contiguous();
}

}  // namespace native
}  // namespace at_npu
