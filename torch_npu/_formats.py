"""Storage formats of NPU tensors (see Note [Private formats and ordinary ops]).

    torch_npu.get_npu_format(t)            -> 29 (an ACL format id)
    torch_npu.npu_format_cast(t, 29)       -> a copy stored as FRACTAL_NZ
    t.npu_format_cast_(3)                  -> t itself, now stored as NC1HWC0
    torch_npu.empty_with_format((2, 3, 4, 5), dtype=torch.float16, acl_format=3)

Printing, .cpu(), views and every op always see the logical tensor.
"""
import enum

import torch

from torch_npu import _C
from torch_npu._device_name import npu_device
from torch_npu._patches.registry import replace


# ACL format ids, read from the simulator's format table (aclsimGetFormatInfo): the one list of
# formats, which neither the plugin nor this package copies. UNDEFINED (-1) is ACL's "no format".
Format = enum.IntEnum("Format", [("UNDEFINED", -1)] + [(row[0], row[1]) for row in _C._npu_formatTable()],
                      module=__name__)
Format.__doc__ = "ACL format ids (docs/simulator.md §2), one per row of the simulator's format table."


def get_npu_format(tensor):
    """The ACL format id of the tensor's storage."""
    return _C._npu_getFormat(tensor)


def _format_id(acl_format):
    """An ACL format id, or (as torch_npu's npu_format_cast(self, dst) overload) the format of a tensor."""
    if isinstance(acl_format, torch.Tensor):
        return get_npu_format(acl_format)
    return int(acl_format)


def npu_format_cast(tensor, acl_format):
    """A tensor with the same values whose storage is in `acl_format` (an ACL format id, or another NPU
    tensor whose format to take); self if it already is."""
    return torch.ops.npu.npu_format_cast(tensor, _format_id(acl_format))


def npu_format_cast_(tensor, acl_format):
    """Changes the storage format of `tensor` in place (to an id, or to another tensor's) and returns it."""
    return torch.ops.npu.npu_format_cast_(tensor, _format_id(acl_format))


def empty_with_format(size, dtype=None, layout=torch.strided, device=None, pin_memory=False,
                      acl_format=Format.ND):
    """An uninitialised NPU tensor whose storage is laid out in `acl_format`."""
    if layout != torch.strided or pin_memory:
        raise ValueError("empty_with_format: only strided, non-pinned NPU tensors are supported")
    return _C._npu_emptyWithFormat(list(size), dtype or torch.get_default_dtype(), npu_device(device).index,
                                   int(acl_format))


def install():
    replace("torch.Tensor.npu_format_cast", npu_format_cast)
    replace("torch.Tensor.npu_format_cast_", npu_format_cast_)
