"""NpuFusedAdadelta: torch.optim.Adadelta with one ApplyAdadelta per combined buffer."""
import torch

from torch_npu.optim.combined import CombinedOptimizer


class NpuFusedAdadelta(CombinedOptimizer):
    """torch.optim.Adadelta's numbers. Note [Combined parameters] in torch_npu/optim/combined.py."""

    state_names = ("square_avg", "acc_delta")
    counts_steps = True

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay))

    def _step_buffer(self, group, param, grad, states, segments):
        torch.ops.npu.npu_apply_adadelta(param, states["square_avg"], states["acc_delta"], grad, group["lr"],
                                         group["rho"], group["eps"], group["weight_decay"])
