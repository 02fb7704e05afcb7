// The two device-side steps of GradScaler (torch.npu.amp.GradScaler), as
// NPU ops so that neither waits for the host:
//   _amp_foreach_non_finite_check_and_unscale_  found_inf = 1 if any gradient
//       holds an inf or NaN; every gradient is multiplied by inv_scale;
//   _amp_update_scale_  the dynamic loss scale's update rule: back off on a
//       found inf (and reset the growth tracker), else count a good step and
//       grow the scale every `growth_interval` good steps.
// On a saturating chip (910A) fp16 overflows produce ±65504, not inf; the
// Python GradScaler adds the chip's float status to found_inf for that case.
// The unscale is one ForeachNonFiniteCheckAndUnscale launch for the whole
// list (Note [One launch for the unscale]).
#include "PrivateUse1NativeFunctions.h"
#include "csrc/aten/common/NPUTensorUtils.h"
#include "csrc/framework/FormatCast.h"
#include "csrc/framework/FormatHelper.h"

namespace at_npu {
namespace native {
namespace {

void checkScalarFloat(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.numel() == 1 && t.scalar_type() == at::kFloat, op, ": ", name,
              " must be a 1-element float32 tensor, got ", t.scalar_type(), " of shape ", t.sizes());
}

}  // namespace

void NPUNativeFunctions::_amp_foreach_non_finite_check_and_unscale_(at::TensorList self, at::Tensor& found_inf,
                                                                    const at::Tensor& inv_scale) {
  const char* op = "_amp_foreach_non_finite_check_and_unscale_";
  checkScalarFloat(op, "found_inf", found_inf);
  checkScalarFloat(op, "inv_scale", inv_scale);
  TORCH_CHECK(found_inf.device() == inv_scale.device(), op, ": found_inf is on ", found_inf.device(),
              " but inv_scale is on ", inv_scale.device());
  // Note [One launch for the unscale]: every gradient that is its whole storage (any format, so
  // FRACTAL_Z / NC1HWC0 gradients need no TransData) or a contiguous base-format view (a slice of a
  // combined buffer) joins one ForeachNonFiniteCheckAndUnscale launch; anything else (a strided view)
  // takes the per-tensor path.
  torch_npu::OpCommand cmd("ForeachNonFiniteCheckAndUnscale");
  std::vector<std::pair<const at::Tensor*, bool>> joined;  // (gradient, passed as its whole storage)
  at::Tensor any_bad;
  for (const at::Tensor& g : self) {
    TORCH_CHECK(g.device() == inv_scale.device(), op, ": a gradient is on ", g.device(), " but inv_scale is on ",
                inv_scale.device());
    TORCH_CHECK(at::isFloatingType(g.scalar_type()), op, ": gradients must be floating point, got ", g.scalar_type());
    if (g.numel() == 0) continue;
    if (torch_npu::coversWholeStorage(g)) {
      cmd.InputRaw(torch_npu::wholeStorageParam(g), g);
      joined.emplace_back(&g, true);
      continue;
    }
    if (g.is_contiguous() && torch_npu::isBaseFormat(torch_npu::npuFormatOf(g))) {
      cmd.Input(g);
      joined.emplace_back(&g, false);
      continue;
    }
    // Comparisons only: on a saturating chip (910A) abs() of an fp16 inf
    // would saturate to 65504 and hide it; eq/ne produce bools.
    at::Tensor bad = g.ne(g).logical_or(g.eq(INFINITY)).logical_or(g.eq(-INFINITY)).any();
    any_bad = any_bad.defined() ? at::logical_or(any_bad, bad) : bad;
    g.mul_(inv_scale.to(g.scalar_type()));
  }
  if (any_bad.defined()) found_inf.copy_(at::maximum(found_inf, any_bad.to(at::kFloat).reshape(found_inf.sizes())));
  if (joined.empty()) return;
  cmd.Input(found_inf).Input(inv_scale);
  for (const auto& [g, whole_storage] : joined) {
    if (whole_storage) {
      cmd.OutputRaw(torch_npu::wholeStorageParam(*g), *g);
    } else {
      cmd.Output(*g);
    }
  }
  cmd.Output(found_inf).Run();
}

at::Tensor& NPUNativeFunctions::_amp_update_scale_(at::Tensor& self, at::Tensor& growth_tracker,
                                                   const at::Tensor& found_inf, double scale_growth_factor,
                                                   double scale_backoff_factor, int64_t growth_interval) {
  const char* op = "_amp_update_scale_";
  checkScalarFloat(op, "the scale", self);
  checkScalarFloat(op, "found_inf", found_inf);
  TORCH_CHECK(growth_tracker.numel() == 1 && growth_tracker.scalar_type() == at::kInt, op,
              ": growth_tracker must be a 1-element int32 tensor, got ", growth_tracker.scalar_type(), " of shape ",
              growth_tracker.sizes());
  const at::Tensor found = found_inf.gt(0).reshape(self.sizes());
  const at::Tensor counted = at::where(found, at::zeros_like(growth_tracker), growth_tracker.add(1));
  const at::Tensor grow = counted.ge(growth_interval);
  const at::Tensor scaled = at::where(found, self.mul(scale_backoff_factor),
                                      at::where(grow, self.mul(scale_growth_factor), self));
  growth_tracker.copy_(at::where(grow, at::zeros_like(counted), counted));
  self.copy_(scaled);
  return self;
}

}  // namespace native
}  // namespace at_npu
