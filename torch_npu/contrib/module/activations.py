"""torch_npu.contrib.module Mish, SiLU and Swish (torch_npu/contrib/module/activations.py): the
activations as modules on torch_npu.npu_mish / npu_silu. Deprecated in torch_npu in favour of torch.nn.Mish
and torch.nn.SiLU (a FutureWarning says so)."""
import warnings

import torch.nn.functional as F
from torch import nn

import torch_npu

__all__ = ["Mish", "SiLU", "Swish"]


class Mish(nn.Module):
    """Mish(): x * tanh(softplus(x))."""

    def __init__(self):
        super().__init__()
        warnings.warn("torch_npu.contrib.module.Mish is deprecated, use torch.nn.Mish instead", FutureWarning)

    def forward(self, x):
        return torch_npu.npu_mish(x) if x.device.type == "npu" else F.mish(x)


class SiLU(nn.Module):
    """SiLU(): x * sigmoid(x) (also called Swish)."""

    def __init__(self):
        super().__init__()
        warnings.warn("torch_npu.contrib.module.SiLU is deprecated, use torch.nn.SiLU instead", FutureWarning)

    def forward(self, x):
        return torch_npu.npu_silu(x) if x.device.type == "npu" else F.silu(x)


Swish = SiLU
