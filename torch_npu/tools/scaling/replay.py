"""Replaying a recorded step on another cluster (Note [Scaling by replay])."""
from dataclasses import dataclass
from typing import Callable, Dict, Tuple

from torch_npu.tools.scaling import collectives
from torch_npu.tools.scaling.trace import Task, Trace


def _event_key(task):
    # "event=<handle>:seq=<n>" (Note [Event records name their event] in the simulator)
    fields = dict(f.split("=", 1) for f in task.shapes.split(":") if "=" in f)
    if "event" not in fields or "seq" not in fields:
        raise ValueError(f"{task.name} record without its event ({task.shapes!r}): record the trace "
                         "with this torch_npu")
    return fields["event"], int(fields["seq"])


def replay(trace: Trace, duration_of: Callable[[Task], float]) -> float:
    """The step's simulated time [us] when every task takes duration_of(task): each stream runs its
    tasks in order, an EventWait starts no earlier than the end of the EventRecord it waits for."""
    if not trace.tasks:
        return 0.0
    order = sorted(range(len(trace.tasks)), key=lambda i: (trace.tasks[i].start_us, i))
    queues: Dict[int, list] = {}
    for i in order:
        queues.setdefault(trace.tasks[i].stream, []).append(trace.tasks[i])
    recorded = {_event_key(t) for t in trace.tasks if t.name == "EventRecord"}
    t0 = min(t.start_us for t in trace.tasks)
    clock = {s: t0 for s in queues}
    pos = {s: 0 for s in queues}
    record_end: Dict[Tuple[str, int], float] = {}
    remaining = len(trace.tasks)
    while remaining:
        progressed = False
        for s, queue in queues.items():
            while pos[s] < len(queue):
                task = queue[pos[s]]
                start = clock[s]
                if task.name == "EventWait":
                    key = _event_key(task)
                    if key in record_end:
                        start = max(start, record_end[key])
                    elif key in recorded:
                        break  # its record has not run yet: let the other streams go on
                clock[s] = start + duration_of(task)
                if task.name == "EventRecord":
                    record_end[_event_key(task)] = clock[s]
                pos[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            raise ValueError("the trace's event dependencies form a cycle; it cannot be replayed")
    return max(clock.values()) - t0


@dataclass(frozen=True)
class Prediction:
    soc: str
    servers: int
    per_server: int
    algo: str            # "auto" (CANN's default) or the forced level-1 algorithm
    algorithms: str      # the all-reduce algorithms the step used, e.g. "mesh/H-D_R"
    step_us: float       # predicted simulated step time
    compute_us: float    # the same step with free collectives (one NPU)
    comm_us: float       # the collectives' simulated time, summed

    @property
    def npus(self):
        return self.servers * self.per_server

    @property
    def exposed_comm_share(self):
        """The share of the step spent waiting for communication (not hidden under compute)."""
        return (self.step_us - self.compute_us) / self.step_us if self.step_us else 0.0

    @property
    def efficiency(self):
        """Weak-scaling efficiency: throughput per NPU relative to one NPU."""
        return self.compute_us / self.step_us if self.step_us else 1.0


_ALGO_VALUES = {"auto": None, "ring": "level0:NA;level1:ring", "H-D_R": "level0:NA;level1:H-D_R",
                "pipeline": "level0:NA;level1:pipeline"}


def predict(trace: Trace, servers: int, per_server: int, algo: str = "auto") -> Prediction:
    """The step of `trace` on servers x per_server NPUs of the chip it was recorded on (its compute
    times are that chip's: record on Ascend910B2 to predict a 910B2 cluster)."""
    if algo not in _ALGO_VALUES:
        raise ValueError(f"algo {algo!r} is not one of {', '.join(_ALGO_VALUES)}")
    if servers < 1 or per_server < 1:
        raise ValueError(f"a cluster needs at least one server of one NPU (got {servers} x {per_server})")
    soc = trace.soc
    ranks = servers * per_server
    parsed = {id(t): collectives.parse(t.name, t.shapes) for t in trace.tasks}
    priced: Dict[Tuple[str, float], Tuple[float, str]] = {}
    used = set()
    comm = [0.0]

    def cost(c):
        key = (c.kind, c.bytes_for(ranks))
        if key not in priced:
            priced[key] = collectives.price(soc, servers, per_server, c.kind, key[1], _ALGO_VALUES[algo])
        return priced[key]

    def duration(task):
        c = parsed[id(task)]
        if c is None:
            return task.duration_us
        us, name = cost(c)
        if c.kind == "allreduce" and ranks > 1:
            used.add(name)
        comm[0] += us
        return us

    step = replay(trace, duration)
    compute = replay(trace, lambda t: 0.0 if parsed[id(t)] is not None else t.duration_us)
    return Prediction(soc, servers, per_server, algo, ",".join(sorted(used)) or "-", step, compute, comm[0])
