"""torch.distributed's object collectives stage their bytes on the NPU for an hccl group.

all_gather_object, gather_object, broadcast_object_list and scatter_object_list pickle objects into
byte tensors on the device torch.distributed.distributed_c10d._get_pg_device names: the current
CUDA device for an NCCL group, the CPU for anything else. For an hccl group the CPU is the wrong
answer (HCCL moves device memory, as NCCL does), so the collective failed on a CPU tensor. torch_npu
answers the current NPU for a group whose backend is hccl, as torch does for NCCL.
"""
import functools

import torch
import torch.distributed as dist
import torch.distributed.distributed_c10d as _c10d

from torch_npu import _C
from torch_npu._patches.registry import replace


def _is_hccl(group):
    """As torch's _check_for_nccl_backend: by the group's class (RPC's groups are in no registry)."""
    pg = group or _c10d._get_default_group()
    while isinstance(pg, getattr(_c10d, "_ProcessGroupWrapper", ())):
        pg = pg.wrapped_pg
    return isinstance(pg, _C.ProcessGroupHCCL)


def _with_hccl_device(get_pg_device):
    @functools.wraps(get_pg_device)
    def pg_device(group):
        if _is_hccl(group):
            return torch.device("npu", _C._npu_getDevice())
        return get_pg_device(group)

    return pg_device


def install():
    if dist.is_available():
        replace("torch.distributed.distributed_c10d._get_pg_device", _with_hccl_device(_c10d._get_pg_device))
