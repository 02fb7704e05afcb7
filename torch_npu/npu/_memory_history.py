"""Memory history of the NPU caching allocator (torch.npu.memory._record_memory_history, _snapshot,
_dump_snapshot); the allocator side is Note [Memory history] in csrc/core/AllocatorHistory.h.

    torch.npu.memory._record_memory_history(True)       # every allocation keeps its Python stack
    ...                                                  # run a few steps
    torch.npu.memory._dump_snapshot("snapshot.pickle")
    python3 /usr/lib/python3/dist-packages/torch/cuda/_memory_viz.py stats snapshot.pickle
    python3 -m torch_npu.tools.profile_report --memory snapshot.pickle   # HTML memory timeline

Note [Snapshot format]
Debian's torch 1.13 reads a snapshot as torch 1.13's CUDA allocator writes it: a list of segments
(device, address, total_size, allocated_size, active_size, stream, segment_type, blocks), each block
with its size, state and, while history is recorded, its history of allocations
({addr, real_size, frames: [{filename, line, name}]}, newest first). torch 2 added a trace of every
allocation and free beside the segments ("device_traces", one list per device). An NPU snapshot is
both: a collections.UserList (not a subclass) of the segments — so 1.13's _memory_viz (stats, segments, memory,
compare) iterates it as its list — whose attribute device_traces holds the traces. It pickles as
standard-library types only, so a dumped snapshot opens anywhere, torch_npu installed or not.
"""
import atexit
import collections
import pickle
import sys

from torch_npu import _C

_DEFAULT_MAX_ENTRIES = 100_000  # trace entries kept per device when none is asked for


def _parse_level(name, value, allowed):
    if value is None or value is False:
        return None
    if value is True:
        return "all"
    if value not in allowed:
        raise ValueError(f"_record_memory_history: {name} must be one of {allowed}, None or a bool, got {value!r}")
    return value


def _record_memory_history(enabled="all", context="all", stacks="all", max_entries=None, device=None, *,
                           record_context=None, trace_alloc_max_entries=None, trace_alloc_record_context=None,
                           record_context_cpp=None):
    """Starts (or with enabled=None/False stops) recording the allocator's history on `device` (all
    devices when None).

    torch 1.13 spells it _record_memory_history(True); torch 2.0 adds record_context and
    trace_alloc_max_entries; torch 2.1 (and torch_npu) enabled="all"|"state", context, stacks and
    max_entries. All are accepted: "state" (or max_entries=0) keeps only each block's allocation
    history, "all" also a trace of every allocation, free and segment of up to max_entries events
    (default 100 000); context=None (or record_context=False) records no stacks. The stacks are
    Python's (stacks="python" is the same as "all"; there is no C++ stack on the simulator).
    """
    del trace_alloc_record_context, record_context_cpp  # every trace entry carries the stack when stacks are on
    if isinstance(enabled, bool):  # torch 1.13's (enabled, device) and torch 2.0's (enabled, record_context, entries)
        if isinstance(context, bool):
            record_context, context = context, "all"
        elif context not in (None, "state", "alloc", "all"):
            device, context = context, "all"
        if isinstance(stacks, int) and not isinstance(stacks, bool):
            trace_alloc_max_entries, stacks = stacks, "all"
    level = _parse_level("enabled", enabled, ("state", "all"))
    context = _parse_level("context", context, ("state", "alloc", "all"))
    if record_context is False:
        context = None
    if stacks not in ("python", "all"):
        raise ValueError(f"_record_memory_history: stacks must be 'python' or 'all', got {stacks!r}")
    if max_entries is None:
        max_entries = trace_alloc_max_entries if trace_alloc_max_entries is not None else _DEFAULT_MAX_ENTRIES
    if level == "state":
        max_entries = 0
    max_entries = min(int(max_entries), sys.maxsize)
    from torch_npu._device_name import device_index
    if isinstance(device, str) and device.split(":")[0] == "cuda":  # a CUDA script under transfer_to_npu
        device = "npu" + device[4:]
    devices = range(_C._npu_getDeviceCount()) if device is None else [device_index(device)]
    if level is not None and not _recording_started:
        _recording_started.append(True)
        atexit.register(_stop_recording_at_exit)
    for d in devices:
        _C._npu_recordMemoryHistory(d, level is not None, context is not None, max_entries)


_recording_started = []  # whether any recording began (then the exit hook is registered)


def _stop_recording_at_exit():
    # Stacks are gathered under the GIL: tensors freed while the interpreter shuts down must not ask.
    for d in range(_C._npu_getDeviceCount()):
        _C._npu_recordMemoryHistory(d, False, False, 0)


def _snapshot(device=None):
    """Every device's segments with their blocks' histories, and each device's trace (Note [Snapshot
    format]). `device` is accepted for torch's signature; the snapshot covers all devices, as torch's."""
    del device
    snapshot = collections.UserList(_C._npu_memorySnapshot())
    snapshot.device_traces = [_C._npu_memoryTrace(d) for d in range(_C._npu_getDeviceCount())]
    return snapshot


def _dump_snapshot(filename="dump_snapshot.pickle"):
    """Pickles _snapshot() to `filename` (torch.cuda._memory_viz and profile_report --memory read it)."""
    with open(filename, "wb") as f:
        pickle.dump(_snapshot(), f)
    return filename
