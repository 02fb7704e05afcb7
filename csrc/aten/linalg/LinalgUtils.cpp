#include "csrc/aten/linalg/LinalgUtils.h"

#include "csrc/aten/common/NPUTensorUtils.h"

namespace torch_npu {

void checkLinalgFloat(const at::Tensor& t, const char* api) {
  TORCH_CHECK(t.scalar_type() == at::kFloat, api,
              ": the NPU computes linear algebra in float32 (as its AI CPU "
              "kernels do); got a ",
              t.scalar_type(), " tensor. float16 is not supported, as on the CPU: convert the input with .float()");
}

void checkSquare(const at::Tensor& t, const char* api, const char* name) {
  TORCH_CHECK(t.dim() >= 2, api, ": The input tensor ", name, " must have at least 2 dimensions.");
  TORCH_CHECK(t.size(-1) == t.size(-2), api, ": ", name, " must be batches of square matrices, but they are ",
              t.size(-2), " by ", t.size(-1), " matrices");
}

LinalgOut::LinalgOut(const at::Tensor& out)
    : out_(out), dense_(out.is_contiguous() ? out : emptyNpu(out.sizes(), out.scalar_type(), out.device())) {}

void LinalgOut::commit() const {
  if (!dense_.is_same(out_)) out_.copy_(dense_);
}

MatrixOperand matrixOperand(const at::Tensor& t) {
  if (!t.is_contiguous() && t.dim() >= 2 && t.mT().is_contiguous()) return {t.mT(), true};
  return {t, false};
}

void fillIdentity(const at::Tensor& t) {
  if (t.numel() == 0) return;
  const int64_t r = t.size(-2), c = t.size(-1);
  t.copy_(at::eye(r, c, t.options().device(at::kCPU)).expand(t.sizes()));
}

}  // namespace torch_npu
