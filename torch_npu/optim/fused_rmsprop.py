"""NpuFusedRMSprop: torch.optim.RMSprop with one ApplyRMSProp (ApplyCenteredRMSProp) per combined buffer."""
import torch

from torch_npu.optim.combined import CombinedOptimizer


class NpuFusedRMSprop(CombinedOptimizer):
    """torch.optim.RMSprop's numbers, momentum and centered included.

    The momentum buffer is kept even when momentum is 0 (the kernel's operand; it stays zero).
    Note [Combined parameters] in torch_npu/optim/combined.py.
    """

    counts_steps = True

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False):
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered))
        centered_anywhere = any(g["centered"] for g in self.param_groups)
        self.state_names = ("square_avg", "momentum_buffer") + (("grad_avg",) if centered_anywhere else ())

    def _step_buffer(self, group, param, grad, states, segments):
        args = (group["lr"], group["alpha"], group["momentum"], group["eps"], group["weight_decay"])
        if group["centered"]:
            torch.ops.npu.npu_apply_centered_rms_prop(param, states["grad_avg"], states["square_avg"],
                                                      states["momentum_buffer"], grad, *args)
        else:
            torch.ops.npu.npu_apply_rms_prop(param, states["square_avg"], states["momentum_buffer"], grad, *args)
