"""Recording one training step's device tasks (Note [Scaling by replay])."""
import contextlib
import json
from dataclasses import asdict, dataclass, field
from typing import List

from torch_npu.utils._json_file import read_json

FORMAT = "torch_npu.scaling/1"


@dataclass(frozen=True)
class Task:
    name: str       # op type, "HcclAllReduce", "EventRecord", ...
    stream: int
    start_us: float
    duration_us: float
    shapes: str     # collectives: "count=...:FP32:SUM:<algo>:p=<ranks>"; events: "event=<id>:seq=<n>"


@dataclass
class Trace:
    soc: str                  # the chip the step was recorded on
    ranks: int                # ranks of the recording run (its collectives' p)
    tasks: List[Task] = field(default_factory=list)

    def span_us(self):
        """The recorded step's simulated time: first start to last end."""
        if not self.tasks:
            return 0.0
        return max(t.start_us + t.duration_us for t in self.tasks) - min(t.start_us for t in self.tasks)

    def save(self, path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "soc": self.soc, "ranks": self.ranks,
                       "tasks": [asdict(t) for t in self.tasks]}, f)


def load(path) -> Trace:
    data = read_json(path, "scaling trace")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a scaling trace (expected format {FORMAT!r}; record one with "
                         "torch_npu.tools.scaling.record)")
    try:
        return Trace(str(data["soc"]), int(data["ranks"]), [Task(**t) for t in data["tasks"]])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: a malformed scaling trace ({type(e).__name__}: {e})") from None


@contextlib.contextmanager
def record(path=None, device=None):
    """Records the device tasks of the enclosed code (one training step) into `path` (JSON).

    The device is synchronized before and after, so the trace holds exactly the step. Yields the
    Trace, which is complete (and saved) when the block ends."""
    import torch
    import torch.distributed as dist
    import torch_npu  # noqa: F401  (torch.npu)

    torch.npu.synchronize(device)
    ranks = dist.get_world_size() if dist.is_available() and dist.is_initialized() else 1
    trace = Trace(torch.npu.get_device_name(device), ranks)
    with torch.npu.op_records(device) as rec:
        yield trace
        torch.npu.synchronize(device)
    trace.tasks = [Task(r.op_type, r.stream_id, r.start_us, r.duration_us, r.shapes)
                   for r in rec.records if r.core_type != "host_fallback"]
    if not trace.tasks:
        raise RuntimeError("scaling.record: the block ran nothing on the NPU")
    if path is not None:
        trace.save(path)
