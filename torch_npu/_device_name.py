"""The device type string of the NPU, and conversion of user device specs.

With the start-up hook active (see _preload.py), c10 itself parses "npu" and
names PrivateUse1 "npu", so everything in PyTorch just works. If torch was
imported before the hook could run (python -S, an embedding application,
the hook not installed), or if the libc10 in the process does not define the
symbols the hook replaces (a PyTorch other than the one torch_npu was built
against), c10 only knows "privateuseone": torch_npu then works in a degraded
mode where tensors report device type "privateuseone", `torch.device("npu")`
raises, and `.npu()`, `.to(npu_device(...))` and the torch.npu API still work.
`is_native()` tells which mode is active.
"""
import ctypes
import warnings

import torch

_NATIVE_NAME = "npu"
_FALLBACK_NAME = "privateuseone"
_DEGRADED = (
    "PyTorch names the NPU 'privateuseone' in this process: torch.device('npu') and device='npu' raise; "
    "tensor.npu(), module.npu(), torch.npu and torch_npu._device_name.npu_device() still work.")


def _hook_status():
    """The hook's verdict on libc10 (see Note [Verifying the interposed symbols] in
    csrc/device_name/DeviceName.cpp): "" if it is active, the missing symbols if not, None if no
    hook is loaded."""
    try:
        status = ctypes.CDLL(None).torch_npu_device_name_hook_status
    except AttributeError:
        return None
    status.restype = ctypes.c_char_p
    return status().decode()


def _probe():
    try:
        return torch.device(_NATIVE_NAME).type == _NATIVE_NAME
    except RuntimeError:
        return False


_HOOK_STATUS = _hook_status()
_NATIVE = not _HOOK_STATUS and _probe()
DEVICE_TYPE = _NATIVE_NAME if _NATIVE else _FALLBACK_NAME

if _HOOK_STATUS:
    warnings.warn(
        f"torch_npu: the 'npu' device-name hook is disabled: {_HOOK_STATUS}. The PyTorch in this process is "
        f"probably not the one torch_npu was built against. {_DEGRADED} Rebuild torch_npu against this PyTorch "
        "(`/usr/bin/python3 setup.py develop`); if libc10's symbols changed, update csrc/device_name/DeviceName.cpp.",
        RuntimeWarning)
elif not _NATIVE:
    warnings.warn(
        f"torch_npu: torch was imported before the 'npu' device-name hook was loaded. {_DEGRADED} Run "
        "`/usr/bin/python3 setup.py develop` to install the start-up hook, and do not start Python with -S.",
        RuntimeWarning)


def is_native():
    """True if PyTorch itself understands the device name "npu"."""
    return _NATIVE


def npu_device(device=None):
    """A torch.device of the NPU for None (current device), an int, "npu[:N]" or a device."""
    from torch_npu import _C

    if device is None:
        return torch.device(DEVICE_TYPE, _C._npu_getDevice())
    if isinstance(device, int):
        return torch.device(DEVICE_TYPE, device)
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if kind not in (_NATIVE_NAME, _FALLBACK_NAME):
            raise ValueError(f"expected an npu device, got '{device}'")
        return torch.device(DEVICE_TYPE, int(index) if index else _C._npu_getDevice())
    if isinstance(device, torch.device):
        if device.type != DEVICE_TYPE:
            raise ValueError(f"expected an npu device, got '{device}'")
        return device if device.index is not None else torch.device(DEVICE_TYPE, _C._npu_getDevice())
    raise TypeError(f"expected a device index, string or torch.device, got {type(device).__name__}")


def device_index(device=None):
    """The index of an NPU device spec (None means the current device)."""
    return npu_device(device).index
