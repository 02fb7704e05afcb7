"""FullyShardedDataParallel (torch 1.13) on the NPU.

Note [FSDP on the NPU]
torch 1.13's FSDP is wired to CUDA: it resolves its compute device as `torch.device("cuda",
torch.cuda.current_device())` unless a parameter already says "cuda", creates its all-gather,
pre-all-gather and post-backward streams with torch.cuda.Stream, orders them with
torch.cuda.current_stream().wait_stream / torch.cuda.stream / torch.cuda.Event / record_stream,
and synchronizes with torch.cuda.synchronize around state dicts. Everything else it does is
device-generic (flat parameters, the collectives, which the hccl backend provides, mixed precision,
CPU offload with pinned memory). The NPU has the same stream model: per-thread current streams,
wait_stream, events, record_stream into the caching allocator, a communicator stream that waits on
the caller's (ProcessGroupHCCL), so the CUDA code is right for the NPU once it reaches the NPU's
API. torch_npu therefore changes no FSDP logic, only what FSDP's five modules see as `torch`:
- a view of torch whose `cuda` is torch.npu's stream and device API (Stream, Event, stream,
  current_stream, synchronize, current_device, ...) when NPUs are in use and CUDA is not, and whose
  `device("cuda", i)` is the NPU's; every other attribute is torch's own (the global torch.cuda is
  untouched);
- _get_compute_device and _materialize_module take the current NPU where torch takes the current
  CUDA device, and clip_grad_norm_ moves the local norm to the compute device where 1.13 calls
  .cuda() (a one-line repair, Note [Repairing a torch function from its source]).
With storage resizing (UntypedStorage.resize_, FSDP's way to free and re-gather parameters) and
set_ from a tensor, both NPU kernels, full sharding, sync_module_states, mixed precision, CPU
offload and the state-dict types train as on one device (test/python/distributed/test_fsdp.py).
"""
import functools
import importlib
import types

import torch

from torch_npu import _C
from torch_npu._patches._source import repaired
from torch_npu._patches.registry import replace

# Read before transfer_to_npu can point torch.cuda.is_available at the NPU.
_HAS_CUDA = torch.cuda.is_available()
_FSDP_MODULES = ("torch.distributed.fsdp.fully_sharded_data_parallel", "torch.distributed.fsdp.flat_param",
                 "torch.distributed.fsdp._optim_utils", "torch.distributed.fsdp._shard_utils",
                 "torch.distributed.algorithms._comm_hooks.default_hooks")
_FSDP_CLASS = "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"
# What FSDP uses of torch.cuda: its stream and device API, which torch.npu mirrors.
_STREAM_AND_DEVICE_API = ("is_available", "current_device", "device_count", "set_device", "device", "Stream",
                          "Event", "current_stream", "default_stream", "stream", "synchronize")
_RealDevice = type(torch.device("cpu"))


def _npu_in_use():
    return not _HAS_CUDA and _C._npu_getDeviceCount() > 0


def _current_npu():
    return _RealDevice("npu", _C._npu_getDevice())


class _CudaAsSeenByFsdp(types.ModuleType):
    def __getattr__(self, name):
        if name in _STREAM_AND_DEVICE_API and _npu_in_use():
            return getattr(torch.npu, name)
        return getattr(torch.cuda, name)


class _DeviceMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _RealDevice)


class _DeviceAsSeenByFsdp(metaclass=_DeviceMeta):
    """torch.device, where "cuda" is the NPU while NPUs are in use (instances are torch's devices)."""

    def __new__(cls, *args, **kwargs):
        device = _RealDevice(*args, **kwargs)
        if device.type == "cuda" and _npu_in_use():
            return _RealDevice("npu", device.index) if device.index is not None else _current_npu()
        return device


class _TorchAsSeenByFsdp(types.ModuleType):
    def __getattr__(self, name):
        return getattr(torch, name)


_TORCH = _TorchAsSeenByFsdp("torch")
_TORCH.cuda = _CudaAsSeenByFsdp("torch.cuda")
_TORCH.device = _DeviceAsSeenByFsdp


def _npu_compute_device(get_compute_device):
    @functools.wraps(get_compute_device)
    def compute_device(self, module, ignored_params, device_from_device_id):
        param = next(self._get_orig_params(module, ignored_params), None)
        if param is not None and param.device.type not in ("npu", "cpu") or not _npu_in_use():
            return get_compute_device(self, module, ignored_params, device_from_device_id)
        device = param.device if param is not None and param.device.type == "npu" else _current_npu()
        if device_from_device_id is not None and device != device_from_device_id:
            raise ValueError(f"Inconsistent compute device and `device_id` on rank {self.rank}: {device} vs "
                             f"{device_from_device_id}")
        return device
    return compute_device


def _npu_materialize(materialize_module):
    @functools.wraps(materialize_module)
    def materialize(self, module, param_init_fn, device_from_device_id):
        if device_from_device_id is None and _npu_in_use():
            device_from_device_id = _current_npu()  # torch: torch.cuda.current_device(), an int meaning CUDA
        return materialize_module(self, module, param_init_fn, device_from_device_id)
    return materialize


def install():
    try:
        modules = [importlib.import_module(name) for name in _FSDP_MODULES]
    except Exception:  # noqa: BLE001 - FSDP unavailable (e.g. start-up fixes off on Python 3.11): nothing to do
        return
    if modules[0].torch is _TORCH:
        return
    for module in modules:
        replace(f"{module.__name__}.torch", _TORCH, family="torch.distributed.<FSDP module>.torch")
    fsdp_class = modules[0].FullyShardedDataParallel
    replace(f"{_FSDP_CLASS}._get_compute_device", _npu_compute_device(fsdp_class._get_compute_device))
    replace(f"{_FSDP_CLASS}._materialize_module", _npu_materialize(fsdp_class._materialize_module))
    replace(f"{_FSDP_CLASS}.clip_grad_norm_", repaired(fsdp_class.__dict__["clip_grad_norm_"], [(
        "_calc_grad_norm(self.params_with_grad, norm_type).cuda()",
        "_calc_grad_norm(self.params_with_grad, norm_type).to(self.compute_device)")]))
