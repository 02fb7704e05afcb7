"""NpuFusedBertAdam: BERT's Adam (Adam without bias correction, decoupled weight decay, a warm-up schedule
and gradient clipping), one ApplyAdamW per combined buffer."""
import math

from torch_npu.optim.combined import CombinedOptimizer, clip_buffers_
from torch_npu.optim.fused_adam import apply_adam_w


def warmup_cosine(x, warmup=0.002):
    return x / warmup if x < warmup else 0.5 * (1.0 + math.cos(math.pi * x))


def warmup_constant(x, warmup=0.002):
    return x / warmup if x < warmup else 1.0


def warmup_linear(x, warmup=0.002):
    return x / warmup if x < warmup else max((x - 1.0) / (warmup - 1.0), 0.0)


def warmup_poly(x, warmup=0.002, degree=0.5):
    return x / warmup if x < warmup else (1.0 - x) ** degree


SCHEDULES = {"warmup_cosine": warmup_cosine, "warmup_constant": warmup_constant, "warmup_linear": warmup_linear,
             "warmup_poly": warmup_poly}


class NpuFusedBertAdam(CombinedOptimizer):
    """BertAdam (pytorch-pretrained-bert, NVIDIA's BERT example) as torch_npu fuses it, per step:

        clip the group's gradients to max_grad_norm jointly (-1: no clipping; the fused form clips the
        combined gradient, as torch_npu's NpuFusedBertAdam does, where BertAdam clipped each tensor)
        m = b1 m + (1 - b1) g;   v = b2 v + (1 - b2) g^2
        p -= lr_t (m / (sqrt(v) + e) + weight_decay p),   lr_t = lr schedule(step / t_total, warmup)

    with step counted from 0 and lr_t = lr when t_total is -1.
    """

    state_names = ("next_m", "next_v")
    counts_steps = True
    combines_private_formats = False  # the clipping norm must not see a format's pads

    def __init__(self, params, lr, warmup=-1, t_total=-1, schedule="warmup_linear", b1=0.9, b2=0.999, e=1e-6,
                 weight_decay=0.01, max_grad_norm=1.0):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr} - should be >= 0.0")
        if schedule not in SCHEDULES:
            raise ValueError(f"Invalid schedule parameter: {schedule}; one of {sorted(SCHEDULES)}")
        if not 0.0 <= warmup < 1.0 and warmup != -1:
            raise ValueError(f"Invalid warmup: {warmup} - should be in [0.0, 1.0[ or -1")
        if not 0.0 <= b1 < 1.0 or not 0.0 <= b2 < 1.0:
            raise ValueError(f"Invalid b1/b2 parameters: {b1}, {b2} - should be in [0.0, 1.0[")
        if e < 0.0:
            raise ValueError(f"Invalid epsilon value: {e} - should be >= 0.0")
        super().__init__(params, dict(lr=lr, schedule=schedule, warmup=warmup, t_total=t_total, b1=b1, b2=b2, e=e,
                                      weight_decay=weight_decay, max_grad_norm=max_grad_norm))

    def get_lr(self):
        """The scheduled learning rate of each group for the next step."""
        return [self._scheduled_lr(group, group.get("_step", 0)) for group in self.param_groups]

    @staticmethod
    def _scheduled_lr(group, done_steps):
        if group["t_total"] == -1:
            return group["lr"]
        return group["lr"] * SCHEDULES[group["schedule"]](done_steps / group["t_total"], group["warmup"])

    def _begin_group(self, group, grads):
        super()._begin_group(group, grads)
        if group["max_grad_norm"] > 0:
            clip_buffers_(grads, group["max_grad_norm"])

    def _step_buffer(self, group, param, grad, states, segments):
        lr = self._scheduled_lr(group, group["_step"] - 1)
        apply_adam_w(param, states["next_m"], states["next_v"], grad, lr, group["b1"], group["b2"], group["e"],
                     group["weight_decay"], 1.0, 1.0, decoupled=True)
