"""torch_npu.distributed: the "hccl" backend of torch.distributed on simulated NPUs.

`import torch_npu` registers the backend, so the porting guide's multi-device code
runs unmodified::

    torch.npu.set_device(f"npu:{rank}")
    dist.init_process_group(backend="hccl", init_method="env://", world_size=n, rank=rank)
    model = DistributedDataParallel(model.npu(), device_ids=[rank])

The collectives run in the simulator's HCCL layer (real bytes between processes,
ring / halving-doubling algorithms, simulated time in torch.npu.op_records()).
See docs/distributed.md.
"""
import torch.distributed as _dist

from torch_npu import _C
from torch_npu._patches.registry import replace
from torch_npu.distributed import _ddp_inputs, launch_env

BACKEND_NAME = "hccl"


def is_hccl_available() -> bool:
    """True: the simulated HCCL backend is always built."""
    return True


def _create_process_group_hccl(store, rank, world_size, timeout):
    launch_env.check_before_init()
    return _C.ProcessGroupHCCL(store, rank, world_size, timeout)


def _install():
    if not _dist.is_available():  # pragma: no cover - Debian's torch has distributed
        return
    if BACKEND_NAME.upper() not in _dist.Backend._plugins:
        _dist.Backend.register_backend(BACKEND_NAME, _create_process_group_hccl)
    _ddp_inputs.install()
    launch_env.apply_at_import()  # Note [Rank table and servers]
    # "gloo" groups stage NPU tensors through host memory (Note [gloo with NPU tensors]); a subclass
    # of ProcessGroupGloo, so isinstance checks and CPU tensors are as before.
    import torch.distributed.distributed_c10d as c10d
    if getattr(c10d, "_GLOO_AVAILABLE", False):
        replace("torch.distributed.distributed_c10d.ProcessGroupGloo", _C.ProcessGroupGlooNPU)


ProcessGroupHCCL = _C.ProcessGroupHCCL

__all__ = ["ProcessGroupHCCL", "is_hccl_available", "BACKEND_NAME"]
