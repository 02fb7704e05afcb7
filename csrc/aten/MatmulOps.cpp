// mm, addmm, bmm on the MatMul / BatchMatMul ops.
//
// Note [Transposed matmul operands]
// Autograd feeds mm with transposed views (grad @ W, x.t() @ grad). Instead
// of materialising them, a 2-D operand whose transpose is contiguous is
// passed as that contiguous tensor with the op's transpose attribute set,
// as torch_npu does with MatMul's transpose_x1/transpose_x2.
#include <ATen/ExpandUtils.h>
#include <ATen/native/Resize.h>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/ElementwiseOps.h"

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

}  // namespace

at::Tensor& NPUNativeFunctions::mm_out(const at::Tensor& self, const at::Tensor& mat2, at::Tensor& out) {
  checkMm("mm", self, mat2);
  return matmulInto(self, mat2, at::Tensor(), out);
}
at::Tensor NPUNativeFunctions::mm(const at::Tensor& self, const at::Tensor& mat2) {
  checkMm("mm", self, mat2);
  at::Tensor out = torch_npu::emptyNpu({self.size(0), mat2.size(1)}, self.scalar_type(), self.device());
  return matmulInto(self, mat2, at::Tensor(), out);
}

at::Tensor& NPUNativeFunctions::addmm_out(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                                          const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  checkMm("addmm", mat1, mat2);
  const int64_t m = mat1.size(0), n = mat2.size(1);
  TORCH_CHECK(at::infer_size(self.sizes(), {m, n}) == std::vector<int64_t>({m, n}), "addmm: self of shape ",
              self.sizes(), " cannot be broadcast to the result shape [", m, ", ", n, "]");
  const at::Tensor bias = rowBias(self, n);
  if (beta.equal(1) && alpha.equal(1) && bias.defined() && !out.is_same(self)) {
    return matmulInto(mat1, mat2, bias, out);
  }
  // General form: out = beta * self + alpha * (mat1 @ mat2).
  at::Tensor product = torch_npu::emptyNpu({m, n}, mat1.scalar_type(), mat1.device());
  matmulInto(mat1, mat2, at::Tensor(), product);
  if (!alpha.equal(1)) product.mul_(alpha);
  if (beta.toComplexDouble() == 0.0) return torch_npu::finishOut(out, product);
  at::Tensor scaled_self = beta.equal(1) ? self : self.mul(beta);
  return at::add_out(out, scaled_self.expand({m, n}), product);
}
at::Tensor NPUNativeFunctions::addmm(const at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                                     const at::Scalar& beta, const at::Scalar& alpha) {
  checkMm("addmm", mat1, mat2);
  at::Tensor out = torch_npu::emptyNpu({mat1.size(0), mat2.size(1)}, mat1.scalar_type(), mat1.device());
  return addmm_out(self, mat1, mat2, beta, alpha, out);
}
at::Tensor& NPUNativeFunctions::addmm_(at::Tensor& self, const at::Tensor& mat1, const at::Tensor& mat2,
                                       const at::Scalar& beta, const at::Scalar& alpha) {
  checkMm("addmm_", mat1, mat2);
  TORCH_CHECK(self.dim() == 2 && self.size(0) == mat1.size(0) && self.size(1) == mat2.size(1),
              "addmm_: self of shape ", self.sizes(), " does not match the product shape [", mat1.size(0), ", ",
              mat2.size(1), "]");
  at::Tensor result = addmm(self, mat1, mat2, beta, alpha);
  return self.copy_(result);
}

// Matrix-vector products run as [M,K] x [K,1] MatMuls.
at::Tensor& NPUNativeFunctions::addmv_out(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                                          const at::Scalar& beta, const at::Scalar& alpha, at::Tensor& out) {
  TORCH_CHECK(mat.dim() == 2 && vec.dim() == 1, "addmv: expected a matrix and a vector, got ", mat.dim(), "-D and ",
              vec.dim(), "-D tensors");
  TORCH_CHECK(mat.size(1) == vec.size(0), "size mismatch, got input (", mat.size(0), "), mat (", mat.size(0), "x",
              mat.size(1), "), vec (", vec.size(0), ")");
  at::Tensor product = at::mm(mat, vec.unsqueeze(1)).squeeze(1);
  if (!alpha.equal(1)) product.mul_(alpha);
  at::native::resize_output(out, {mat.size(0)});
  if (beta.toComplexDouble() == 0.0) return torch_npu::finishOut(out, product);
  at::Tensor scaled_self = beta.equal(1) ? self : self.mul(beta);
  return at::add_out(out, scaled_self.expand({mat.size(0)}), product);
}
at::Tensor NPUNativeFunctions::addmv(const at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                                     const at::Scalar& beta, const at::Scalar& alpha) {
  at::Tensor out = torch_npu::emptyNpu({0}, mat.scalar_type(), mat.device());
  return addmv_out(self, mat, vec, beta, alpha, out);
}
at::Tensor& NPUNativeFunctions::addmv_(at::Tensor& self, const at::Tensor& mat, const at::Tensor& vec,
                                       const at::Scalar& beta, const at::Scalar& alpha) {
  return self.copy_(addmv(self, mat, vec, beta, alpha));
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
  TORCH_CHECK(self.dim() == 3 && mat2.dim() == 3, "bmm: expected 3-D tensors, got ", self.dim(), "-D and ",
              mat2.dim(), "-D");
  TORCH_CHECK(self.size(0) == mat2.size(0) && self.size(2) == mat2.size(1), "bmm: shapes ", self.sizes(), " and ",
              mat2.sizes(), " cannot be multiplied");
  TORCH_CHECK(self.scalar_type() == mat2.scalar_type() && at::isFloatingType(self.scalar_type()),
              "bmm: expected two float16/float32 tensors of the same dtype, got ", self.scalar_type(), " and ",
              mat2.scalar_type());
  const std::vector<int64_t> sizes{self.size(0), self.size(1), mat2.size(2)};
  if (self.size(2) == 0) {
    at::native::resize_output(out, sizes);
    return out.zero_();
  }
  return torch_npu::runInto("BatchMatMul", out, sizes, self.scalar_type(), [&](torch_npu::OpCommand& cmd) {
    cmd.Input(self).Input(mat2).Attr("adj_x1", false).Attr("adj_x2", false);
  });
}
at::Tensor NPUNativeFunctions::bmm(const at::Tensor& self, const at::Tensor& mat2) {
  at::Tensor out = torch_npu::emptyNpu({0}, self.scalar_type(), self.device());
  return bmm_out(self, mat2, out);
}

}  // namespace native
}  // namespace at_npu
