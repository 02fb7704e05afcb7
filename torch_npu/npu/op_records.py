"""Per-op records of the simulated device: what ran, where, and how long in simulated time.

    with torch.npu.op_records() as rec:
        loss = model(x).sum(); loss.backward()
    print(rec.table(top=10))          # ops by total simulated time
    rec.records[0].op_type, .duration_us, .core_type, .cube_ratio, .bytes, .flops, ...

Each record is one device task (an op, a copy, an event): op type, input and
output shapes/dtypes/formats, stream, core type (cube/vector/dma), simulated
start and duration (µs), the share of the time bound by the Cube, Vector and
MTE units, HBM bytes, FLOPs and the number of simulated cores used.
Operators run on the host by the opt-in CPU fallback (TORCH_NPU_CPU_FALLBACK=1)
appear too, as records of core type "host_fallback" (op type "aten::<name>",
no device time; their copies are device tasks of their own).
"""
import collections
from dataclasses import dataclass

from torch_npu import _C
from torch_npu._device_name import device_index


@dataclass(frozen=True)
class OpRecord:
    op_type: str
    shapes: str
    stream_id: int
    core_type: str
    start_us: float
    duration_us: float
    cube_ratio: float
    vector_ratio: float
    mte_ratio: float
    bytes: float
    flops: float
    block_dim: int
    host_thread_id: int = 0      # the launching host thread (profiler numbering; 0: unknown)
    host_launch_us: float = 0.0  # host wall clock at the launch [us since the Unix epoch]
    host_launch_id: int = 0      # the launch's id (its profiler event's sequence number; 0: none)


def set_op_profiling(enabled, device=None):
    """Turns recording on or off for a device (ASCEND_SIM_PROFILE=1 turns it on for all)."""
    _C._npu_setOpProfiling(device_index(device), bool(enabled))


def get_op_records(device=None):
    """All records of the device so far (waits for the device first), host fallbacks included."""
    index = device_index(device)
    records = [OpRecord(*r) for r in _C._npu_opRecords(index)]
    host = [OpRecord(op, shapes, -1, "host_fallback", start_us, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0)
            for op, shapes, start_us in _C._npu_hostFallbackRecords(index)]
    return sorted(records + host, key=lambda r: r.start_us) if host else records


def clear_op_records(device=None):
    _C._npu_clearOpRecords(device_index(device))
    _C._npu_clearHostFallbackRecords(device_index(device))


def summarize(records, top=None):
    """[(op_type, count, total_us, share)] sorted by total simulated time."""
    totals = collections.OrderedDict()
    for r in records:
        count, total = totals.get(r.op_type, (0, 0.0))
        totals[r.op_type] = (count + 1, total + r.duration_us)
    grand = sum(t for _, t in totals.values()) or 1.0
    rows = sorted(((op, c, t, t / grand) for op, (c, t) in totals.items()), key=lambda row: -row[2])
    return rows[:top] if top else rows


def format_table(records, top=10):
    rows = summarize(records, top)
    lines = [f"{'op type':<24}{'calls':>7}{'sim time (us)':>15}{'share':>8}"]
    lines += [f"{op:<24}{count:>7}{total:>15.1f}{share:>8.1%}" for op, count, total, share in rows]
    return "\n".join(lines)


class op_records:
    """Context manager that records the device's tasks while it is active."""

    def __init__(self, device=None):
        self.device = device_index(device)
        self.records = []

    def __enter__(self):
        clear_op_records(self.device)
        set_op_profiling(True, self.device)
        return self

    def __exit__(self, *exc):
        self.records = get_op_records(self.device)
        set_op_profiling(False, self.device)
        return False

    def summary(self, top=None):
        return summarize(self.records, top)

    def table(self, top=10):
        return format_table(self.records, top)
