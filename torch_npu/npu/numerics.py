"""fp16 overflow status of the device (saturation mode on Ascend910A).

In saturation mode fp16 results beyond ±65504 are clamped and a sticky
per-device flag is set; loss scalers check it instead of scanning for inf.
"""
from torch_npu import _C
from torch_npu._device_name import device_index


def get_npu_overflow_flag(device=None):
    """True if an fp16 overflow happened on the device since the flag was last cleared."""
    return _C._npu_getOverflowFlag(device_index(device))


def clear_npu_overflow_flag(device=None):
    _C._npu_clearOverflowFlag(device_index(device))
