"""A self-contained HTML report of an NPU profile: timeline, top ops, unit shares, what to remove first.

    prof.export_html_report("report.html")                  # torch.autograd.profiler.profile(use_npu=True)
    python3 -m torch_npu.tools.profile_report trace.json     # any trace torch_npu's profilers wrote

The report reads the chrome trace that torch_npu's profilers write (host op rows, one row per NPU stream,
launch flows; docs/profiling.md) and needs no network: styles and the timeline (SVG) are inline.

Note [Host launch gaps]
The simulator's stream clock advances by the simulated durations of its tasks only, so the device rows
never wait for the host. A real device does: a task cannot start before the host launched it. The
report replays each stream against the host's launch times (start = max(end of the previous task,
launch)); where the host's launch comes later than the device would be ready, the difference is a
host launch gap: time a real device would idle because the host (Python, dispatch, the framework) did
not launch fast enough. Their sum over a step is what fusing ops, the task queue or graph mode win back.
"""
import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Optional

from torch_npu.npu._intervals import index_by_thread, innermost
from torch_npu.profiler.memory_report import _esc, load_snapshot, render_memory_section

UNITS = ("Cube", "Vector", "MTE", "AI CPU")
_LAUNCH_EVENT = "NPU launch"  # a launch's own host event (csrc/core/TaskQueue.cpp); its parent launched the task
_UNIT_CLASS = {"Cube": "cube", "Vector": "vector", "MTE": "mte", "AI CPU": "aicpu"}


@dataclass
class DeviceTask:
    op_type: str
    stream: int
    ts: float          # trace time [us]
    dur: float         # simulated duration [us]
    args: dict
    launch_ts: Optional[float] = None
    host_op: str = ""
    row: str = ""      # the trace's name of its stream row ("stream 2 (communication)")

    @property
    def unit(self):
        """The unit that bounds the task: AI CPU tasks run there; AI Core tasks by their busiest pipe."""
        kind = self.args.get("unit", "")
        if kind == "ai_cpu":
            return "AI CPU"
        if kind == "dma":
            return "MTE"
        ratios = {"Cube": self.args.get("cube ratio", 0.0), "Vector": self.args.get("vector ratio", 0.0),
                  "MTE": self.args.get("mte ratio", 0.0)}
        return max(ratios, key=lambda unit: (ratios[unit], unit == "Vector"))

    @property
    def flagged(self):
        """TransData and AI CPU tasks: the porting guide's first things to remove (a runtime task of no
        device time, such as a host Callback, is not one)."""
        return self.op_type == "TransData" or (self.unit == "AI CPU" and self.dur > 0)


@dataclass
class HostOp:
    name: str
    tid: object
    ts: float
    dur: float


def load_trace(trace):
    """The trace as a dict: a path to a JSON file, or the dict itself."""
    if isinstance(trace, dict):
        return trace
    with open(trace) as f:
        return json.load(f)


def parse_trace(trace):
    """(device tasks, host ops) of a chrome trace written by torch_npu's profilers."""
    events = load_trace(trace).get("traceEvents", [])
    host_ops, tasks, launches, task_at, row_names = [], [], {}, {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name" and str(e.get("pid", "")).startswith("NPU"):
            row_names[e["tid"]] = e.get("args", {}).get("name", "")
        if e.get("ph") == "X" and e.get("cat") == "npu_op":
            task = DeviceTask(e["name"], e["tid"], float(e["ts"]), float(e["dur"]), e.get("args", {}))
            tasks.append(task)
            task_at[(e["tid"], e["ts"])] = task
        elif e.get("ph") == "X" and e.get("cat") == "cpu_op" and e["name"] != _LAUNCH_EVENT:
            host_ops.append(HostOp(e["name"], e["tid"], float(e["ts"]), float(e.get("dur", 0))))
        elif e.get("ph") == "s" and e.get("cat") == "npu_launch":
            launches[e["id"]] = (e["tid"], float(e["ts"]))
    for task in tasks:
        task.row = row_names.get(task.stream) or f"stream {task.stream}"
    index = index_by_thread((op.tid, op.ts, op.ts + op.dur, op) for op in host_ops)
    for e in events:  # flow ends: the device task each launch belongs to
        if e.get("ph") == "f" and e.get("cat") == "npu_launch" and e["id"] in launches:
            task = task_at.get((e["tid"], e["ts"]))
            if task is not None:
                tid, task.launch_ts = launches[e["id"]]
                host = innermost(index, tid, task.launch_ts)
                task.host_op = task.args.get("host op") or (host.name if host else "")
    return tasks, host_ops


def unit_shares(tasks):
    """{unit: device time [us] of the tasks it bounds}, in UNITS order."""
    shares = dict.fromkeys(UNITS, 0.0)
    for t in tasks:
        shares[t.unit] += t.dur
    return shares


def top_ops(tasks, limit=15):
    """Rows per op type by total device time: type, count, total, avg, share, unit, flagged."""
    groups = defaultdict(list)
    for t in tasks:
        groups[t.op_type].append(t)
    grand = sum(t.dur for t in tasks) or 1.0
    rows = []
    for op_type, group in groups.items():
        total = sum(t.dur for t in group)
        units = sorted({t.unit for t in group})
        rows.append({"op": op_type, "count": len(group), "total": total, "avg": total / len(group),
                     "share": 100.0 * total / grand, "unit": "/".join(units),
                     "flagged": any(t.flagged for t in group)})
    rows.sort(key=lambda r: -r["total"])
    return rows[:limit]


def removal_candidates(tasks):
    """TransData and AI CPU tasks grouped by (op type, host op): what to remove first."""
    groups = defaultdict(list)
    for t in tasks:
        if t.flagged:
            groups[(t.op_type, t.unit, t.host_op or "(unknown)")].append(t.dur)
    grand = sum(t.dur for t in tasks) or 1.0
    rows = [{"op": op, "unit": unit, "host_op": host, "count": len(d), "total": sum(d),
             "share": 100.0 * sum(d) / grand} for (op, unit, host), d in groups.items()]
    return sorted(rows, key=lambda r: -r["total"])


def launch_gaps(tasks):
    """Host launch gaps (Note [Host launch gaps]): a list of dicts, largest first."""
    gaps = []
    by_stream = defaultdict(list)
    for t in tasks:
        if t.launch_ts is not None:
            by_stream[t.stream].append(t)
    for stream, stream_tasks in by_stream.items():
        stream_tasks.sort(key=lambda t: (t.launch_ts, t.ts))
        ready, previous = None, None
        for t in stream_tasks:
            start = t.launch_ts if ready is None else max(ready, t.launch_ts)
            if ready is not None and start > ready:
                gaps.append({"stream": stream, "at": ready, "gap": start - ready, "before": previous.op_type,
                             "after": t.op_type, "host_op": t.host_op or "(unknown)"})
            ready, previous = start + t.dur, t
    return sorted(gaps, key=lambda g: -g["gap"])


def _fmt_us(us):
    return f"{us / 1e3:.3f} ms" if us >= 1e3 else f"{us:.1f} us"


def _top_level(host_ops):
    """Host ops not nested in another op of their thread (the timeline's host rows)."""
    out, end_by_tid = [], {}
    for op in sorted(host_ops, key=lambda o: (o.ts, -o.dur)):
        if op.ts >= end_by_tid.get(op.tid, float("-inf")):
            out.append(op)
            end_by_tid[op.tid] = op.ts + op.dur
    return out


def _timeline_svg(svg_id, tasks, host_ops, width=1100, label_width=190, row_height=22):
    host_rows = _top_level(host_ops)
    spans = [(t.ts, t.ts + t.dur) for t in tasks] + [(o.ts, o.ts + o.dur) for o in host_rows]
    t0 = min((s for s, _ in spans), default=0.0)
    t1 = max((e for _, e in spans), default=1.0)
    scale = width / max(t1 - t0, 1e-9)
    rows = [("host", tid) for tid in sorted({o.tid for o in host_rows}, key=str)]
    rows += [("stream", s) for s in sorted({t.stream for t in tasks})]
    height = 30 + row_height * len(rows)
    parts = [f'<svg id="{svg_id}" class="timeline" xmlns="http://www.w3.org/2000/svg" '
             f'width="{label_width + width + 60}" height="{height}" '
             f'data-start-us="{t0:.3f}" data-end-us="{t1:.3f}">']
    for i in range(6):  # time axis
        x = label_width + width * i / 5
        parts.append(f'<line class="tick" x1="{x:.1f}" y1="14" x2="{x:.1f}" y2="{height}"/>'
                     f'<text class="axis" x="{x:.1f}" y="10">{_esc(_fmt_us((t1 - t0) * i / 5))}</text>')
    y_of = {}
    stream_label = {t.stream: f"NPU {t.row}" for t in tasks}
    for i, (kind, key) in enumerate(rows):
        y = 20 + i * row_height
        y_of[(kind, key)] = y
        label = f"host thread {key}" if kind == "host" else stream_label[key]
        parts.append(f'<text class="row-label" x="4" y="{y + 14}">{_esc(label)}</text>')

    def rect(css, x0, dur, y, tip, extra=""):
        x = label_width + (x0 - t0) * scale
        w = max(dur * scale, 0.6)
        return (f'<rect class="{css}" x="{x:.2f}" y="{y + 2}" width="{w:.2f}" height="{row_height - 4}"{extra}>'
                f'<title>{_esc(tip)}</title></rect>')

    for o in host_rows:
        parts.append(rect("host-op", o.ts, o.dur, y_of[("host", o.tid)], f"{o.name}: {_fmt_us(o.dur)}"))
    for t in tasks:
        css = f"task unit-{_UNIT_CLASS[t.unit]}" + (" flagged" if t.flagged else "")
        css += " transdata" if t.op_type == "TransData" else ""
        tip = f"{t.op_type} ({t.unit}) {_fmt_us(t.dur)} {t.args.get('shapes and formats', '')}"
        parts.append(rect(css, t.ts, t.dur, y_of[("stream", t.stream)], tip, f' data-op="{_esc(t.op_type)}"'))
    parts.append("</svg>")
    return "\n".join(parts)


_STYLE = """
body { font-family: sans-serif; margin: 20px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th { background: #eee; } td.name { text-align: left; }
tr.flagged td { background: #fde0dc; font-weight: bold; }
.summary span { display: inline-block; margin-right: 24px; }
.note { color: #555; font-size: 12px; max-width: 1000px; }
.timeline .tick { stroke: #ddd; } .timeline .axis, .timeline .row-label { font-size: 11px; fill: #444; }
rect.host-op { fill: #9e9e9e; }
rect.unit-cube, .cube { fill: #1f77b4; background: #1f77b4; }
rect.unit-vector, .vector { fill: #2ca02c; background: #2ca02c; }
rect.unit-mte, .mte { fill: #ff7f0e; background: #ff7f0e; }
rect.unit-aicpu, .aicpu { fill: #d62728; background: #d62728; }
rect.transdata { fill: #9467bd; }
rect.flagged { stroke: #d62728; stroke-width: 1.5; }
.swatch { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: middle; }
#unit-bar { display: flex; width: 1000px; height: 22px; border: 1px solid #999; }
#unit-bar div { height: 100%; }
"""


def _table(table_id, columns, rows, flagged=lambda row: False):
    head = "".join(f"<th>{_esc(c)}</th>" for c, _ in columns)
    body = []
    for row in rows:
        cells = "".join(f'<td class="name">{_esc(fmt(row))}</td>' if i == 0 else f"<td>{_esc(fmt(row))}</td>"
                        for i, (_, fmt) in enumerate(columns))
        body.append(f'<tr class="flagged">{cells}</tr>' if flagged(row) else f"<tr>{cells}</tr>")
    if not rows:
        body.append(f'<tr><td class="name" colspan="{len(columns)}">none</td></tr>')
    return f'<table id="{table_id}"><tr>{head}</tr>{"".join(body)}</table>'


def render_html(tasks, host_ops, title="NPU profile", memory_html=""):
    """The report's HTML text (see the module doc); memory_html: memory_report's section."""
    total = sum(t.dur for t in tasks)
    shares = unit_shares(tasks)
    gaps = launch_gaps(tasks)
    candidates = removal_candidates(tasks)
    bar = "".join(f'<div class="{_UNIT_CLASS[u]}" style="width:{100.0 * us / (total or 1):.3f}%" '
                  f'title="{_esc(u)}"></div>' for u, us in shares.items() if us > 0)
    legend = "".join(f'<span class="swatch {_UNIT_CLASS[u]}"></span>{_esc(u)}' for u in UNITS)
    share_rows = [{"unit": u, "us": us, "share": 100.0 * us / (total or 1)} for u, us in shares.items()]
    sections = [
        f"<h1>{_esc(title)}</h1>",
        '<div class="summary">'
        f"<span>device tasks: <b id=\"task-count\">{len(tasks)}</b></span>"
        f"<span>simulated device time: <b>{_esc(_fmt_us(total))}</b></span>"
        f"<span>TransData + AI CPU: <b>{_esc(_fmt_us(sum(r['total'] for r in candidates)))}</b></span>"
        f"<span>host launch gaps: <b>{_esc(_fmt_us(sum(g['gap'] for g in gaps)))}</b></span></div>",
        "<h2>Timeline</h2>",
        f'<div class="legend">{legend}<span class="swatch" style="background:#9467bd"></span>TransData'
        '<span class="swatch" style="background:#9e9e9e"></span>host op</div>',
        _timeline_svg("timeline", tasks, host_ops),
        '<p class="note">Host rows in wall-clock time; device rows in simulated time, the first task at its '
        "launch. Hover a task for its op type, unit, duration, shapes and formats. Red outline: TransData "
        "and AI CPU tasks. The device alone, at its own scale:</p>",
        _timeline_svg("device-timeline", tasks, []),
        "<h2>Unit shares</h2>", f'<div id="unit-bar">{bar}</div>',
        _table("unit-shares", [("unit", lambda r: r["unit"]), ("device time", lambda r: _fmt_us(r["us"])),
                               ("share %", lambda r: f"{r['share']:.1f}")], share_rows),
        '<p class="note">A task counts for the unit that bounds it: AI CPU tasks for the AI CPU, AI Core '
        "tasks for their busiest pipe (Cube, Vector or MTE).</p>",
        "<h2>Top ops by device time</h2>",
        _table("top-ops", [("op type", lambda r: r["op"]), ("count", lambda r: r["count"]),
                           ("total", lambda r: _fmt_us(r["total"])), ("avg", lambda r: _fmt_us(r["avg"])),
                           ("share %", lambda r: f"{r['share']:.1f}"), ("unit", lambda r: r["unit"])],
               top_ops(tasks), flagged=lambda r: r["flagged"]),
        "<h2>TransData and AI CPU ops (remove these first)</h2>",
        _table("remove-first", [("op type", lambda r: r["op"]), ("unit", lambda r: r["unit"]),
                                ("launched by", lambda r: r["host_op"]), ("count", lambda r: r["count"]),
                                ("total", lambda r: _fmt_us(r["total"])),
                                ("share %", lambda r: f"{r['share']:.1f}")], candidates, flagged=lambda r: True),
        "<h2>Host launch gaps</h2>",
        '<p class="note">Where a real device would wait for the host: each stream replayed against the host '
        "launch times (start = max(previous end, launch)). The largest 20.</p>",
        _table("launch-gaps", [("gap", lambda r: _fmt_us(r["gap"])), ("stream", lambda r: r["stream"]),
                               ("after task", lambda r: r["before"]), ("next task", lambda r: r["after"]),
                               ("next launched by", lambda r: r["host_op"])], gaps[:20]),
        memory_html,
    ]
    if not tasks and memory_html:  # a memory snapshot alone
        sections = [sections[0], memory_html]
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{_esc(title)}</title><style>{_STYLE}</style></head><body>\n"
            + "\n".join(sections) + "\n</body></html>\n")


def write_html_report(trace, path, title="NPU profile", memory=None, memory_window=(None, None), device=None):
    """Writes the HTML report of `trace` (a path to a chrome trace, or its dict; None: memory only) to
    `path`, with a memory section from `memory` (a snapshot or its pickle's path; memory_report.py)
    or else from the trace's memory counters, over memory_window (since, until: host microseconds) and of
    `device` (None: the first with a trace); returns path."""
    trace = load_trace(trace) if trace is not None else {}
    tasks, host_ops = parse_trace(trace)
    memory_html = render_memory_section(load_snapshot(memory) if memory is not None else None,
                                        trace.get("traceEvents", []), device, *memory_window)
    with open(path, "w") as f:
        f.write(render_html(tasks, host_ops, title, memory_html))
    return path


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(prog="python3 -m torch_npu.tools.profile_report",
                                     description="Self-contained HTML report of a torch_npu profiler trace "
                                                 "and/or a memory snapshot.")
    parser.add_argument("trace", nargs="?", help="chrome trace JSON written by torch_npu's profilers")
    parser.add_argument("--memory", help="memory snapshot pickle (torch.npu.memory._dump_snapshot)")
    parser.add_argument("-o", "--output", help="HTML file to write (default: the trace's or snapshot's name "
                                               "with .html)")
    parser.add_argument("--title", default=None)
    args = parser.parse_args(argv)
    if args.trace is None and args.memory is None:
        parser.error("give a trace, a --memory snapshot, or both")
    source = args.trace or args.memory
    base = next((source[:-len(ext)] for ext in (".json", ".pickle") if source.endswith(ext)), source)
    output = args.output or base + ".html"
    kind = "NPU profile" if args.trace else "NPU memory"
    write_html_report(args.trace, output, args.title or f"{kind}: {source}", memory=args.memory)
    print(output)
    return 0
