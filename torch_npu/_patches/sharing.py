"""NPU tensors and other processes: a clear error instead of `_share_fd_: only available on CPU`.

Note [NPU memory is not shared between processes]
CUDA shares device memory between processes through IPC handles: `share_memory_()` is a no-op for a
CUDA tensor, and torch.multiprocessing pickles it as a handle that the child opens. Each process
that imports torch_npu simulates its own NPUs (the device, its HBM and its streams live in the
process), so there is no device memory another process could open: `npu:0` in a child is another
chip. torch 1.13 sends an NPU storage down its CPU path and fails with `_share_fd_: only available
on CPU`, which tells the user nothing. torch_npu raises, at `share_memory_()` (Tensor, storage,
Module.share_memory) and when torch.multiprocessing pickles an NPU tensor or storage for another
process, an error that says why and what to do: share a CPU copy (each child moves it to its NPU
and back) or train data-parallel with DistributedDataParallel on the hccl backend.
"""
import functools

import torch
from torch.multiprocessing.reductions import ForkingPickler

from torch_npu._patches.registry import replace

_ADVICE = ("Each process simulates its own NPUs, so NPU memory cannot be shared with another process (no IPC "
           "handles, unlike CUDA). Share a CPU copy instead (tensor.cpu().share_memory_(), or model.cpu() before "
           "model.share_memory(); each process then moves it to its NPU), or train data-parallel with "
           "torch.nn.parallel.DistributedDataParallel on the 'hccl' backend.")
_REDUCERS = "torch.multiprocessing.reductions.ForkingPickler._extra_reducers"


def _refuse(what):
    raise RuntimeError(f"{what}: {_ADVICE}")


def _storage_device(obj):
    return obj.device.type if hasattr(obj, "device") else None


def _refusing_npu(method, what):
    @functools.wraps(method)
    def share_memory_(self):
        if _storage_device(self) == "npu":
            _refuse(what)
        return method(self)
    return share_memory_


def _refusing_npu_reducer(reduce, what):
    @functools.wraps(reduce)
    def reducer(obj):
        if _storage_device(obj) == "npu":
            _refuse(f"{what} of an NPU {type(obj).__name__} for another process")
        return reduce(obj)
    return reducer


def install():
    for cls, target in ((torch.UntypedStorage, "torch.UntypedStorage.share_memory_"),
                        (torch.storage.TypedStorage, "torch.storage.TypedStorage.share_memory_"),
                        (torch.Tensor, "torch.Tensor.share_memory_")):
        replace(target, _refusing_npu(cls.share_memory_, f"{cls.__name__}.share_memory_()"))
    for cls, reduce in list(ForkingPickler._extra_reducers.items()):
        if issubclass(cls, torch.Tensor) or getattr(cls, "__module__", "").startswith("torch") and \
                cls.__name__.endswith("Storage"):
            replace(f"{_REDUCERS}[{cls.__module__}.{cls.__qualname__}]",
                    _refusing_npu_reducer(reduce, "torch.multiprocessing: pickling"),
                    family=f"{_REDUCERS}[<tensor or storage class>]")
