"""torch.nn.DataParallel across NPUs: device discovery, the comm primitives and parallel_apply.

Note [DataParallel on the NPU]
torch 1.13's DataParallel asks torch._utils._get_available_device_type for its device type, which
knows CUDA and XPU only: with NPUs and no CUDA it answers None, and DataParallel silently runs the
wrapped module as it is, on one device, whatever device_ids say. Below that, the pieces are
CUDA-bound: torch.nn.parallel.comm's broadcast, broadcast_coalesced, scatter and gather call
torch._C functions that a build without CUDA lacks, and parallel_apply runs each replica under
torch.cuda's device, stream and autocast. torch_npu:
- answers "npu" / torch.npu in _get_available_device_type and _get_device_attr when there are NPUs
  and no CUDA (so device_ids default to every NPU, the balance check reads the NPUs' properties and
  the source device is npu:device_ids[0]);
- gives comm's functions an NPU path with the C++ versions' contract (a broadcast output on the
  source device is the input itself; scatter's chunks are views when already on their device;
  gather to -1 means the CPU); copies go through the device (Tensor.to), reductions add in device
  order as comm.reduce_add does;
- runs parallel_apply's replicas on one host thread each, under the replica's device, that
  device's current stream, the caller's grad mode and the caller's NPU autocast state (autocast is
  per thread).
Replicate, Broadcast/Scatter/Gather's autograd and reduce_add_coalesced are torch's own and work
unchanged on top.
"""
import functools
import importlib
import threading

import torch
import torch.nn.parallel.comm as _comm
from torch._utils import ExceptionWrapper

from torch_npu import _C
from torch_npu._patches.registry import replace

# torch.nn.parallel's functions of the same names shadow these two modules as its attributes.
_data_parallel = importlib.import_module("torch.nn.parallel.data_parallel")
_parallel_apply = importlib.import_module("torch.nn.parallel.parallel_apply")


# Read before transfer_to_npu can point torch.cuda.is_available at the NPU.
_HAS_CUDA = torch.cuda.is_available()


def _npu_in_use():
    return not _HAS_CUDA and _C._npu_getDeviceCount() > 0


def _with_npu_device_type(get_type):
    @functools.wraps(get_type)
    def available_device_type():
        return "npu" if get_type() is None and _npu_in_use() else get_type()
    return available_device_type


def _with_npu_device_attr(get_attr):
    @functools.wraps(get_attr)
    def device_attr(get_member):
        if _npu_in_use():
            return get_member(torch.npu)
        return get_attr(get_member)
    return device_attr


def _is_npu(tensor):
    return isinstance(tensor, torch.Tensor) and tensor.device.type == "npu"


def _npu(index):
    return torch.device("npu", index)


def _index(device):
    return torch._utils._get_device_index(device, optional=True, allow_cpu=True)


# ---- comm: the four primitives a build without CUDA lacks, for NPU tensors ---------------------------
def _broadcast(tensor, devices):
    return tuple(tensor if tensor.device == _npu(d) else tensor.to(_npu(d)) for d in map(_index, devices))


def _broadcast_coalesced(tensors, devices, buffer_size):
    devices = [_index(d) for d in devices]
    for tensor in tensors:
        if tensor.device != _npu(devices[0]):
            raise RuntimeError(f"broadcast_coalesced: all tensors must be on devices[0] (npu:{devices[0]}), "
                               f"got a tensor on {tensor.device}")
    return [list(tensors)] + [[t.to(_npu(d)) for t in tensors] for d in devices[1:]]


def _scatter(tensor, devices, chunk_sizes, dim):
    devices = [_index(d) for d in devices]
    chunks = tensor.split(chunk_sizes, dim) if chunk_sizes is not None else tensor.chunk(len(devices), dim)
    return tuple(chunk.to(_npu(d), non_blocking=True) for chunk, d in zip(chunks, devices))


def _gather(tensors, dim, destination):
    destination = _index(destination)
    target = torch.device("cpu") if destination == -1 else _npu(destination)
    return torch.cat([t.to(target) for t in tensors], dim)


def _npu_first(original, npu_version, tensors_of):
    """original(...), or npu_version(...) when the operands are NPU tensors."""
    @functools.wraps(original)
    def primitive(*args, **kwargs):
        tensors = list(tensors_of(*args, **kwargs))
        on_npu = any(_is_npu(t) for t in tensors) if tensors else _npu_in_use()
        if kwargs.get("out") is None and on_npu:
            kwargs.pop("out", None)
            return npu_version(*args, **kwargs)
        return original(*args, **kwargs)
    return primitive


def _broadcast_entry(tensor, devices=None, *, out=None):
    return _broadcast(tensor, devices)


def _broadcast_coalesced_entry(tensors, devices, buffer_size=10485760):
    return _broadcast_coalesced(tensors, devices, buffer_size)


def _scatter_entry(tensor, devices=None, chunk_sizes=None, dim=0, streams=None, *, out=None):
    if devices is None:
        raise RuntimeError("scatter: 'devices' must be given for NPU tensors")
    return _scatter(tensor, devices, chunk_sizes, dim)


def _gather_entry(tensors, dim=0, destination=None, *, out=None):
    return _gather(tensors, dim, destination)


def _reduce_add_entry(inputs, destination=None):
    destination = _index(destination)
    if destination is None or destination == -1:
        destination = torch.npu.current_device()
    roots = [i for i, t in enumerate(inputs) if t.device == _npu(destination)]
    if not roots:
        raise RuntimeError(f"reduce_add expects destination npu:{destination} to hold one of the inputs")
    result = inputs[roots[0]].clone()
    for i, other in enumerate(inputs):
        if i != roots[0]:
            result.add_(other.to(_npu(destination)))
    return result


def _patch_comm():
    first_tensor = lambda tensor, *args, **kwargs: (tensor,)  # noqa: E731
    all_tensors = lambda tensors, *args, **kwargs: tensors  # noqa: E731
    for name, entry, tensors_of in (("broadcast", _broadcast_entry, first_tensor),
                                    ("broadcast_coalesced", _broadcast_coalesced_entry, all_tensors),
                                    ("scatter", _scatter_entry, first_tensor),
                                    ("gather", _gather_entry, all_tensors),
                                    ("reduce_add", _reduce_add_entry, all_tensors)):
        replace(f"torch.nn.parallel.comm.{name}", _npu_first(getattr(_comm, name), entry, tensors_of),
                family="torch.nn.parallel.comm.<primitive>")


# ---- parallel_apply ---------------------------------------------------------------------------------
def _npu_parallel_apply(modules, inputs, kwargs_tup, devices):
    grad_enabled = torch.is_grad_enabled()
    autocast = dict(enabled=_C._npu_isAutocastEnabled(), dtype=_C._npu_getAutocastDtype(),
                    cache_enabled=torch.is_autocast_cache_enabled())
    results = [None] * len(modules)

    def run(i, module, args, kwargs, device):
        torch.set_grad_enabled(grad_enabled)
        try:
            with torch.npu.device(device), torch.npu.stream(torch.npu.current_stream(device)), \
                    torch.npu.amp.autocast(**autocast):
                results[i] = module(*(args if isinstance(args, (list, tuple)) else (args,)), **kwargs)
        except Exception:
            results[i] = ExceptionWrapper(where=f"in replica {i} on device npu:{device}")

    jobs = list(zip(modules, inputs, kwargs_tup, devices))
    if len(jobs) == 1:
        run(0, *jobs[0])
    else:
        threads = [threading.Thread(target=run, args=(i, *job)) for i, job in enumerate(jobs)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    for result in results:
        if isinstance(result, ExceptionWrapper):
            result.reraise()
    return results


def _device_of(value):
    found = _parallel_apply.get_a_var(value)
    return found.get_device() if _is_npu(found) else None


def _with_npu_replicas(parallel_apply):
    @functools.wraps(parallel_apply)
    def apply(modules, inputs, kwargs_tup=None, devices=None):
        if devices is None:
            devices = [_device_of(args) for args in inputs]
        else:
            devices = [_index(d) for d in devices]
        on_npu = [next(iter(m.parameters()), None) for m in modules]
        if not (devices and all(d is not None for d in devices) and
                all(p is None or _is_npu(p) for p in on_npu) and _npu_in_use()):
            return parallel_apply(modules, inputs, kwargs_tup, devices)
        assert len(modules) == len(inputs) == len(devices)
        kwargs_tup = kwargs_tup if kwargs_tup is not None else ({},) * len(modules)
        return _npu_parallel_apply(modules, inputs, kwargs_tup, devices)

    return apply


def install():
    device_type = _with_npu_device_type(torch._utils._get_available_device_type)
    replace("torch._utils._get_available_device_type", device_type)
    replace("torch._utils._get_device_attr", _with_npu_device_attr(torch._utils._get_device_attr))
    replace("torch.nn.parallel.data_parallel._get_available_device_type", device_type)  # imported by name
    _patch_comm()
    apply = _with_npu_replicas(_parallel_apply.parallel_apply)
    replace("torch.nn.parallel.parallel_apply.parallel_apply", apply)
    replace("torch.nn.parallel.data_parallel.parallel_apply", apply)
