"""The NPU spellings on torch.Tensor and torch.nn.Module, and printing of NPU tensors.

These are additions (Tensor.npu, Tensor.is_npu, Module.npu) plus wrappers (Tensor.pin_memory and
is_pinned without a device mean the NPU on a build without CUDA):
Module.to casts parameters to torch_npu's private formats when moving to the
NPU (see _module_formats.py); Tensor.__repr__ formats a host copy of an NPU tensor, because
PyTorch's formatter runs ~16 device ops per print. torch.manual_seed is
wrapped to also seed the NPU generators, as it does for CUDA.
"""
import functools

import torch

from torch_npu import _C
from torch_npu._device_name import DEVICE_TYPE, npu_device
from torch_npu._patches.registry import replace


def _tensor_npu(self, device=None, non_blocking=False, memory_format=torch.preserve_format):
    """Returns a copy of this tensor on the NPU (or self if it is already there)."""
    return self.to(npu_device(device), non_blocking=non_blocking, memory_format=memory_format)


def _tensor_is_npu(self):
    return self.device.type == DEVICE_TYPE


def _module_npu(self, device=None):
    """Moves all parameters and buffers to the NPU (see torch_npu/_module_formats.py)."""
    from torch_npu._module_formats import cast_module_formats
    target = npu_device(device)
    return cast_module_formats(self._apply(lambda t: t.to(target)))


def _wrap_repr(original):
    @functools.wraps(original)
    def __repr__(self, *, tensor_contents=None):
        if tensor_contents is None and self.device.type == DEVICE_TYPE and not self.is_nested:
            host = self.detach().cpu()
            contents = torch._tensor_str._tensor_str(host, len("tensor(")) if host.numel() > 0 else None
            if contents is not None:
                return torch._tensor_str._str(self, tensor_contents=contents)
        return original(self, tensor_contents=tensor_contents)

    return __repr__


def _pinning_for_the_npu(original):
    """Tensor.pin_memory / is_pinned without a device mean the NPU where there is no CUDA (torch's
    default device for pinning, which this build does not have)."""
    @functools.wraps(original)
    def wrapper(self, device=None):
        if device is None and not _HAS_CUDA:
            device = DEVICE_TYPE
        return original(self) if device is None else original(self, device)

    return wrapper


_HAS_CUDA = torch.cuda.is_available()


def _wrap_manual_seed(original):
    @functools.wraps(original)
    def manual_seed(seed):
        generator = original(seed)
        for index in range(_C._npu_getDeviceCount()):
            _C._npu_manualSeed(index, int(seed) & 0xFFFF_FFFF_FFFF_FFFF)
        return generator

    return manual_seed


def install():
    from torch_npu._module_formats import wrap_module_to
    replace("torch.Tensor.npu", _tensor_npu)
    replace("torch.Tensor.is_npu", property(_tensor_is_npu))
    replace("torch.nn.Module.npu", _module_npu)
    replace("torch.nn.Module.to", wrap_module_to(torch.nn.Module.to))
    replace("torch.Tensor.__repr__", _wrap_repr(torch.Tensor.__repr__))
    replace("torch.Tensor.pin_memory", _pinning_for_the_npu(torch.Tensor.pin_memory))
    replace("torch.Tensor.is_pinned", _pinning_for_the_npu(torch.Tensor.is_pinned))
    manual_seed = _wrap_manual_seed(torch.manual_seed)
    replace("torch.manual_seed", manual_seed)
    replace("torch.random.manual_seed", manual_seed)
