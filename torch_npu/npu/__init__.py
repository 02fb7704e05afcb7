"""torch.npu: the device API of torch_npu (mirrors torch.cuda)."""
import contextlib

import torch

from torch_npu import _C
from torch_npu._device_name import DEVICE_TYPE, device_index, npu_device
from torch_npu.npu.streams import Event, Stream
from torch_npu.npu.memory import (
    caching_allocator_alloc, caching_allocator_delete, list_gpu_processes, set_per_process_memory_fraction,
    empty_cache, max_memory_allocated, max_memory_reserved, mem_get_info, memory_allocated,
    memory_reserved, memory_snapshot, memory_stats, memory_summary, reset_accumulated_memory_stats,
    reset_max_memory_allocated, reset_peak_memory_stats)
from torch_npu.npu.random import (
    get_rng_state, get_rng_state_all, initial_seed, manual_seed, manual_seed_all, seed, seed_all, set_rng_state,
    set_rng_state_all)
from torch_npu.npu.generator import default_generators
from torch_npu.npu import amp
from torch_npu.npu.options import get_option, is_jit_compile_false, set_compile_mode, set_option
from torch_npu.npu.config import config
from torch_npu.npu.numerics import clear_npu_overflow_flag, get_npu_overflow_flag
from torch_npu.npu.op_records import (
    OpRecord, clear_op_records, get_op_records, op_records, set_op_profiling)
from torch_npu.npu.legacy_types import (
    BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
    ShortTensor)


def is_available():
    """True if at least one (simulated) NPU is visible."""
    return device_count() > 0


def is_initialized():
    return True


def init():
    """Kept for torch.cuda compatibility: the NPU runtime initialises lazily."""


def device_count():
    return _C._npu_getDeviceCount()


def current_device():
    return _C._npu_getDevice()


def set_device(device):
    """Makes `device` (0, "npu:1", torch.device("npu", 2)) the current NPU."""
    _C._npu_setDevice(device_index(device))


def synchronize(device=None):
    """Waits for all queued work on the device and raises the first error of a failed op."""
    _C._npu_synchronize(device_index(device))


class device:
    """Context manager that changes the current NPU device."""

    def __init__(self, device):
        self.idx = -1 if device is None else device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx != -1:
            self.prev_idx = current_device()
            if self.prev_idx != self.idx:
                set_device(self.idx)

    def __exit__(self, *args):
        if self.idx != -1 and self.prev_idx != self.idx:
            set_device(self.prev_idx)
        return False


class device_of(device):
    """Context manager that makes the device of tensor `obj` current (no-op for CPU tensors)."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.device.type == DEVICE_TYPE else None)


class _DeviceProperties:
    def __init__(self, index):
        self.name = get_device_name(index)
        self.total_memory = mem_get_info(index)[1]
        self.cube_core_num = _C._npu_deviceCapability(index, 0)
        self.vector_core_num = _C._npu_deviceCapability(index, 1)
        self.l2_cache_size = _C._npu_deviceCapability(index, 2)
        self.index = index
        # The fields CUDA code reads (torch.nn.DataParallel's balance check, capability tests):
        # an SM is an AI Core; there is no CUDA compute capability (get_device_capability).
        self.multi_processor_count = self.cube_core_num
        self.major, self.minor = get_device_capability(index)
        self.is_integrated = False
        self.is_multi_gpu_board = False

    def __repr__(self):
        return (f"_NPUDeviceProperties(name='{self.name}', total_memory={self.total_memory // (1024 * 1024)}MB, "
                f"cube_core_num={self.cube_core_num}, vector_core_num={self.vector_core_num}, "
                f"l2_cache_size={self.l2_cache_size // (1024 * 1024)}MB)")


def get_device_name(device=None):
    """The simulated chip's name, e.g. 'Ascend910A'."""
    device_index(device)  # validates the index
    return _C._npu_getSocName()


def get_supported_ops():
    """The aten (and npu::) operators with an NPU kernel, as sorted "namespace::name.overload"
    strings. Others fail with NotImplementedError, or run on the CPU with TORCH_NPU_CPU_FALLBACK=1."""
    kernels = set(torch._C._dispatch_get_registrations_for_dispatch_key("PrivateUse1"))
    # custom npu:: ops written with aten ops (Note [Composite custom ops])
    kernels |= {name for name in torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")
                if name.startswith("npu::")}
    return sorted(kernels)


def is_bf16_supported():
    """Whether the simulated chip has bfloat16 hardware: the Ascend910B family
    does, the 910A does not (as on real hardware). The simulator's kernels
    compute bfloat16 on every preset; this reports the chip being modelled."""
    return _C._npu_getSocName().startswith("Ascend910B")


def get_device_properties(device=None):
    return _DeviceProperties(device_index(device))


def get_device_capability(device=None):
    """NPUs have no CUDA compute capability; kept for API compatibility."""
    return (0, 0)


def current_stream(device=None):
    return Stream._from_tuple(_C._npu_getCurrentStream(device_index(device)))


def default_stream(device=None):
    return Stream._from_tuple(_C._npu_getDefaultStream(device_index(device)))


def set_stream(stream):
    if stream is not None:
        _C._npu_setStream(stream.stream_id, stream.device_index)


@contextlib.contextmanager
def stream(stream):
    """Context manager that makes `stream` current on its device (None: no-op)."""
    if stream is None:
        yield
        return
    prev = current_stream(stream.device_index)
    prev_device = current_device()
    set_device(stream.device_index)
    set_stream(stream)
    try:
        yield
    finally:
        set_stream(prev)
        set_device(prev_device)


def compile_count():
    """Number of op plans the simulated device has "compiled" so far (one per new
    combination of op type, dtypes, formats, shapes and attributes)."""
    return _C._npu_compileCount()


def simulated_time_us(device=None):
    """Simulated device time (µs) at which all work submitted so far finishes."""
    return _C._npu_getSimTimeUs(device_index(device))


def utilization(device=None):
    """Percent of the wall time since the previous call in which the NPU executed work.

    As torch.cuda.utilization: the AI Core's busy share (the larger of its Cube
    and Vector shares). The simulator executes a kernel on the host while the
    simulated device runs it, so this is the share of time the device, not the
    Python side, was the bottleneck. `utilization_rates()` has every unit.
    """
    cube, vector, _, _ = _C._npu_getUtilizationRates(device_index(device))
    return max(cube, vector)


def utilization_rates(device=None):
    """Per-unit utilization in percent since the previous query: cube, vector, aicpu, memory."""
    cube, vector, aicpu, memory = _C._npu_getUtilizationRates(device_index(device))
    return {"cube": cube, "vector": vector, "aicpu": aicpu, "memory": memory}


__all__ = [
    "is_available", "is_initialized", "init", "device_count", "current_device", "set_device", "synchronize",
    "device", "device_of", "get_device_name", "get_device_properties", "get_device_capability", "Stream", "Event",
    "stream", "current_stream", "default_stream", "set_stream", "get_supported_ops", "is_bf16_supported",
    "set_per_process_memory_fraction", "caching_allocator_alloc", "caching_allocator_delete", "utils",
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved", "memory_stats",
    "memory_summary", "memory_snapshot", "mem_get_info", "empty_cache", "reset_peak_memory_stats",
    "reset_max_memory_allocated", "reset_accumulated_memory_stats", "amp", "default_generators", "manual_seed",
    "manual_seed_all", "seed", "seed_all", "initial_seed", "get_rng_state", "get_rng_state_all",
    "set_rng_state_all", "set_rng_state", "simulated_time_us", "utilization", "utilization_rates",
    "list_gpu_processes", "compile_count", "set_option", "get_option", "set_compile_mode", "is_jit_compile_false",
    "get_npu_overflow_flag", "clear_npu_overflow_flag", "op_records", "get_op_records", "clear_op_records",
    "set_op_profiling", "OpRecord", "profile", "config", "FloatTensor", "HalfTensor", "DoubleTensor", "IntTensor",
    "LongTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "npu_device", "init_dump", "set_dump",
    "finalize_dump", "inject_fault", "clear_faults", "injected_faults", "set_op_execute_timeout", "hung_tasks",
    "NPUGraph", "graph", "graph_pool_handle", "is_current_stream_capturing", "make_graphed_callables",
]

from torch_npu.npu import utils  # noqa: E402  (needs the functions above)
from torch_npu.npu import autograd_profiler  # noqa: E402, F401  (torch_npu/__init__.py calls its install())
from torch_npu.npu.e2e_profile import profile  # noqa: E402  (torch.npu.profile, the porting guide's E2E)
from torch_npu.npu.dump import finalize_dump, init_dump, set_dump  # noqa: E402
from torch_npu.npu.graphs import (NPUGraph, graph, graph_pool_handle, is_current_stream_capturing,  # noqa: E402
                                  make_graphed_callables)
from torch_npu.npu.faults import (clear_faults, hung_tasks, inject_fault, injected_faults,  # noqa: E402
                                  set_op_execute_timeout)
