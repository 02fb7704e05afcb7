"""NpuFusedSGD: torch.optim.SGD whose step is one ApplyMomentum per combined buffer."""
import torch

from torch_npu.optim.combined import CombinedOptimizer


class NpuFusedSGD(CombinedOptimizer):
    """SGD with momentum, Nesterov and weight decay (torch.optim.SGD's numbers; dampening must be 0).

    Note [Combined parameters] in torch_npu/optim/combined.py.
    """

    state_names = ("momentum_buffer",)

    def __init__(self, params, lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if dampening != 0.0:
            raise ValueError("NpuFusedSGD supports dampening=0 only (the ApplyMomentum kernel's rule); "
                             "use torch.optim.SGD for dampened momentum")
        if nesterov and momentum <= 0:
            raise ValueError("Nesterov momentum requires a momentum")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov))
        if momentum == 0.0:
            self.state_names = ()

    def _step_buffer(self, group, param, grad, states, segments):
        if group["momentum"] == 0:
            if group["weight_decay"] != 0:
                grad = grad.add(param, alpha=group["weight_decay"])
            param.add_(grad, alpha=-group["lr"])
            return
        torch.ops.npu.npu_apply_momentum(param, states["momentum_buffer"], grad, group["lr"], group["momentum"],
                                         group["nesterov"], group["weight_decay"])
