// torch_npu's npu_one_hot and npu_masked_fill_range on OneHotD and
// MaskedFillRange (Note [OneHotD] and [MaskedFillRange] in the simulator's
// ops/index/), with torch_npu's signatures, checks and output dtypes. Neither
// is differentiable, in torch_npu or here.
#include "NPUCustomFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/OpCommand.h"

namespace at_npu {
namespace native {

// As torch_npu's adapter: indices as int32, on/off values as float32, the
// output float32, and num_classes passed as the kernel's axis (-1: last).
at::Tensor NPUCustomFunctions::npu_one_hot(const at::Tensor& self, int64_t num_classes, int64_t depth,
                                           const at::Scalar& on_value, const at::Scalar& off_value) {
  TORCH_CHECK(at::isIntegralType(self.scalar_type(), /*includeBool=*/false), "npu_one_hot: self must hold integer ",
              "class indices, got ", self.scalar_type());
  TORCH_CHECK(depth >= 0, "npu_one_hot: depth must be >= 0, got ", depth);
  TORCH_CHECK(num_classes >= -1 && num_classes <= self.dim(), "npu_one_hot: num_classes is the one-hot axis and must ",
              "lie in [-1, ", self.dim(), "] for self of shape ", self.sizes(), ", got ", num_classes);
  std::vector<int64_t> shape = self.sizes().vec();
  shape.insert(shape.begin() + (num_classes == -1 ? self.dim() : num_classes), depth);
  at::Tensor out = torch_npu::emptyNpu(shape, at::kFloat, self.device());
  if (out.numel() == 0) return out;
  torch_npu::OpCommand cmd("OneHotD");
  torch_npu::addInputAs(cmd, self.contiguous(), at::kInt);
  cmd.InputScalar(on_value, at::kFloat)
      .InputScalar(off_value, at::kFloat)
      .Output(out)
      .Attr("depth", depth)
      .Attr("axis", num_classes)
      .Run();
  return out;
}

at::Tensor NPUCustomFunctions::npu_masked_fill_range(const at::Tensor& self, const at::Tensor& start,
                                                     const at::Tensor& end, const at::Tensor& value, int64_t axis) {
  const char* op = "npu_masked_fill_range";
  const auto dtype = self.scalar_type();
  TORCH_CHECK(dtype == at::kFloat || dtype == at::kHalf || dtype == at::kInt || dtype == at::kChar, op,
              ": self must be float32, float16, int32 or int8, got ", dtype);
  TORCH_CHECK(self.dim() >= 1 && self.dim() <= 3, op, ": self must be 1-D, 2-D or 3-D, got shape ", self.sizes());
  TORCH_CHECK(axis >= -self.dim() && axis < self.dim(), op, ": axis must lie in [", -self.dim(), ", ", self.dim() - 1,
              "], got ", axis);
  TORCH_CHECK(start.dim() == 2 && start.sizes() == end.sizes(), op,
              ": start and end must be 2-D [num, R] of one shape, got ", start.sizes(), " and ", end.sizes());
  TORCH_CHECK(at::isIntegralType(start.scalar_type(), false) && at::isIntegralType(end.scalar_type(), false), op,
              ": start and end must be integer tensors, got ", start.scalar_type(), " and ", end.scalar_type());
  TORCH_CHECK(value.dim() == 1 && value.size(0) == start.size(0), op,
              ": value must be [num] with num = ", start.size(0), " (start's rows), got shape ", value.sizes());
  TORCH_CHECK(value.scalar_type() == dtype, op, ": value must have self's dtype ", dtype, ", got ",
              value.scalar_type());
  at::Tensor out = torch_npu::emptyNpuLike(self);
  if (out.numel() == 0) return out;
  torch_npu::OpCommand cmd("MaskedFillRange");
  cmd.Input(self.contiguous());
  torch_npu::addInputAs(cmd, start.contiguous(), at::kInt);
  torch_npu::addInputAs(cmd, end.contiguous(), at::kInt);
  cmd.Input(value.contiguous()).Output(out).Attr("axis", axis).Run();
  return out;
}

}  // namespace native
}  // namespace at_npu
