// More reductions on the Reduce* kernels: prod, nansum, count_nonzero,
// aminmax, trace; renorm on Renorm.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/aten/reduce/ReduceHelpers.h"

namespace at_npu {
namespace native {

using torch_npu::reduceOut;
using torch_npu::sumType;

// prod.int_out is structured: the meta function has sized `out` and chosen its dtype.
at::Tensor& NPUNativeFunctions::prod_out(const at::Tensor& self, int64_t dim, bool keepdim,
                                         c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  return reduceOut("ReduceProd", self, at::IntArrayRef{dim}, keepdim, sumType(self, dtype, &out), out);
}
at::Tensor NPUNativeFunctions::prod(const at::Tensor& self, c10::optional<at::ScalarType> dtype) {
  const auto type = sumType(self, dtype, nullptr);
  at::Tensor out = torch_npu::emptyNpu({}, type, self.device());
  return reduceOut("ReduceProd", self, c10::nullopt, false, type, out);
}

at::Tensor& NPUNativeFunctions::nansum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                           c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  return reduceOut("ReduceNansum", self, dim, keepdim, sumType(self, dtype, &out), out);
}
at::Tensor NPUNativeFunctions::nansum(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                      c10::optional<at::ScalarType> dtype) {
  const auto type = sumType(self, dtype, nullptr);
  at::Tensor out = torch_npu::emptyNpu({0}, type, self.device());
  return reduceOut("ReduceNansum", self, dim, keepdim, type, out);
}

// The number of nonzero elements (NaN counts) along `dim`: a sum of self != 0.
at::Tensor NPUNativeFunctions::count_nonzero(const at::Tensor& self, at::IntArrayRef dim) {
  const at::Tensor nonzero = self.scalar_type() == at::kBool ? self : self.ne(0);
  at::Tensor out = torch_npu::emptyNpu({0}, at::kLong, self.device());
  return reduceOut("ReduceSum", nonzero, dim, false, at::kLong, out);
}

// aminmax.out is structured: the meta function checked the arguments and sized both outputs.
::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::aminmax_out(const at::Tensor& self,
                                                                      c10::optional<int64_t> dim, bool keepdim,
                                                                      at::Tensor& min, at::Tensor& max) {
  // A 0-d self reduced along a kept dim gives [1] (PyTorch's reduction shape), so it runs as [1].
  const bool scalar = self.dim() == 0;
  const at::Tensor x = scalar ? self.reshape({1}) : self;
  const bool keep = scalar ? dim.has_value() && keepdim : keepdim;
  const at::OptionalIntArrayRef dims = dim ? at::OptionalIntArrayRef(*dim) : c10::nullopt;
  reduceOut("ReduceMin", x, dims, keep, self.scalar_type(), min);
  reduceOut("ReduceMax", x, dims, keep, self.scalar_type(), max);
  return {min, max};
}

at::Tensor NPUNativeFunctions::trace(const at::Tensor& self) {
  TORCH_CHECK(self.dim() == 2, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const auto type = sumType(self, c10::nullopt, nullptr);
  at::Tensor out = torch_npu::emptyNpu({}, type, self.device());
  return reduceOut("ReduceSum", self.diagonal(), c10::nullopt, false, type, out);
}

// renorm.out is structured: the meta function checked p > 0, maxnorm >= 0 and
// self.dim() > 1. Renorm gives each slice's factor (float32 for fp16/bf16
// self, so the product is rounded once, as PyTorch's), then out = self * factor.
at::Tensor& NPUNativeFunctions::renorm_out(const at::Tensor& self, const at::Scalar& p, int64_t dim,
                                           const at::Scalar& maxnorm, at::Tensor& out) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  std::vector<int64_t> sizes(self.dim(), 1);
  sizes[dim] = self.size(dim);
  at::Tensor factor = torch_npu::emptyNpu(sizes, at::kFloat, self.device());
  torch_npu::OpCommand("Renorm").Input(self).Output(factor)
      .Attr("p", static_cast<float>(p.toDouble())).Attr("dim", dim)
      .Attr("maxnorm", static_cast<float>(maxnorm.toDouble())).Run();
  return at::mul_out(out, self, factor);
}

}  // namespace native
}  // namespace at_npu
