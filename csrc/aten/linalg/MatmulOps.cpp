// mm, addmm, addmv, dot, bmm, baddbmm, addbmm on the MatMul / BatchMatMul ops.
//
// Note [Transposed matmul operands]
// Autograd feeds mm with transposed views (grad @ W, x.t() @ grad). Instead
// of materialising them, a 2-D operand whose transpose is contiguous is
// passed as that contiguous tensor with the op's transpose attribute set,
// as torch_npu does with MatMul's transpose_x1/transpose_x2.
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/pointwise/ElementwiseOps.h"

namespace at_npu {
namespace native {
namespace {

bool isTransposedContiguous(const at::Tensor& t) {
  return t.dim() == 2 && t.size(0) > 1 && t.size(1) > 1 && t.stride(0) == 1 && t.stride(1) == t.size(0);
}

// Adds a matmul operand, returning whether it was passed transposed.
bool addMatmulOperand(torch_npu::OpCommand& cmd, const at::Tensor& t) {
  if (isTransposedContiguous(t)) {
    cmd.Input(t.t());
    return true;
  }
  cmd.Input(t);
  return false;
}

void checkMm(const char* name, const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.dim() == 2, name, ": self must be a matrix, got a ", self.dim(), "-D tensor");
  TORCH_CHECK(mat2.dim() == 2, name, ": mat2 must be a matrix, got a ", mat2.dim(), "-D tensor");
  TORCH_CHECK(self.size(1) == mat2.size(0), name, ": mat1 and mat2 shapes cannot be multiplied (", self.size(0),
              "x", self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  TORCH_CHECK(self.scalar_type() == mat2.scalar_type(), name, ": expected mat1 and mat2 to have the same dtype, but got: ",
              self.scalar_type(), " != ", mat2.scalar_type());
  TORCH_CHECK(at::isFloatingType(self.scalar_type()), name, ": the NPU MatMul supports float16 and float32, got ",
              self.scalar_type());
}

// out = self @ mat2 (+ bias), bias a 1-D [N] tensor or undefined.
at::Tensor& matmulInto(const at::Tensor& self, const at::Tensor& mat2, const at::Tensor& bias, at::Tensor& out) {
  const std::vector<int64_t> sizes{self.size(0), mat2.size(1)};
  at::Tensor result = torch_npu::prepareOut("MatMul", out, sizes, self.scalar_type());
  if (self.size(1) == 0) {  // empty inner dimension: the product is all zeros
    result.zero_();
    if (bias.defined()) result.add_(bias);
    return torch_npu::finishOut(out, result);
  }
  torch_npu::OpCommand cmd("MatMul");
  const bool t1 = addMatmulOperand(cmd, self);
  const bool t2 = addMatmulOperand(cmd, mat2);
  if (bias.defined()) torch_npu::addInputAs(cmd, bias, self.scalar_type());
  cmd.Output(result).Attr("transpose_x1", t1).Attr("transpose_x2", t2).Run();
  return torch_npu::finishOut(out, result);
}

// The [N] bias of an addmm whose self broadcasts along rows, or undefined.
at::Tensor rowBias(const at::Tensor& self, int64_t n) {
  if (self.dim() == 1 && self.size(0) == n) return self;
  if (self.dim() == 2 && self.size(1) == n && (self.size(0) == 1 || self.stride(0) == 0)) return self.select(0, 0);
  return at::Tensor();
}

// out = beta * self + alpha * product, with `product` a fresh tensor of
// out's shape (beta == 0 ignores self, NaN included, as PyTorch does).
at::Tensor& scaleAndAdd(const at::Tensor& self, at::Tensor& product, const at::Scalar& beta, const at::Scalar& alpha,
                        at::Tensor& out) {
  if (!alpha.equal(1)) product.mul_(alpha);
  if (beta.toComplexDouble() == 0.0) return torch_npu::finishOut(out, product);
  at::Tensor scaled_self = beta.equal(1) ? self : self.mul(beta);
  return at::add_out(out, scaled_self.expand(product.sizes()), product);
}

void checkBatched(const char* name, const at::Tensor& self, const at::Tensor& mat2) {
  TORCH_CHECK(self.scalar_type() == mat2.scalar_type() && at::isFloatingType(self.scalar_type()), name,
              ": the NPU BatchMatMul expects two float16/float32 tensors of the same dtype, got ",
              self.scalar_type(), " and ", mat2.scalar_type());
}

// A batch operand [B, M, K] whose last two dims are transposed in memory
// (autograd's batch1.transpose(1, 2)) is passed as its contiguous transpose
// with the adj flag set (Note [Transposed matmul operands]).
bool addBatchOperand(torch_npu::OpCommand& cmd, const at::Tensor& t) {
  if (!t.is_contiguous() && t.size(1) > 1 && t.size(2) > 1 && t.transpose(1, 2).is_contiguous()) {
    cmd.Input(t.transpose(1, 2));
    return true;
  }
  cmd.Input(t);
  return false;
}

// out[b] = self[b] @ mat2[b] for 3-D operands (shapes checked by the meta function).
at::Tensor& batchMatmulInto(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  const std::vector<int64_t> sizes{self.size(0), self.size(1), mat2.size(2)};
  if (self.size(2) == 0 || out.numel() == 0) {
    at::native::resize_output(out, sizes);
    return out.zero_();
  }
  at::Tensor result = torch_npu::prepareOut("BatchMatMul", out, sizes, self.scalar_type());
  torch_npu::OpCommand cmd("BatchMatMul");
  const bool adj1 = addBatchOperand(cmd, self);
  const bool adj2 = addBatchOperand(cmd, mat2);
  cmd.Output(result).Attr("adj_x1", adj1).Attr("adj_x2", adj2).Run();
  return torch_npu::finishOut(out, result);
}

}  // namespace

// Structured kernels (Note [Structured NPU kernels]): PyTorch's meta functions
// have checked the shapes and sized `out`.
at::Tensor& NPUNativeFunctions::mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  checkMm("mm", self, mat2);
  return matmulInto(self, mat2, at::Tensor(), out);
}

at::Tensor& NPUNativeFunctions::addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                                          const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  checkMm("addmm", mat1, mat2);
  const int64_t m = mat1.size(0), n = mat2.size(1);
  const at::Tensor bias = rowBias(self, n);
  if (beta.equal(1) && alpha.equal(1) && bias.defined() && !out.is_same(self)) {
    return matmulInto(mat1, mat2, bias, out);
  }
  at::Tensor product = torch_npu::emptyNpu({m, n}, mat1.scalar_type(), mat1.device());
  matmulInto(mat1, mat2, at::Tensor(), product);
  return scaleAndAdd(self, product, beta, alpha, out);
}

// Matrix-vector products run as [M,K] x [K,1] MatMuls.
at::Tensor& NPUNativeFunctions::addmv_out(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                                          const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  at::Tensor product = at::mm(mat, vec.unsqueeze(1)).squeeze(1);
  return scaleAndAdd(self, product, beta, alpha, out);
}

// dot(a, b) = [1,K] x [K,1].
at::Tensor NPUNativeFunctions::dot(const at::Tensor& self, const at::Tensor& tensor) {
  TORCH_CHECK(self.dim() == 1 && tensor.dim() == 1, "1D tensors expected, but got ", self.dim(), "D and ",
              tensor.dim(), "D tensors");
  TORCH_CHECK(self.size(0) == tensor.size(0), "inconsistent tensor size, expected tensor [", self.size(0),
              "] and src [", tensor.size(0), "] to have the same number of elements, but got ", self.size(0),
              " and ", tensor.size(0), " elements respectively");
  return at::mm(self.unsqueeze(0), tensor.unsqueeze(1)).reshape({});
}

at::Tensor& NPUNativeFunctions::bmm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  checkBatched("bmm", self, mat2);
  return batchMatmulInto(self, mat2, out);
}

// baddbmm: out = beta * self + alpha * (batch1 @ batch2) (attention scores
// with an additive mask in nn.MultiheadAttention).
at::Tensor& NPUNativeFunctions::baddbmm_out(const at::Tensor& self, const at::Tensor& batch1,
                                            const at::Tensor& batch2, const at::Scalar& beta,
                                            const at::Scalar& alpha, at::Tensor& out) {
  checkBatched("baddbmm", batch1, batch2);
  at::Tensor product = torch_npu::emptyNpu({batch1.size(0), batch1.size(1), batch2.size(2)}, batch1.scalar_type(),
                                           batch1.device());
  batchMatmulInto(batch1, batch2, product);
  return scaleAndAdd(self, product, beta, alpha, out);
}

// addbmm: out = beta * self + alpha * sum_b batch1[b] @ batch2[b], one MatMul
// over the concatenated K: [M, B*K] x [B*K, N].
at::Tensor& NPUNativeFunctions::addbmm_out(const at::Tensor& self, const at::Tensor& batch1,
                                           const at::Tensor& batch2, const at::Scalar& beta, const at::Scalar& alpha,
                                           at::Tensor& out) {
  TORCH_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TORCH_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  TORCH_CHECK(batch1.size(0) == batch2.size(0), "batch1 and batch2 must have same number of batches, got ",
              batch1.size(0), " and ", batch2.size(0));
  TORCH_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1), "x",
              batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  checkBatched("addbmm", batch1, batch2);
  const int64_t b = batch1.size(0), m = batch1.size(1), k = batch1.size(2), n = batch2.size(2);
  TORCH_CHECK(at::infer_size(self.sizes(), {m, n}) == std::vector<int64_t>({m, n}), "addbmm: self of shape ",
              self.sizes(), " cannot be broadcast to the result shape [", m, ", ", n, "]");
  at::Tensor lhs = batch1.transpose(0, 1).reshape({m, b * k});
  at::Tensor rhs = batch2.reshape({b * k, n});
  at::Tensor product = torch_npu::emptyNpu({m, n}, batch1.scalar_type(), batch1.device());
  at::native::resize_output(out, {m, n});
  if (b * k == 0) {
    product.zero_();
  } else {
    checkMm("addbmm", lhs, rhs);
    matmulInto(lhs, rhs, at::Tensor(), product);
  }
  return scaleAndAdd(self, product, beta, alpha, out);
}
at::Tensor NPUNativeFunctions::addbmm(const at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                                      const at::Scalar& beta, const at::Scalar& alpha) {
  at::Tensor out = torch_npu::emptyNpu({0}, batch1.scalar_type(), batch1.device());
  return addbmm_out(self, batch1, batch2, beta, alpha, out);
}
at::Tensor& NPUNativeFunctions::addbmm_(at::Tensor& self, const at::Tensor& batch1, const at::Tensor& batch2,
                                        const at::Scalar& beta, const at::Scalar& alpha) {
  TORCH_CHECK(self.dim() == 2 && self.size(0) == batch1.size(1) && self.size(1) == batch2.size(2),
              "addbmm_: self of shape ", self.sizes(), " does not match the product shape [", batch1.size(1), ", ",
              batch2.size(2), "]");
  return self.copy_(addbmm(self, batch1, batch2, beta, alpha));
}

}  // namespace native
}  // namespace at_npu
