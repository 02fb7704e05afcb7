"""NpuFusedAdam / NpuFusedAdamW: torch.optim.Adam / AdamW with one ApplyAdamW per combined buffer."""
import torch

from torch_npu.optim.combined import CombinedOptimizer, check_adam_hyperparameters


def apply_adam_w(param, exp_avg, exp_avg_sq, grad, lr, beta1, beta2, eps, weight_decay, bias_correction1,
                 bias_correction2, decoupled):
    """One ApplyAdamW over a buffer (npu_apply_adam_w)."""
    torch.ops.npu.npu_apply_adam_w(param, exp_avg, exp_avg_sq, grad, lr, beta1, beta2, eps, weight_decay,
                                   bias_correction1, bias_correction2, decoupled)


class _FusedAdamBase(CombinedOptimizer):
    state_names = ("exp_avg", "exp_avg_sq")
    decoupled = True
    counts_steps = True

    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad):
        check_adam_hyperparameters(lr, eps, betas)
        if amsgrad:
            raise ValueError(f"{type(self).__name__} does not support amsgrad; use torch.optim with amsgrad=True")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=False))

    def _step_buffer(self, group, param, grad, states, segments):
        beta1, beta2 = group["betas"]
        step = group["_step"]
        apply_adam_w(param, states["exp_avg"], states["exp_avg_sq"], grad, group["lr"], beta1, beta2, group["eps"],
                     group["weight_decay"], 1 - beta1 ** step, 1 - beta2 ** step, self.decoupled)


class NpuFusedAdam(_FusedAdamBase):
    """torch.optim.Adam's numbers (L2 weight decay added to the gradient); amsgrad is not supported."""
    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)


class NpuFusedAdamW(_FusedAdamBase):
    """torch.optim.AdamW's numbers (decoupled weight decay); amsgrad is not supported."""
    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)
