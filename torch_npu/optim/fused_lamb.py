"""NpuFusedLamb: LAMB (You et al., "Large Batch Optimization for Deep Learning") with one ApplyLamb per
combined buffer; the trust ratio stays per parameter (Note [LAMB over a combined buffer] in the simulator's
src/ops/optim/optimizer_lamb.cpp)."""
import torch

from torch_npu.optim.combined import CombinedOptimizer, check_adam_hyperparameters


class NpuFusedLamb(CombinedOptimizer):
    """LAMB as torch_npu's NpuFusedLamb computes it, per parameter p with gradient g:

        m = beta1 m + (1 - beta1) g;   v = beta2 v + (1 - beta2) g^2          (no bias correction)
        step = m / (sqrt(v) + eps) + weight_decay p
        ratio = min(||p||, 10) / ||step||   (1 if either norm is 0, or with adam=True)
        p -= lr ratio step

    Note [Combined parameters] in torch_npu/optim/combined.py.
    """

    state_names = ("exp_avg", "exp_avg_sq")
    counts_steps = True
    combines_private_formats = False  # the trust ratio's norms must not see a format's pads

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0, adam=False):
        check_adam_hyperparameters(lr, eps, betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, adam=adam))

    def _step_buffer(self, group, param, grad, states, segments):
        beta1, beta2 = group["betas"]
        torch.ops.npu.npu_apply_lamb(param, states["exp_avg"], states["exp_avg_sq"], grad, segments, group["lr"],
                                     beta1, beta2, group["eps"], group["weight_decay"], group["adam"])
