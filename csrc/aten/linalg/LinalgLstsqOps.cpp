// linalg.lstsq on the AI CPU kernel MatrixSolveLs, with PyTorch's CPU
// conventions: driver "gelsy" by default, rcond = eps * max(m, n) by default,
// rank only for gelsy/gelsd/gelss, singular values only for gelsd/gelss, and
// residuals only when m > n, the driver is not gelsy and (for gelsd/gelss)
// every matrix has full rank — otherwise those outputs are empty. The
// functional form is CompositeExplicitAutograd upstream (it calls this out=
// kernel). See Note [Linear algebra on the NPU] in LinalgUtils.h.
#include <ATen/ExpandUtils.h>
#include <ATen/native/LinearAlgebraUtils.h>
#include <ATen/native/Resize.h>

#include <limits>

#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/linalg/LinalgUtils.h"
#include "csrc/aten/common/NPUTensorUtils.h"

namespace at_npu {
namespace native {
namespace {

void assignOut(at::Tensor& out, const at::Tensor& value) {
  at::native::resize_output(out, value.sizes());
  if (value.numel() > 0) out.copy_(value);
}

void assignEmpty(at::Tensor& out) { at::native::resize_output(out, {0}); }

}  // namespace

::std::tuple<at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&> NPUNativeFunctions::linalg_lstsq_out(
    const at::Tensor& self, const at::Tensor& b, c10::optional<double> rcond, c10::optional<c10::string_view> driver,
    at::Tensor& solution, at::Tensor& residuals, at::Tensor& rank, at::Tensor& singular_values) {
  const char* api = "torch.linalg.lstsq";
  const at::Tensor &input = self, &other = b;
  TORCH_CHECK(input.dim() >= 2, api, ": input must have at least 2 dimensions.");
  TORCH_CHECK(other.dim() >= 1, api, ": other must have at least 1 dimension.");
  TORCH_CHECK(input.scalar_type() == other.scalar_type(), api,
              ": Expected input and other to have the same dtype, but got input's dtype ", input.scalar_type(),
              " and other's dtype ", other.scalar_type());
  const int64_t dim_diff = input.dim() - other.dim();
  TORCH_CHECK(0 <= dim_diff && dim_diff <= 1, api,
              ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const at::Tensor other_2d = dim_diff ? other.unsqueeze(-1) : other;
  TORCH_CHECK(
      input.size(-2) == other_2d.size(-2), api,
      dim_diff ? ": input.size(-2) should match other.size(-1)" : ": input.size(-2) should match other.size(-2)");
  const std::string drv(driver.value_or("gelsy"));
  TORCH_CHECK(drv == "gels" || drv == "gelsy" || drv == "gelsd" || drv == "gelss", api,
              ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  torch_npu::checkLinalgFloat(input, api);
  const int64_t m = input.size(-2), n = input.size(-1), nrhs = other_2d.size(-1);
  const double rcond_value =
      rcond.has_value() ? *rcond : std::numeric_limits<float>::epsilon() * static_cast<double>(std::max(m, n));
  const bool vector_case = at::native::linalg_solve_is_vector_rhs(input, other);
  const at::Tensor rhs = vector_case ? other.unsqueeze(-1) : other_2d;
  std::vector<int64_t> batch = at::infer_size(torch_npu::batchDims(input), torch_npu::batchDims(rhs));

  // The kernel needs a right-hand side column to report rank and singular values.
  const at::Tensor run_rhs = nrhs > 0 ? rhs : at::zeros({m, 1}, input.options());
  const bool has_rank = drv != "gels", has_s = drv == "gelsd" || drv == "gelss";
  auto withTail = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> s = batch;
    s.insert(s.end(), tail);
    return s;
  };
  const at::Tensor raw =
      torch_npu::emptyNpu(withTail({std::max(m, n), run_rhs.size(-1)}), input.scalar_type(), input.device());
  const at::Tensor rank_t = at::zeros(batch, input.options().dtype(at::kLong));
  const at::Tensor s_t = torch_npu::emptyNpu(withTail({std::min(m, n)}), input.scalar_type(), input.device());
  const at::Tensor info = at::zeros(batch, input.options().dtype(at::kInt));
  if (raw.numel() > 0) {
    torch_npu::OpCommand cmd("MatrixSolveLs");
    cmd.Input(input).Input(run_rhs).Output(raw);
    if (has_rank) cmd.Output(rank_t);
    if (has_s) cmd.Output(s_t);
    cmd.Output(info).Attr("driver", drv).Attr("rcond", static_cast<float>(rcond_value)).Run();
  }
  at::_linalg_check_errors(info, api, info.numel() <= 1);

  const at::Tensor x = raw.narrow(-1, 0, nrhs);
  bool compute_residuals = m > n && drv != "gelsy";
  if (compute_residuals && has_s) compute_residuals = rank_t.eq(n).all().item<bool>();
  if (compute_residuals) {
    assignOut(residuals, x.narrow(-2, n, m - n).pow(2).sum(-2));  // [..., 1] for a vector b, as on the CPU
  } else {
    assignEmpty(residuals);
  }
  const at::Tensor sol = x.narrow(-2, 0, n);
  assignOut(solution, vector_case ? sol.squeeze(-1) : sol);
  if (has_rank) {
    assignOut(rank, rank_t);
  } else {
    assignEmpty(rank);
  }
  if (has_s) {
    assignOut(singular_values, s_t);
  } else {
    assignEmpty(singular_values);
  }
  return {solution, residuals, rank, singular_values};
}

}  // namespace native
}  // namespace at_npu
