// QR family on the AI CPU kernels Qr, Geqrf, Orgqr, Ormqr: linalg_qr
// (structured), geqrf, linalg_householder_product, ormqr. See Note [Linear
// algebra on the NPU] in LinalgUtils.h.
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

using torch_npu::LinalgOut;

// tau's batch dims (all but the last) must be input's (all but the last two).
void checkTauBatch(const at::Tensor& input, const at::Tensor& tau, const char* api) {
  TORCH_CHECK(input.dim() - tau.dim() == 1, api,
              ": Expected tau to have one dimension less than input, but got "
              "tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", input.dim());
  const at::IntArrayRef tau_batch = tau.sizes().slice(0, tau.dim() - 1);
  TORCH_CHECK(tau_batch.equals(torch_npu::batchDims(input)), api,
              ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ", tau_batch);
  TORCH_CHECK(tau.scalar_type() == input.scalar_type(), api, ": tau dtype ", tau.scalar_type(),
              " does not match input dtype ", input.scalar_type());
}

}  // namespace

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_qr_out(const at::Tensor& A, c10::string_view mode,
                                                                         at::Tensor& Q, at::Tensor& R) {
  torch_npu::checkLinalgFloat(A, "linalg.qr");
  const bool compute_q = mode != "r", full = mode == "complete";  // the meta function has checked the mode
  if (R.numel() == 0) {  // an empty A: only a complete Q of an m x 0 matrix has elements (the identity)
    if (compute_q) torch_npu::fillIdentity(Q);
    return {Q, R};
  }
  const LinalgOut q(Q), r(R);
  torch_npu::OpCommand cmd("Qr");
  cmd.Input(A);
  if (compute_q) cmd.Output(q.dense());
  cmd.Output(r.dense()).Attr("full_matrices", full).Attr("compute_q", compute_q).Run();
  if (compute_q) q.commit();
  r.commit();
  return {Q, R};
}

::std::tuple<at::Tensor&, at::Tensor&> NPUNativeFunctions::geqrf_out(const at::Tensor& self, at::Tensor& a,
                                                                     at::Tensor& tau) {
  TORCH_CHECK(self.dim() >= 2, "torch.geqrf: input must have at least 2 dimensions.");
  torch_npu::checkLinalgFloat(self, "torch.geqrf");
  std::vector<int64_t> tau_sizes(torch_npu::batchDims(self).vec());
  tau_sizes.push_back(std::min(self.size(-2), self.size(-1)));
  const at::Tensor a_ = torch_npu::prepareOut("geqrf", a, self.sizes(), self.scalar_type());
  const at::Tensor tau_ = torch_npu::prepareOut("geqrf", tau, tau_sizes, self.scalar_type());
  if (tau_.numel() > 0) torch_npu::OpCommand("Geqrf").Input(self).Output(a_).Output(tau_).Run();
  torch_npu::finishOut(a, a_);
  torch_npu::finishOut(tau, tau_);
  return {a, tau};
}

::std::tuple<at::Tensor, at::Tensor> NPUNativeFunctions::geqrf(const at::Tensor& self) {
  at::Tensor a = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  at::Tensor tau = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  geqrf_out(self, a, tau);
  return {a, tau};
}

at::Tensor& NPUNativeFunctions::linalg_householder_product_out(const at::Tensor& input, const at::Tensor& tau,
                                                               at::Tensor& out) {
  const char* api = "torch.linalg.householder_product";
  TORCH_CHECK(input.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TORCH_CHECK(input.size(-2) >= input.size(-1), api,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TORCH_CHECK(input.size(-1) >= tau.size(-1), api, ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  checkTauBatch(input, tau, api);
  torch_npu::checkLinalgFloat(input, api);
  const at::Tensor result = torch_npu::prepareOut(api, out, input.sizes(), input.scalar_type());
  if (result.numel() > 0) torch_npu::OpCommand("Orgqr").Input(input).Input(tau).Output(result).Run();
  return torch_npu::finishOut(out, result);
}

at::Tensor NPUNativeFunctions::linalg_householder_product(const at::Tensor& input, const at::Tensor& tau) {
  at::Tensor out = torch_npu::emptyNpu({0}, input.scalar_type(), input.device());
  return linalg_householder_product_out(input, tau, out);
}

at::Tensor& NPUNativeFunctions::ormqr_out(const at::Tensor& self, const at::Tensor& input2, const at::Tensor& input3,
                                          bool left, bool transpose, at::Tensor& out) {
  const char* api = "torch.ormqr";
  const at::Tensor &input = self, &tau = input2, &other = input3;
  TORCH_CHECK(input.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TORCH_CHECK(other.dim() >= 2, api, ": other must have at least 2 dimensions.");
  const int64_t side = left ? -2 : -1;
  TORCH_CHECK(other.size(side) >= tau.size(-1), api, ": other.shape[", side,
              "] must be greater than or equal to tau.shape[-1]");
  TORCH_CHECK(other.size(side) == input.size(-2), api, ": other.shape[", side, "] must be equal to input.shape[-2]");
  TORCH_CHECK(tau.size(-1) <= input.size(-1), api, ": tau.shape[-1] must be less than or equal to input.shape[-1]");
  checkTauBatch(input, tau, api);
  TORCH_CHECK(input.dim() == other.dim(), api,
              ": Expected other to have the same number of dimensions as input, but "
              "got other.ndim equal to ",
              other.dim(), " and input.ndim is equal to ", input.dim());
  TORCH_CHECK(torch_npu::batchDims(other).equals(torch_npu::batchDims(input)), api,
              ": Expected batch dimensions of other to be equal to input.shape[:-2], but got ",
              torch_npu::batchDims(other));
  TORCH_CHECK(other.scalar_type() == input.scalar_type(), api, ": other dtype ", other.scalar_type(),
              " does not match input dtype ", input.scalar_type());
  torch_npu::checkLinalgFloat(input, api);
  const at::Tensor result = torch_npu::prepareOut(api, out, other.sizes(), other.scalar_type());
  if (result.numel() > 0) {
    torch_npu::OpCommand("Ormqr")
        .Input(input)
        .Input(tau)
        .Input(other)
        .Output(result)
        .Attr("left", left)
        .Attr("transpose", transpose)
        .Run();
  }
  return torch_npu::finishOut(out, result);
}

at::Tensor NPUNativeFunctions::ormqr(const at::Tensor& self, const at::Tensor& input2, const at::Tensor& input3,
                                     bool left, bool transpose) {
  at::Tensor out = torch_npu::emptyNpu({0}, input3.scalar_type(), input3.device());
  return ormqr_out(self, input2, input3, left, transpose, out);
}

}  // namespace native
}  // namespace at_npu
