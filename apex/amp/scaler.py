"""apex.amp's loss scaler on the NPU.

Dynamic scaling as in apex: start at 2**16 (capped by max_loss_scale), halve
on an overflow (not below min_loss_scale) and skip that step, double after
2000 steps without one. A static scale never changes; an overflowing step is
still skipped. Overflow detection is torch.npu.amp.GradScaler's: the chip's
float status on the saturating 910A (cleared when the backward starts) plus
an inf/NaN scan of the gradients (_amp_foreach_non_finite_check_and_unscale_,
which also unscales them, in one call per dtype — combine_grad).
"""
import torch

from torch_npu.npu.amp.grad_scaler import unscale_and_check_
from torch_npu.npu.numerics import clear_npu_overflow_flag


class LossScaler:
    def __init__(self, loss_scale, min_loss_scale=None, max_loss_scale=2.0 ** 24, scale_window=2000):
        self.dynamic = loss_scale == "dynamic"
        self.loss_scale = min(max_loss_scale, 2.0 ** 16) if self.dynamic else float(loss_scale)
        self.min_loss_scale = min_loss_scale
        self.max_loss_scale = max_loss_scale
        self.scale_window = scale_window
        self.unskipped = 0
        self.skip_next_step = False

    def begin_backward(self, device):
        clear_npu_overflow_flag(device)

    def unscale(self, grads):
        """Unscales `grads` in place (one call per device and dtype); True if any overflowed."""
        device = grads[0].device
        found = unscale_and_check_(grads, torch.full((1,), 1.0 / self.loss_scale, device=device),
                                   torch.zeros(1, device=device))
        return any(bool(f.item()) for f in found.values())

    def update(self, overflow):
        self.skip_next_step = overflow
        if not self.dynamic:
            return
        if overflow:
            self.loss_scale /= 2.0
            if self.min_loss_scale is not None:
                self.loss_scale = max(self.loss_scale, self.min_loss_scale)
            self.unskipped = 0
            return
        self.unskipped += 1
        if self.unskipped == self.scale_window:
            self.loss_scale = min(self.max_loss_scale, self.loss_scale * 2.0)
            self.unskipped = 0

    def state_dict(self):
        return {"loss_scale": self.loss_scale, "unskipped": self.unskipped}

    def load_state_dict(self, state):
        self.loss_scale = state["loss_scale"]
        self.unskipped = state["unskipped"]
