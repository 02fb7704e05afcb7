"""torch.autograd.profiler.profile(use_npu=True): PyTorch's CPU profiler plus the simulated NPU's time.

    with torch.autograd.profiler.profile(use_npu=True) as prof:
        loss = model(x); loss.backward()
    print(prof.key_averages().table(sort_by="npu_time_total"))
    prof.export_chrome_trace("trace.json")

Note [NPU time in the autograd profiler]
The CPU side is torch's own profiler (Kineto, CPU activities). The device side is the simulator's task
records of the current device while the profiler is on (torch.npu.op_records). Every record carries the
host thread and wall-clock time of its launch (Note [Host tags] in the simulator), both in the numbering
and clock that Kineto uses, so a record belongs to the innermost host op of that thread whose interval
contains its launch: its simulated duration is appended to that event as a kernel, which is what the
CUDA columns of torch's tables sum. The tables then say NPU where torch says CUDA, and accept npu_* sort
keys. A record launched outside any host op (rare: a queue-level event) gets an event of its own, so
the NPU total of a table always equals the sum of the records. The chrome trace has host rows (one per
thread) and one device row per NPU stream in simulated time, with a flow arrow from each launch to its
task.
"""
import json
import math

import torch
from torch.autograd import profiler as _torch_profiler
from torch.autograd.profiler_util import EventList, FunctionEvent, FunctionEventAvg

from torch_npu import _C
from torch_npu._patches.registry import replace
from torch_npu.npu._intervals import index_by_thread, innermost
from torch_npu.npu.op_records import op_records as _OpRecorder

_TorchProfile = _torch_profiler.profile
_NPU_KEYS = {"npu_time": "cuda_time", "npu_time_total": "cuda_time_total",
             "self_npu_time_total": "self_cuda_time_total", "npu_memory_usage": "cuda_memory_usage",
             "self_npu_memory_usage": "self_cuda_memory_usage"}


def _alias_npu_properties():
    """FunctionEvent / FunctionEventAvg answer npu_time_total & co. (torch_npu's names for the columns)."""
    for cls in (FunctionEvent, FunctionEventAvg):
        for npu_name, cuda_name in _NPU_KEYS.items():
            if not hasattr(cls, npu_name):
                replace(f"torch.autograd.profiler_util.{cls.__name__}.{npu_name}",
                        property(lambda self, name=cuda_name: getattr(self, name)),
                        family="torch.autograd.profiler_util.<FunctionEvent, FunctionEventAvg>.<npu_* column>")


class NpuEventList(EventList):
    """torch's EventList whose tables name the device NPU and sort by npu_* keys."""

    def table(self, sort_by=None, *args, **kwargs):
        # torch's table sums the device column over events of a device type, or over CPU events marked
        # legacy (whose kernels it then trusts as their own). The rows here are averages (key_averages,
        # or one per event), whose device times are sums already, so they are marked that way.
        rows = []
        for evt in self:
            if isinstance(evt, FunctionEvent):
                avg = FunctionEventAvg()
                avg.add(evt)
                evt = avg
            if evt.device_type == torch.autograd.DeviceType.CPU:
                evt.is_legacy = True
            rows.append(evt)
        table = EventList(rows, use_cuda=True, profile_memory=self._profile_memory, with_flops=self._with_flops)
        table._tree_built = True
        text = table.table(_NPU_KEYS.get(sort_by, sort_by), *args, **kwargs)
        return text.replace("CUDA", "NPU")

    def key_averages(self, *args, **kwargs):
        averages = super().key_averages(*args, **kwargs)
        return NpuEventList(averages, use_cuda=True, profile_memory=self._profile_memory,
                            with_flops=self._with_flops)

    def __str__(self):
        return self.table()


def _host_op_index(function_events, event_tree):
    """Host op intervals per thread, and the time unit of a launch in them. Kineto's FunctionEvents keep
    whole microseconds, too coarse for ops shorter than one (a launch in aten::add_ right after its
    aten::result_type child would land in the child); its event tree keeps nanoseconds and the same
    ids, so it is used when given."""
    host = [e for e in function_events if e.device_type == torch.autograd.DeviceType.CPU and not e.is_async]
    if event_tree is not None:
        by_id = {e.id: e for e in host}
        nodes = [(n.start_tid, n.start_time_ns, n.end_time_ns, by_id[n.correlation_id])
                 for n in _walk(event_tree) if n.correlation_id in by_id]
        if nodes:
            return index_by_thread(nodes), "ns"
    return index_by_thread((e.thread, e.time_range.start, e.time_range.end, e) for e in host), "us"


LAUNCH_EVENT = "NPU launch"  # kLaunchEventName in csrc/core/TaskQueue.h


def _launch_owners(function_events, event_tree):
    """{launch id: host event}: the op each launch event is a child of, or the launch event itself
    when it has none (Note [Launch events] in csrc/core/TaskQueue.cpp)."""
    by_id = {e.id: e for e in function_events}
    owners = {}
    for node in _walk(event_tree or ()):
        if node.name != LAUNCH_EVENT:
            continue
        launch_id = getattr(node.extra_fields, "sequence_number", -1)
        parent = by_id.get(node.parent.correlation_id) if node.parent is not None else None
        owner = parent or by_id.get(node.correlation_id)
        if launch_id is not None and launch_id > 0 and owner is not None:
            owners[launch_id] = owner
    return owners


def attach_npu_records(function_events, records, trace_start_us, device_index, owners=None, event_tree=None):
    """Appends every record's simulated duration to its host op (Note [NPU time in the autograd
    profiler]); returns the events made for records outside any host op. `owners`, if given, receives
    each record's host event, in order. `event_tree`: Kineto's experimental_event_tree(), whose launch
    events name each record's host op exactly; records without one fall back to their launch time."""
    by_launch = _launch_owners(function_events, event_tree)
    index = unit = None  # the time fallback's index, built once a record needs it
    orphans = []
    for r in records:
        t = r.host_launch_us - trace_start_us
        if r.host_launch_id in by_launch:
            host = by_launch[r.host_launch_id]
        elif not r.host_thread_id:
            host = None
        else:
            if index is None:
                index, unit = _host_op_index(function_events, event_tree)
            # In whole microseconds (start and duration truncated), an op's real interval [s, e] shows as
            # [floor(s), floor(e)], so the launch's floor falls inside exactly when it did.
            host = innermost(index, r.host_thread_id, r.host_launch_us * 1e3 if unit == "ns" else math.floor(t))
        if host is None:
            name = f"[npu task] {r.op_type}"
            host = FunctionEvent(id=-(len(orphans) + 1), name=name, trace_name=name, thread=r.host_thread_id,
                                 start_us=t, end_us=t, input_shapes=[], stack=[], device_index=device_index)
            orphans.append(host)
        host.append_kernel(r.op_type, device_index, r.duration_us)
        if owners is not None:
            owners.append(host)
    return orphans


class profile(_TorchProfile):
    """torch.autograd.profiler.profile with `use_npu` (torch_npu v1.11's keyword): see the module doc."""

    def __init__(self, enabled=True, *, use_npu=False, use_cuda=False, **kwargs):
        if use_cuda:
            raise ValueError("torch.autograd.profiler.profile: use_cuda times CUDA kernels; this process has the "
                             "NPU: pass use_npu=True")
        super().__init__(enabled=enabled, use_cuda=False, **kwargs)
        self.use_npu = bool(use_npu)
        self.npu_records = []
        self.npu_record_owners = []
        self._recorder = None

    def _start_trace(self):
        # Also the entry point of torch.profiler.profile (its start_trace), not only of __enter__.
        if self.use_npu:
            torch.npu.synchronize()
            self._recorder = _OpRecorder()
            self._recorder.__enter__()
        if self.profile_memory:
            _C._npu_setMemoryReporting(True)
        super()._start_trace()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        if self.use_npu:
            torch.npu.synchronize()
        result = super().__exit__(exc_type, exc_val, exc_tb)
        if self.profile_memory:
            _C._npu_setMemoryReporting(False)
        if self.use_npu:
            self._recorder.__exit__(exc_type, exc_val, exc_tb)
            self.npu_records = [r for r in self._recorder.records if r.core_type != "host_fallback"]
            events = list(self.function_events)
            self.npu_record_owners = []  # the host event of each record
            events += attach_npu_records(events, self.npu_records, self.kineto_results.trace_start_us(),
                                         self._recorder.device, self.npu_record_owners,
                                         self.kineto_results.experimental_event_tree())
            # The host events' tree is built already; the orphans are top-level events of their own.
            self.function_events = NpuEventList(events, use_cuda=True, profile_memory=self.profile_memory,
                                                with_flops=self.with_flops)
            self.function_events._tree_built = True
        return result

    def npu_time_total_us(self):
        """Sum of the simulated durations of the device's tasks while profiling."""
        return sum(r.duration_us for r in self.npu_records)

    @property
    def npu_device(self):
        """The device whose tasks were recorded."""
        return self._recorder.device if self._recorder else None

    def export_chrome_trace(self, path):
        """Chrome trace event format: host op rows per thread, one row per NPU stream, launch flows."""
        self._check_finish()
        if not self.use_npu:
            return super().export_chrome_trace(path)
        with open(path, "w") as f:
            json.dump(self.npu_chrome_trace(), f)
        return path

    def npu_chrome_trace(self):
        """The dict export_chrome_trace writes (use_npu=True)."""
        self._check_finish()
        trace = chrome_trace(self.function_events, self.npu_records, self.kineto_results.trace_start_us(),
                             self._recorder.device, self.npu_record_owners)
        if self.profile_memory:
            trace["traceEvents"] += memory_counters(self.kineto_results, self._recorder.device)
        return trace

    def export_html_report(self, path, title="NPU profile"):
        """A self-contained HTML report of the profile (torch_npu/profiler/html_report.py)."""
        if not self.use_npu:
            raise RuntimeError("export_html_report needs the NPU's tasks: profile with use_npu=True")
        from torch_npu.profiler.html_report import write_html_report
        # With memory history recorded (torch.npu.memory._record_memory_history), the memory section
        # shows the allocator's trace over the profile's window, and the stacks of the blocks live at its peak.
        trace = self.npu_chrome_trace()
        memory = torch.npu.memory._snapshot()
        if not any(memory.device_traces):
            return write_html_report(trace, path, title)
        start_us = self.kineto_results.trace_start_us()
        host = [e["ts"] + e.get("dur", 0) for e in trace["traceEvents"] if e.get("pid") == "CPU" and e.get("ph") == "X"]
        window = (start_us, start_us + max(host, default=0))
        return write_html_report(trace, path, title, memory=memory, memory_window=window, device=self._recorder.device)


def _walk(nodes):
    for node in nodes:
        yield node
        yield from _walk(node.children)


def memory_counters(kineto_results, device_index):
    """Counter events of the NPU caching allocator (profile_memory=True): the device's allocated and
    reserved totals after every allocation and free, from the profiler's allocation events."""
    start_us = kineto_results.trace_start_us()
    events = []
    for node in _walk(kineto_results.experimental_event_tree()):
        fields = node.extra_fields
        if type(fields).__name__ != "_ExtraFields_Allocation":
            continue
        device = torch.device(fields.device)
        if device.type == "cpu" or device.index != device_index:
            continue
        events.append({"name": f"NPU {device_index} memory", "ph": "C", "pid": f"NPU {device_index}", "tid": 0,
                       "ts": node.start_time_ns / 1e3 - start_us,
                       "args": {"Total Allocated (MB)": fields.total_allocated / 2 ** 20,
                                "Total Reserved (MB)": fields.total_reserved / 2 ** 20}})
    return events


def chrome_trace(function_events, records, trace_start_us, device_index, owners=None):
    """{"traceEvents": [...]} of host events and device records (see profile.export_chrome_trace).

    Device rows are in simulated time: the device's first task is placed at its own launch time and the
    others keep their simulated distance from it, so the rows show the device's real (simulated) pace.
    """
    events = [{"name": "process_name", "ph": "M", "pid": "CPU", "tid": 0, "ts": 0, "args": {"name": "CPU (host)"}},
              {"name": "process_name", "ph": "M", "pid": f"NPU {device_index}", "tid": 0, "ts": 0,
               "args": {"name": f"NPU {device_index} (simulated time)"}}]
    for e in function_events:
        if e.device_type != torch.autograd.DeviceType.CPU or e.id < 0:
            continue
        events.append({"name": e.trace_name or e.name, "ph": "X", "cat": "cpu_op", "pid": "CPU", "tid": e.thread,
                       "ts": e.time_range.start, "dur": max(e.time_range.elapsed_us(), 0),
                       "args": {"input shapes": str(e.input_shapes)} if e.input_shapes else {}})
    if records:
        first = min(records, key=lambda r: r.start_us)
        offset = (first.host_launch_us - trace_start_us if first.host_launch_us else 0.0) - first.start_us
        streams = sorted({r.stream_id for r in records})
        communication = {r.stream_id for r in records if r.op_type.startswith("Hccl")}
        for s in streams:
            name = f"stream {s} (communication)" if s in communication else f"stream {s}"
            events.append({"name": "thread_name", "ph": "M", "pid": f"NPU {device_index}", "tid": s, "ts": 0,
                           "args": {"name": name}})
        for i, r in enumerate(records):
            ts = r.start_us + offset
            events.append({"name": r.op_type, "ph": "X", "cat": "npu_op", "pid": f"NPU {device_index}",
                           "tid": r.stream_id, "ts": ts, "dur": r.duration_us,
                           "args": {"op type": r.op_type, "shapes and formats": r.shapes, "unit": r.core_type,
                                    "cube ratio": r.cube_ratio, "vector ratio": r.vector_ratio,
                                    "mte ratio": r.mte_ratio, "block dim": r.block_dim, "bytes": r.bytes,
                                    "flops": r.flops, "host op": owners[i].name if owners else ""}})
            if r.host_thread_id:
                launch = r.host_launch_us - trace_start_us
                events.append({"name": "launch", "ph": "s", "cat": "npu_launch", "id": i, "pid": "CPU",
                               "tid": r.host_thread_id, "ts": launch})
                events.append({"name": "launch", "ph": "f", "bp": "e", "cat": "npu_launch", "id": i,
                               "pid": f"NPU {device_index}", "tid": r.stream_id, "ts": ts})
    return {"traceEvents": events, "displayTimeUnit": "ms"}


def install():
    """Makes torch.autograd.profiler.profile (and torch.profiler's legacy alias) accept use_npu."""
    _alias_npu_properties()
    replace("torch.autograd.profiler.profile", profile)
