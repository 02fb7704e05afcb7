"""Caching-allocator statistics and control (mirrors torch.cuda.memory)."""
import os

from torch_npu import _C
from torch_npu._device_name import device_index


def memory_stats(device=None):
    """Allocator counters: "<stat>.<all|small_pool|large_pool>.<current|peak|allocated|freed>"."""
    return dict(sorted(_C._npu_memoryStats(device_index(device)).items()))


def memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes.all.current"]


def max_memory_allocated(device=None):
    return memory_stats(device)["allocated_bytes.all.peak"]


def memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes.all.current"]


def max_memory_reserved(device=None):
    return memory_stats(device)["reserved_bytes.all.peak"]


def reset_peak_memory_stats(device=None):
    _C._npu_resetPeakMemoryStats(device_index(device))


def reset_max_memory_allocated(device=None):
    reset_peak_memory_stats(device)


def reset_accumulated_memory_stats(device=None):
    _C._npu_resetAccumulatedMemoryStats(device_index(device))


def set_per_process_memory_fraction(fraction, device=None):
    """Caps what the caching allocator may reserve on `device` at `fraction` of
    its capacity (0..1): beyond it an allocation fails with the out-of-memory
    error, which names the cap (as torch.cuda.set_per_process_memory_fraction)."""
    if not isinstance(fraction, float):
        raise TypeError(f"Invalid type for fraction argument, must be `float`, got {type(fraction).__name__}")
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    _C._npu_setMemoryFraction(fraction, device_index(device))


def caching_allocator_alloc(size, device=None, stream=None):
    """`size` bytes from the caching allocator outside any tensor; returns the
    device address (an int) for caching_allocator_delete. `stream` (a
    torch.npu.Stream, a stream id or None for the current stream) is the
    stream the memory is used on."""
    from torch_npu.npu.streams import Stream
    if isinstance(stream, Stream):
        stream = stream.stream_id
    elif stream is None:
        stream = -1
    elif not isinstance(stream, int):
        raise TypeError("Invalid type for stream argument, must be `torch.npu.Stream` or an `int` stream id, "
                        f"got {type(stream).__name__}")
    return _C._npu_cachingAllocatorAlloc(int(size), device_index(device), stream)


def caching_allocator_delete(mem_ptr):
    """Returns memory from caching_allocator_alloc to the cache."""
    _C._npu_cachingAllocatorDelete(int(mem_ptr))


def empty_cache():
    """Returns every unused cached block to the (simulated) device."""
    _C._npu_emptyCache()


def mem_get_info(device=None):
    """(free, total) bytes of the device's HBM as the simulator reports them."""
    return tuple(_C._npu_memGetInfo(device_index(device)))


def list_gpu_processes(device=None):
    """As torch.cuda.list_gpu_processes: the processes holding memory of the device.

    A simulated NPU lives inside the process that opened it, so the only one
    listed is this process, with the memory its caching allocator reserves.
    """
    index = device_index(device)
    lines = [f"NPU:{index}"]
    reserved = memory_reserved(index)
    if reserved == 0:
        lines.append("no processes are running")
    else:
        lines.append(f"process {os.getpid():>10d} uses {reserved / (1024 * 1024):>12.3f} MB NPU memory")
    return "\n".join(lines)


def memory_snapshot():
    return _C._npu_memorySnapshot()


def _format_size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024.0


def memory_summary(device=None, abbreviated=False):
    """A human readable table of the allocator's statistics."""
    stats = memory_stats(device)
    index = device_index(device)
    rows = [
        ("Allocated memory", "allocated_bytes", _format_size),
        ("Active memory", "active_bytes", _format_size),
        ("Reserved memory", "reserved_bytes", _format_size),
        ("Non-releasable memory", "inactive_split_bytes", _format_size),
        ("Allocations", "allocation", str),
        ("Active allocs", "active", str),
        ("Reserved segments", "segment", str),
    ]
    pools = ("all",) if abbreviated else ("all", "large_pool", "small_pool")
    width = 75
    lines = ["=" * width,
             f"  NPU caching allocator summary, device npu:{index}".ljust(width),
             "-" * width,
             f"  {'Metric':<28}{'Cur Usage':>11}{'Peak Usage':>12}{'Tot Alloc':>12}{'Tot Freed':>12}",
             "-" * width]
    for title, key, fmt in rows:
        for pool in pools:
            label = title if pool == "all" else f"    from {pool.replace('_', ' ')}"
            values = [fmt(stats[f"{key}.{pool}.{field}"]) for field in ("current", "peak", "allocated", "freed")]
            lines.append(f"  {label:<28}{values[0]:>11}{values[1]:>12}{values[2]:>12}{values[3]:>12}")
        lines.append("-" * width)
    lines.append(f"  NPU OOMs: {stats['num_ooms']:<10} NPU alloc retries: {stats['num_alloc_retries']}")
    lines.append("=" * width)
    return "\n".join(lines) + "\n"


from torch_npu.npu._memory_history import _dump_snapshot, _record_memory_history, _snapshot  # noqa: E402,F401
