"""DistributedDataParallel(model, device_ids=[i]) for NPU modules.

Note [DDP inputs with device_ids]
With ``device_ids=[i]`` DDP moves the forward's inputs to device ``i`` through
``torch.distributed.utils._recursive_to``, which in torch 1.13 builds CUDA
devices only (``obj.to(i)`` means ``cuda:i``). On this backend CUDA is never
available, so that path could only raise "Torch not compiled with CUDA". We
wrap exactly that function: when CUDA is unavailable, an integer device id
means ``npu:i``; with CUDA present the original runs untouched. The copy does
not use DDP's side stream: the NPU task queue already overlaps host-to-device
copies with compute. Nothing else in torch.distributed is replaced.
"""
import torch
import torch.distributed.utils as _dist_utils
from torch.nn.parallel.scatter_gather import _is_namedtuple

from torch_npu._device_name import DEVICE_TYPE
from torch_npu._patches.registry import replace

_original_recursive_to = _dist_utils._recursive_to


def _recursive_to_npu(inputs, target_device, use_side_stream_for_tensor_copies):
    if torch.cuda.is_available():
        return _original_recursive_to(inputs, target_device, use_side_stream_for_tensor_copies)
    target = torch.device(DEVICE_TYPE, target_device) if isinstance(target_device, int) else torch.device(target_device)

    def to_map(obj):
        if isinstance(obj, torch.Tensor):
            return (obj if obj.device == target else obj.to(target),)
        if _is_namedtuple(obj):
            return [type(obj)(*args) for args in zip(*map(to_map, obj))]
        if isinstance(obj, tuple) and len(obj) > 0:
            return list(zip(*map(to_map, obj)))
        if isinstance(obj, list) and len(obj) > 0:
            return [list(i) for i in zip(*map(to_map, obj))]
        if isinstance(obj, dict) and len(obj) > 0:
            return [type(obj)(i) for i in zip(*map(to_map, obj.items()))]
        return [obj]

    try:
        return to_map(inputs)
    finally:
        to_map = None  # no reference cycle through the closure


def install():
    replace("torch.distributed.utils._recursive_to", _recursive_to_npu)
