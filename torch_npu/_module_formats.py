"""Private formats for module parameters, as Ascend's torch_npu sets them up.

After `module.npu()` / `module.to("npu...")`, with
torch.npu.config.allow_internal_format on (the default):
  - nn.Conv2d weights are stored as FRACTAL_Z (the Cube's filter layout), nn.Conv3d weights as
    FRACTAL_Z_3D,
  - nn.BatchNorm2d weight, bias, running_mean and running_var as NC1HWC0,
so convolutions and batch norms read them without TransData. The casts are
in place on the parameters' storages: parameter identity, optimizers and
state_dict() (which always holds logical tensors) are unaffected.
"""
import functools

import torch

from torch_npu import _C
from torch_npu._device_name import DEVICE_TYPE
from torch_npu._formats import Format


def cast_module_formats(module):
    if not _C._npu_allowInternalFormat():
        return module
    for sub in module.modules():
        if isinstance(sub, (torch.nn.Conv2d, torch.nn.Conv3d)) and sub.weight.device.type == DEVICE_TYPE:
            filter_format = Format.FRACTAL_Z if isinstance(sub, torch.nn.Conv2d) else Format.FRACTAL_Z_3D
            torch.ops.npu.npu_format_cast_(sub.weight.data, filter_format)
        elif isinstance(sub, torch.nn.BatchNorm2d):
            for t in (sub.weight, sub.bias, sub.running_mean, sub.running_var):
                if t is not None and t.device.type == DEVICE_TYPE:
                    torch.ops.npu.npu_format_cast_(t.data, Format.NC1HWC0)
    return module


def _targets_npu(args, kwargs):
    device = torch._C._nn._parse_to(*args, **kwargs)[0]
    return device is not None and device.type == DEVICE_TYPE


def wrap_module_to(original):
    @functools.wraps(original)
    def to(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        if _targets_npu(args, kwargs):
            cast_module_formats(result)
        return result

    return to
