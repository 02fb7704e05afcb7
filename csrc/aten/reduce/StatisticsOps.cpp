// var / std / var_mean / std_mean with a correction, on ReduceStdV2 (one
// launch gives both the statistic and the mean; Note [Two-pass variance] in
// the simulator's reduce_std.cpp).
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// Writes var (or std, if_std) into `y` and the mean into `mean`.
void reduceStd(const char* name, const at::Tensor& self, at::OptionalIntArrayRef dim,
               c10::optional<int64_t> correction, bool keepdim, bool if_std, at::Tensor& y, at::Tensor& mean) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), name,
              ": std and var only support floating point and complex dtypes, got ", self.scalar_type());
  const auto dims = torch_npu::reductionDims(self, dim);
  const auto sizes = torch_npu::reducedSizes(self, dims, keepdim);
  at::Tensor y_res = torch_npu::prepareOut(name, y, sizes, self.scalar_type());
  at::Tensor mean_res = torch_npu::prepareOut(name, mean, sizes, self.scalar_type());
  torch_npu::OpCommand cmd("ReduceStdV2");
  cmd.Input(self).Output(y_res).Output(mean_res);
  cmd.Attr("dim", at::IntArrayRef(dims)).Attr("correction", correction.value_or(1));
  cmd.Attr("if_std", if_std).Attr("keepdim", keepdim).Run();
  torch_npu::finishOut(y, y_res);
  torch_npu::finishOut(mean, mean_res);
}

at::Tensor& statOut(const char* name, const at::Tensor& self, at::OptionalIntArrayRef dim,
                    c10::optional<int64_t> correction, bool keepdim, bool if_std, at::Tensor& out) {
  at::Tensor mean = torch_npu::emptyNpuToResize(self);
  reduceStd(name, self, dim, correction, keepdim, if_std, out, mean);
  return out;
}

std::tuple<at::Tensor, at::Tensor> statMean(const char* name, const at::Tensor& self, at::OptionalIntArrayRef dim,
                                            c10::optional<int64_t> correction, bool keepdim, bool if_std) {
  at::Tensor y = torch_npu::emptyNpuToResize(self);
  at::Tensor mean = torch_npu::emptyNpuToResize(self);
  reduceStd(name, self, dim, correction, keepdim, if_std, y, mean);
  return {y, mean};
}

}  // namespace

at::Tensor& NPUNativeFunctions::var_out(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                        c10::optional<int64_t> correction, bool keepdim, at::Tensor& out) {
  return statOut("var", self, dim, correction, keepdim, false, out);
}
at::Tensor NPUNativeFunctions::var(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                   c10::optional<int64_t> correction, bool keepdim) {
  at::Tensor out = torch_npu::emptyNpuToResize(self);
  return statOut("var", self, dim, correction, keepdim, false, out);
}
at::Tensor& NPUNativeFunctions::std_out(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                        c10::optional<int64_t> correction, bool keepdim, at::Tensor& out) {
  return statOut("std", self, dim, correction, keepdim, true, out);
}
at::Tensor NPUNativeFunctions::std(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                   c10::optional<int64_t> correction, bool keepdim) {
  at::Tensor out = torch_npu::emptyNpuToResize(self);
  return statOut("std", self, dim, correction, keepdim, true, out);
}
std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::var_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                                               c10::optional<int64_t> correction, bool keepdim) {
  return statMean("var_mean", self, dim, correction, keepdim, false);
}
std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::std_mean(const at::Tensor& self, at::OptionalIntArrayRef dim,
                                                               c10::optional<int64_t> correction, bool keepdim) {
  return statMean("std_mean", self, dim, correction, keepdim, true);
}

}  // namespace native
}  // namespace at_npu
