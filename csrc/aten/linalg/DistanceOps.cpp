// cdist's _cdist_forward / _cdist_backward (Cdist /
// CdistGrad, Note [Cdist numerics]) and pdist's _pdist_forward /
// _pdist_backward (the upper triangle of cdist(x, x); its gradient is
// CdistGrad with the pair gradients mirrored to both rows of each pair). Batch dims of cdist broadcast and are
// flattened into one, as PyTorch's CPU implementation does; p = 2 is always
// computed directly (PyTorch may switch to a matmul formulation for more
// than 25 rows, which only changes rounding).
#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

// Batch dims of a and b broadcast together, and their product.
std::vector<int64_t> batchOf(const at::Tensor& a, const at::Tensor& b, int64_t* product) {
  const std::vector<int64_t> batch =
      at::infer_size(a.sizes().slice(0, a.dim() - 2), b.sizes().slice(0, b.dim() - 2));
  *product = c10::multiply_integers(batch);
  return batch;
}

// t expanded to batch + its last two dims, as [product, rows, cols].
at::Tensor flatBatch(const at::Tensor& t, std::vector<int64_t> batch, int64_t product) {
  batch.insert(batch.end(), {t.size(-2), t.size(-1)});
  return t.expand(batch).reshape({product, t.size(-2), t.size(-1)});
}

// Flat positions i·n + j (i < j, row-major) of the upper triangle of an n x n matrix, on `device`.
at::Tensor upperPairs(int64_t n, c10::Device device) {
  const at::Tensor ij = at::triu_indices(n, n, 1);
  return ij[0].mul(n).add(ij[1]).to(device);
}

// The n x n symmetric matrix with `pairs` (upper triangle, row-major) mirrored, zero diagonal.
at::Tensor symmetricFromPairs(const at::Tensor& pairs, int64_t n) {
  const at::Tensor upper =
      at::zeros({n * n}, pairs.options()).index_put_({upperPairs(n, pairs.device())}, pairs).view({n, n});
  return upper.add(upper.t());
}

}  // namespace

at::Tensor NPUNativeFunctions::_cdist_forward(const at::Tensor& x1, const at::Tensor& x2, double p,
                                              c10::optional<int64_t> compute_mode) {
  TORCH_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  TORCH_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  TORCH_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  TORCH_CHECK(at::isFloatingType(x1.scalar_type()), "cdist only supports floating-point dtypes, X1 got: ",
              x1.scalar_type());
  TORCH_CHECK(at::isFloatingType(x2.scalar_type()), "cdist only supports floating-point dtypes, X2 got: ",
              x2.scalar_type());
  TORCH_CHECK(p >= 0, "cdist only supports non-negative p values");
  const int64_t mode = compute_mode.value_or(0);
  TORCH_CHECK(mode >= 0 && mode <= 2, "possible modes: 0, 1, 2, but was: ", mode);
  int64_t product = 0;
  std::vector<int64_t> sizes = batchOf(x1, x2, &product);
  sizes.insert(sizes.end(), {x1.size(-2), x2.size(-2)});
  if (x1.size(-1) == 0) return at::zeros(sizes, x1.options());
  at::Tensor out = torch_npu::emptyNpu(sizes, x1.scalar_type(), x1.device());
  const std::vector<int64_t> batch(sizes.begin(), sizes.end() - 2);
  torch_npu::OpCommand cmd("Cdist");
  cmd.Input(flatBatch(x1, batch, product));
  torch_npu::addInputAs(cmd, flatBatch(x2, batch, product), x1.scalar_type());
  cmd.Output(out.view({product, x1.size(-2), x2.size(-2)})).Attr("p", static_cast<float>(p)).Run();
  return out;
}

at::Tensor NPUNativeFunctions::_cdist_backward(const at::Tensor& grad, const at::Tensor& x1, const at::Tensor& x2,
                                               double p, const at::Tensor& cdist) {
  int64_t product = 0;
  const std::vector<int64_t> batch = batchOf(x1, x2, &product);
  if (x1.size(-2) == 0 || x2.size(-2) == 0 || x1.size(-1) == 0 || product == 0) return at::zeros_like(x1);
  const at::Tensor a = flatBatch(x1, batch, product);
  at::Tensor grad_x1 = torch_npu::emptyNpu(a.sizes(), x1.scalar_type(), x1.device());
  torch_npu::OpCommand cmd("CdistGrad");
  torch_npu::addInputAs(cmd, grad.reshape({product, x1.size(-2), x2.size(-2)}), x1.scalar_type());
  cmd.Input(a);
  torch_npu::addInputAs(cmd, flatBatch(x2, batch, product), x1.scalar_type());
  torch_npu::addInputAs(cmd, cdist.reshape({product, x1.size(-2), x2.size(-2)}), x1.scalar_type());
  cmd.Output(grad_x1).Attr("p", static_cast<float>(p)).Run();
  std::vector<int64_t> sizes = batch;
  sizes.insert(sizes.end(), {x1.size(-2), x1.size(-1)});
  return grad_x1.view(sizes);
}

at::Tensor NPUNativeFunctions::_pdist_forward(const at::Tensor& self, double p) {
  TORCH_CHECK(self.is_contiguous(), "_pdist_forward requires contiguous input");
  TORCH_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  TORCH_CHECK(p >= 0, "pdist only supports non-negative p values");
  const int64_t n = self.size(0);
  if (n <= 1) return torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  const at::Tensor full = _cdist_forward(self, self, p, 2);
  return full.view({-1}).index_select(0, upperPairs(n, self.device()));
}

at::Tensor NPUNativeFunctions::_pdist_backward(const at::Tensor& grad, const at::Tensor& self, double p,
                                               const at::Tensor& pdist) {
  TORCH_CHECK(self.is_contiguous(), "_pdist_backward requires self to be contiguous");
  TORCH_CHECK(pdist.is_contiguous(), "_pdist_backward requires pdist to be contiguous");
  const int64_t n = self.size(0);
  if (n <= 1 || self.size(1) == 0) return at::zeros_like(self);
  return _cdist_backward(symmetricFromPairs(grad, n), self, self, p, symmetricFromPairs(pdist, n));
}

}  // namespace native
}  // namespace at_npu
