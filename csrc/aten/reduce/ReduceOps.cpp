// Reductions: sum, mean, max/min (full and along a dim), argmax/argmin.
#include <ATen/native/Resize.h>

#include <cmath>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/aten/reduce/ReduceHelpers.h"

namespace torch_npu {

at::Tensor& reduceOut(const char* op, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                      c10::ScalarType compute, at::Tensor& out) {
  const auto dims = reductionDims(self, dim);
  return runInto(op, out, reducedSizes(self, dims, keepdim), compute, [&](OpCommand& cmd) {
    addInputAs(cmd, self, compute);
    cmd.Attr("axes", at::IntArrayRef(dims)).Attr("keep_dims", keepdim);
  });
}

c10::ScalarType sumType(const at::Tensor& self, c10::optional<at::ScalarType> dtype, const at::Tensor* out) {
  if (dtype) return *dtype;
  if (out && out->defined()) return out->scalar_type();
  return at::isIntegralType(self.scalar_type(), /*includeBool=*/true) ? at::kLong : self.scalar_type();
}

}  // namespace torch_npu

namespace at_npu {
namespace native {
namespace {

using torch_npu::reduceOut;
using torch_npu::reducedSizes;
using torch_npu::reductionDims;
using torch_npu::sumType;

c10::ScalarType meanType(const at::Tensor& self, c10::optional<at::ScalarType> dtype, const at::Tensor* out) {
  const auto type = dtype ? *dtype : (out && out->defined() ? out->scalar_type() : self.scalar_type());
  TORCH_CHECK(at::isFloatingType(type), "mean(): could not infer output dtype. ",
              dtype ? "Optional" : "Input", " dtype must be either a floating point or complex dtype. Got: ", type);
  return type;
}

// ArgMaxWithValue / ArgMinWithValue along one dim.
void argReduce(const char* op, const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& values,
               at::Tensor& indices) {
  dim = c10::maybe_wrap_dim(dim, self.dim());
  TORCH_CHECK(self.dim() == 0 || self.size(dim) > 0, op, ": cannot reduce an empty tensor along dim ", dim);
  const auto sizes = reducedSizes(self, {dim}, keepdim);
  at::Tensor v = torch_npu::prepareOut(op, values, sizes, self.scalar_type());
  at::Tensor i = torch_npu::prepareOut(op, indices, sizes, at::kLong);
  if (self.numel() == 0) {  // an empty tensor reduced along a non-empty dim: empty results
    torch_npu::finishOut(values, v);
    torch_npu::finishOut(indices, i);
    return;
  }
  torch_npu::OpCommand cmd(op);
  cmd.Input(self.dim() == 0 ? self.reshape({1}) : self).Output(i).Output(v);
  // A 0-d input runs as [1] reduced without keep_dims: its result is 0-d either way.
  cmd.Attr("dimension", self.dim() == 0 ? int64_t(0) : dim).Attr("keep_dims", self.dim() > 0 && keepdim).Run();
  torch_npu::finishOut(values, v);
  torch_npu::finishOut(indices, i);
}

at::Tensor& argOnly(const char* op, const at::Tensor& self, c10::optional<int64_t> dim, bool keepdim,
                    at::Tensor& out) {
  at::Tensor values = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  if (!dim.has_value()) {
    TORCH_CHECK(self.numel() > 0, "argmax/argmin(): Expected reduction dim to be specified for input.numel() == 0.");
    at::Tensor flat = self.reshape({-1});
    argReduce(op, flat, 0, false, values, out);
    if (keepdim) out.resize_(std::vector<int64_t>(self.dim(), 1));
    return out;
  }
  argReduce(op, self, *dim, keepdim, values, out);
  return out;
}

at::Tensor fullReduce(const char* op, const char* name, const at::Tensor& self) {
  TORCH_CHECK(self.numel() > 0, name, "(): Expected reduction dim to be specified for input.numel() == 0. ",
              "Specify the reduction dim with the 'dim' argument.");
  at::Tensor out = torch_npu::emptyNpu({}, self.scalar_type(), self.device());
  return reduceOut(op, self, c10::nullopt, false, self.scalar_type(), out);
}

}  // namespace

at::Tensor& NPUNativeFunctions::sum_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                        c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  return reduceOut("ReduceSum", self, dim, keepdim, sumType(self, dtype, &out), out);
}

at::Tensor& NPUNativeFunctions::mean_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                                         c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  return reduceOut("ReduceMean", self, dim, keepdim, meanType(self, dtype, &out), out);
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::max_out(const at::Tensor& self, int64_t dim, bool keepdim,
                                                                  at::Tensor& max, at::Tensor& max_values) {
  argReduce("ArgMaxWithValue", self, dim, keepdim, max, max_values);
  return {max, max_values};
}
at::Tensor NPUNativeFunctions::max(const at::Tensor& self) { return fullReduce("ReduceMax", "max", self); }

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::min_out(const at::Tensor& self, int64_t dim, bool keepdim,
                                                                  at::Tensor& min, at::Tensor& min_indices) {
  argReduce("ArgMinWithValue", self, dim, keepdim, min, min_indices);
  return {min, min_indices};
}
at::Tensor NPUNativeFunctions::min(const at::Tensor& self) { return fullReduce("ReduceMin", "min", self); }

at::Tensor& NPUNativeFunctions::argmax_out(const at::Tensor& self, c10::optional<int64_t> dim, bool keepdim,
                                           at::Tensor& out) {
  return argOnly("ArgMaxWithValue", self, dim, keepdim, out);
}
at::Tensor& NPUNativeFunctions::argmin_out(const at::Tensor& self, c10::optional<int64_t> dim, bool keepdim,
                                           at::Tensor& out) {
  return argOnly("ArgMinWithValue", self, dim, keepdim, out);
}

at::Tensor& NPUNativeFunctions::amax_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  TORCH_CHECK(self.numel() > 0 || !dim.empty(), "amax(): Expected reduction dim to be specified for input.numel() == 0");
  return reduceOut("ReduceMax", self, dim, keepdim, self.scalar_type(), out);
}
at::Tensor& NPUNativeFunctions::amin_out(const at::Tensor& self, at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  TORCH_CHECK(self.numel() > 0 || !dim.empty(), "amin(): Expected reduction dim to be specified for input.numel() == 0");
  return reduceOut("ReduceMin", self, dim, keepdim, self.scalar_type(), out);
}

// any / all on ReduceAny / ReduceAll (the input is viewed as bool first).
namespace {
at::Tensor& logicalReduceOut(const char* op, const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
                             at::Tensor& out) {
  const at::Tensor b = self.scalar_type() == at::kBool ? self : self.ne(0);
  return reduceOut(op, b, dim, keepdim, at::kBool, out);
}
}  // namespace

at::Tensor& NPUNativeFunctions::any_out(const at::Tensor& self, at::Tensor& out) {
  return logicalReduceOut("ReduceAny", self, c10::nullopt, false, out);
}
at::Tensor& NPUNativeFunctions::any_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return logicalReduceOut("ReduceAny", self, at::IntArrayRef{dim}, keepdim, out);
}
at::Tensor& NPUNativeFunctions::all_out(const at::Tensor& self, at::Tensor& out) {
  return logicalReduceOut("ReduceAll", self, c10::nullopt, false, out);
}
at::Tensor& NPUNativeFunctions::all_out(const at::Tensor& self, int64_t dim, bool keepdim, at::Tensor& out) {
  return logicalReduceOut("ReduceAll", self, at::IntArrayRef{dim}, keepdim, out);
}

// Vector norms (clip_grad_norm_) composed of NPU reductions.
at::Tensor& NPUNativeFunctions::linalg_vector_norm_out(const at::Tensor& self, const at::Scalar& ord,
                                                       at::OptionalIntArrayRef dim, bool keepdim,
                                                       c10::optional<at::ScalarType> dtype, at::Tensor& out) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), "linalg.vector_norm: Expected a floating point tensor as "
              "input. Got ", self.scalar_type());
  const at::Tensor x = (dtype ? self.to(*dtype) : self).abs();
  const double p = ord.toDouble();
  const std::vector<int64_t> dims = reductionDims(self, dim);
  at::Tensor result;
  if (std::isinf(p)) {
    result = p > 0 ? x.amax(dims, keepdim) : x.amin(dims, keepdim);
  } else if (p == 0) {
    result = x.ne(0).to(x.scalar_type()).sum(dims, keepdim);
  } else if (p == 1) {
    result = x.sum(dims, keepdim);
  } else if (p == 2) {
    result = x.mul(x).sum(dims, keepdim).sqrt();
  } else {
    result = x.pow(p).sum(dims, keepdim).pow(1.0 / p);
  }
  at::native::resize_output(out, result.sizes());
  return torch_npu::finishOut(out, result);
}
// Tensor.norm(p) (torch::nn::utils::clip_grad_norm_ uses it): the vector norm over `dim` (all dims if empty).
at::Tensor& NPUNativeFunctions::norm_out(const at::Tensor& self, const c10::optional<at::Scalar>& p,
                                         at::IntArrayRef dim, bool keepdim, at::Tensor& out) {
  return linalg_vector_norm_out(self, p.value_or(2), dim, keepdim, c10::nullopt, out);
}

}  // namespace native
}  // namespace at_npu
