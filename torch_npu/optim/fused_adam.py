"""NpuFusedAdam / NpuFusedAdamW: torch.optim.Adam / AdamW with one ApplyAdamW per combined buffer."""
import torch

from torch_npu.optim.combined import CombinedOptimizer


class _FusedAdamBase(CombinedOptimizer):
    state_names = ("exp_avg", "exp_avg_sq")
    decoupled = True

    def __init__(self, params, lr, betas, eps, weight_decay, amsgrad):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0 or not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameters: {betas}")
        if amsgrad:
            raise ValueError(f"{type(self).__name__} does not support amsgrad; use torch.optim with amsgrad=True")
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=False))

    def _begin_group(self, group, params):
        if "_step" not in group:  # a state_dict of torch.optim.Adam(W) keeps the count per parameter
            steps = [float(self.state[p]["step"]) for p in group["params"] if "step" in self.state[p]]
            group["_step"] = int(max(steps)) if steps else 0
        group["_step"] += 1
        for p in group["params"]:  # torch.optim's per-parameter step count, for state_dict compatibility
            if p.requires_grad:
                self.state[p]["step"] = torch.tensor(float(group["_step"]))

    def _step_buffer(self, group, param, grad, states):
        beta1, beta2 = group["betas"]
        step = group["_step"]
        torch.ops.npu.npu_apply_adam_w(param, states["exp_avg"], states["exp_avg_sq"], grad, group["lr"], beta1,
                                        beta2, group["eps"], group["weight_decay"], 1 - beta1 ** step,
                                        1 - beta2 ** step, self.decoupled)


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
