"""torch_npu.contrib.module.ModulatedDeformConv / DCNv2 (torch_npu/contrib/module/deform_conv.py): mmcv's
modulated deformable convolution (DCNv2) with its offset-and-mask branch, on torchvision.ops.deform_conv2d
(on the NPU: the deformable-convolution kernels and their grads)."""
import math

import torch
from torch import nn
from torch.nn.modules.utils import _pair

__all__ = ["ModulatedDeformConv", "DCNv2"]


class ModulatedDeformConv(nn.Module):
    """ModulatedDeformConv(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
    deformable_groups=1, bias=True, pack=True).

    out = sum_k weight_k * mask_k * x(p0 + p_k + offset_k) + bias, x read bilinearly (0 outside the map).
    With pack (the default), forward(x) computes offset and mask from x with conv_offset, a zero-initialised
    Conv2d(in_channels, deformable_groups * 3 * kh * kw, kernel_size, stride, padding, dilation): its first
    2 * deformable_groups * kh * kw channels are the offsets ((dy, dx) per kernel tap, mmcv's layout), the
    rest the mask logits (mask = sigmoid). Without pack, forward((x, offset, mask)) takes them. weight is
    uniform(+-1 / sqrt(in_channels * kh * kw)), bias zero (None when bias=False). Inputs are cast to float.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 deformable_groups=1, bias=True, pack=True):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"ModulatedDeformConv: in_channels ({in_channels}) and out_channels ({out_channels}) "
                             f"must be multiples of groups ({groups})")
        if in_channels % deformable_groups:
            raise ValueError(f"ModulatedDeformConv: in_channels ({in_channels}) must be a multiple of "
                             f"deformable_groups ({deformable_groups})")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride, self.padding, self.dilation = _pair(stride), _pair(padding), _pair(dilation)
        self.groups, self.deformable_groups = groups, deformable_groups
        self.with_bias, self.pack = bias, pack
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels // groups, *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(torch.empty(out_channels))
        else:
            self.register_parameter("bias", None)
        if pack:
            taps = self.kernel_size[0] * self.kernel_size[1]
            self.conv_offset = nn.Conv2d(in_channels, deformable_groups * 3 * taps, self.kernel_size, self.stride,
                                         self.padding, self.dilation, bias=True)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1. / math.sqrt(self.in_channels * self.kernel_size[0] * self.kernel_size[1])
        with torch.no_grad():
            self.weight.uniform_(-bound, bound)
            if self.bias is not None:
                self.bias.zero_()
            if self.pack:
                self.conv_offset.weight.zero_()
                self.conv_offset.bias.zero_()

    def forward(self, x):
        if self.pack:
            out = self.conv_offset(x)
            split = 2 * self.deformable_groups * self.kernel_size[0] * self.kernel_size[1]
            offset, mask = out[:, :split], torch.sigmoid(out[:, split:])
        else:
            x, offset, mask = x
        from torchvision.ops import deform_conv2d
        return deform_conv2d(x.float(), offset.float(), self.weight, self.bias, stride=self.stride,
                             padding=self.padding, dilation=self.dilation, mask=mask.float())

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, groups={self.groups}, "
                f"deformable_groups={self.deformable_groups}, bias={self.with_bias}, pack={self.pack}")


DCNv2 = ModulatedDeformConv
