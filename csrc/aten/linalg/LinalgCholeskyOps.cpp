// Cholesky family on the AI CPU kernels Cholesky, CholeskySolve,
// CholeskyInverse: linalg_cholesky_ex (structured), cholesky (deprecated),
// _cholesky_solve_helper (behind the composite cholesky_solve, which
// broadcasts first) and cholesky_inverse. See Note [Linear algebra on the
// NPU] in LinalgUtils.h.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::LinalgOut;

// Runs a kernel `op` (x -> y, info; attr upper) into dense y and info.
void runFactorKernel(const char* op, const at::Tensor& x, bool upper, const at::Tensor& y, const at::Tensor& info) {
  const LinalgOut out(y), inf(info);
  torch_npu::OpCommand(op).Input(x).Output(out.dense()).Output(inf.dense()).Attr("upper", upper).Run();
  out.commit();
  inf.commit();
}

// The checked (non-_ex) forms: `api`'s checks, the kernel into `out`, and
// PyTorch's error for a failing matrix.
at::Tensor& runChecked(const char* op, const char* api, const at::Tensor& self, bool upper, at::Tensor& out) {
  torch_npu::checkSquare(self, api);
  torch_npu::checkLinalgFloat(self, api);
  const at::Tensor result = torch_npu::prepareOut(api, out, self.sizes(), self.scalar_type());
  if (self.numel() == 0) return torch_npu::finishOut(out, result);
  const at::Tensor info = torch_npu::emptyNpu(torch_npu::batchDims(self), at::kInt, self.device());
  runFactorKernel(op, self, upper, result, info);
  at::_linalg_check_errors(info, api, self.dim() == 2);
  return torch_npu::finishOut(out, result);
}

}  // namespace

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_cholesky_ex_out(const at::Tensor& self, bool upper,
                                                                                  bool check_errors, at::Tensor& L,
                                                                                  at::Tensor& info) {
  torch_npu::checkLinalgFloat(self, "linalg.cholesky");
  if (L.numel() == 0) {
    info.zero_();
    return {L, info};
  }
  runFactorKernel("Cholesky", self, upper, L, info);
  if (check_errors) at::_linalg_check_errors(info, "linalg.cholesky_ex", self.dim() == 2);
  return {L, info};
}

at::Tensor& NPUNativeFunctions::cholesky_out(const at::Tensor& self, bool upper, at::Tensor& out) {
  TORCH_WARN_ONCE(
      "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
      "PyTorch release.");
  return runChecked("Cholesky", "cholesky", self, upper, out);
}

at::Tensor NPUNativeFunctions::cholesky(const at::Tensor& self, bool upper) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return cholesky_out(self, upper, out);
}

at::Tensor NPUNativeFunctions::_cholesky_solve_helper(const at::Tensor& self, const at::Tensor& A, bool upper) {
  torch_npu::checkLinalgFloat(self, "cholesky_solve");
  torch_npu::checkLinalgFloat(A, "cholesky_solve");
  at::Tensor out = torch_npu::emptyNpu(self.sizes(), self.scalar_type(), self.device());
  if (out.numel() == 0) return out;
  torch_npu::OpCommand("CholeskySolve").Input(self).Input(A).Output(out).Attr("upper", upper).Run();
  return out;
}

at::Tensor& NPUNativeFunctions::cholesky_inverse_out(const at::Tensor& self, bool upper, at::Tensor& out) {
  return runChecked("CholeskyInverse", "cholesky_inverse", self, upper, out);
}

at::Tensor NPUNativeFunctions::cholesky_inverse(const at::Tensor& self, bool upper) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return cholesky_inverse_out(self, upper, out);
}

}  // namespace native
}  // namespace at_npu
