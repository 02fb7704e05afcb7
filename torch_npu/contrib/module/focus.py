"""torch_npu.contrib.module.Focus (torch_npu/contrib/module/focus.py): YOLOv5's Focus stem, space to depth
(the four pixels of each 2 x 2 block as channels) then convolution, batch norm and activation."""
import torch
from torch import nn

__all__ = ["Focus"]


def _autopad(k, p=None):
    """'same' padding for an odd kernel: k // 2 (per dimension for a list)."""
    if p is not None:
        return p
    return k // 2 if isinstance(k, int) else [v // 2 for v in k]


class _Conv(nn.Module):
    """Conv2d (no bias), BatchNorm2d and LeakyReLU(0.1) (or act itself when it is a module, Identity when
    act is False): YOLOv5's Conv block."""

    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, act=True):
        super().__init__()
        self.conv = nn.Conv2d(c1, c2, k, s, _autopad(k, p), groups=g, bias=False)
        self.bn = nn.BatchNorm2d(c2)
        if act is True:
            self.act = nn.LeakyReLU(0.1, inplace=True)
        else:
            self.act = act if isinstance(act, nn.Module) else nn.Identity()

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Focus(nn.Module):
    """Focus(c1, c2, k=1, s=1, p=None, g=1, act=True); forward(x) with x (N, c1, H, W), H and W even.

    y = conv(cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)), conv a
    Conv2d(4 * c1, c2, k, s, padding p (default k // 2), groups=g, bias=False), BatchNorm2d(c2) and
    LeakyReLU(0.1) (Identity if act is False): (N, c2, H / 2 / s, W / 2 / s).
    """

    def __init__(self, c1, c2, k=1, s=1, p=None, g=1, act=True):
        super().__init__()
        self.conv = _Conv(c1 * 4, c2, k, s, p, g, act)

    def forward(self, x):
        return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))
