"""torch.npu.amp.GradScaler: dynamic (or static) loss scaling on the NPU.

torch.cuda.amp.GradScaler's algorithm and state_dict, with what the NPU
needs instead of CUDA's pieces:
- The overflow check. On the Ascend 910A fp16 arithmetic saturates: an
  overflowing gradient becomes ±65504, not inf, and the chip raises its
  sticky float-status flag instead. scale() clears the flag (after the
  forward), and unscaling counts a raised flag as a found inf, next to the
  inf/NaN scan of _amp_foreach_non_finite_check_and_unscale_ that catches
  overflows on IEEE chips (910B). Reading the flag waits for the device, as
  torch_npu's scaler does.
- The inverse scale is computed in fp32 (exact for the powers of two a
  dynamic scale takes) rather than float64.
- dynamic=False keeps the scale fixed (a static loss scale); steps with an
  overflow are still skipped.
"""
from collections import defaultdict

import torch
from torch.cuda.amp.grad_scaler import GradScaler as _CudaGradScaler, OptState, _refresh_per_optimizer_state

from torch_npu.npu.numerics import clear_npu_overflow_flag, get_npu_overflow_flag


def unscale_and_check_(grads, inv_scale, found_inf):
    """Unscales `grads` in place, one call per device and dtype, and records overflows.

    Returns {device: found_inf on that device}, 1 where a gradient held an
    inf/NaN or the device's float-status flag is raised (saturation mode).
    Shared by GradScaler and apex.amp's loss scaler.
    """
    per_device_and_dtype = defaultdict(lambda: defaultdict(list))
    for g in grads:
        per_device_and_dtype[g.device][g.dtype].append(g)
    found_per_device = {}
    for device, per_dtype in per_device_and_dtype.items():
        found = found_inf.to(device)
        if get_npu_overflow_flag(device):  # saturation mode: no inf to find
            found.fill_(1.0)
        for group in per_dtype.values():
            torch._amp_foreach_non_finite_check_and_unscale_(group, found, inv_scale.to(device))
        found_per_device[device] = found
    return found_per_device


def _check_npu(t):
    if not isinstance(t, torch.Tensor) or t.device.type != "npu":
        where = t.device if isinstance(t, torch.Tensor) else type(t).__name__
        raise ValueError(f"torch.npu.amp.GradScaler scales NPU tensors, got one on {where}")


class GradScaler(_CudaGradScaler):
    def __init__(self, init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True, dynamic=True):
        super().__init__(init_scale, growth_factor, backoff_factor, growth_interval, enabled=False)
        self._enabled = enabled
        self._dynamic = dynamic
        if enabled:
            if growth_factor <= 1.0:
                raise ValueError(f"The growth factor must be > 1.0, got {growth_factor}")
            if backoff_factor >= 1.0:
                raise ValueError(f"The backoff factor must be < 1.0, got {backoff_factor}")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def scale(self, outputs):
        """Multiplies a tensor (or an iterable of tensors) by the scale factor."""
        if not self._enabled:
            return outputs

        def apply(value):
            if isinstance(value, torch.Tensor):
                _check_npu(value)
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                return value * self._scale.to(device=value.device, non_blocking=True)
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            if hasattr(value, "__iter__"):
                return map(apply, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        scaled = apply(outputs)
        if self._scale is not None:  # the overflow check must see the backward that follows, only
            clear_npu_overflow_flag(self._scale.device)
        return scaled

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        grads = []
        for group in optimizer.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if not allow_fp16 and param.grad.dtype == torch.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                _check_npu(param.grad)
                grads.append(param.grad)
        with torch.no_grad():
            return unscale_and_check_(grads, inv_scale, found_inf)

    def unscale_(self, optimizer):
        """Divides the optimizer's gradients by the scale (once per step), recording overflows."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.reciprocal()
        found_inf = torch.zeros((1,), dtype=torch.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def update(self, new_scale=None):
        """Updates the scale: back off after an overflow, grow after growth_interval good steps.
        With dynamic=False only new_scale changes it."""
        if not self._enabled:
            return
        scale, growth_tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, torch.Tensor):
                if new_scale.numel() != 1 or new_scale.requires_grad:
                    raise ValueError("new_scale must be a float or a 1-element tensor that does not require grad")
                scale.copy_(new_scale)
            else:
                scale.fill_(float(new_scale))
        elif self._dynamic:
            found_infs = [found.to(scale.device) for state in self._per_optimizer_states.values()
                          for found in state["found_inf_per_device"].values()]
            if not found_infs:
                raise RuntimeError("No inf checks were recorded prior to update().")
            found_combined = found_infs[0]
            for found in found_infs[1:]:
                found_combined = found_combined + found
            torch._amp_update_scale_(scale, growth_tracker, found_combined, self._growth_factor,
                                     self._backoff_factor, self._growth_interval)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def is_dynamic(self):
        return self._dynamic

    def state_dict(self):
        state = super().state_dict()
        if self._enabled:
            state["dynamic"] = self._dynamic
        return state

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._dynamic = state_dict.get("dynamic", True)
