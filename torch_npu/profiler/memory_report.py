"""The memory section of the HTML report: allocated and reserved bytes over time, the peak, and the
largest blocks live at the peak with the Python stacks that allocated them.

Sources, best first: a memory snapshot's trace (torch.npu.memory._record_memory_history, then
_snapshot or _dump_snapshot; Note [Snapshot format]), which gives every allocation and its stack; or,
without one, the profiler's memory counters (profile_memory=True), which give the totals only.
"""
import html
import os
import pickle

import torch

import torch_npu
from torch_npu.npu.memory import _format_size as _fmt_bytes

_TOP_BLOCKS = 15
# Frames of these packages are the framework's, not the user's: a block is named by the innermost other frame.
_FRAMEWORK_PATHS = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, torch_npu)) + ("<frozen ",)


def _esc(value):
    return html.escape(str(value), quote=True)


def load_snapshot(snapshot):
    """A snapshot object, or the path of a pickled one (_dump_snapshot)."""
    if isinstance(snapshot, (str, bytes)) or hasattr(snapshot, "__fspath__"):
        with open(snapshot, "rb") as f:
            return pickle.load(f)
    return snapshot


def _parts(snapshot):
    """(segments, device traces) of an NPU snapshot (Note [Snapshot format]) or of torch 2's dict."""
    if isinstance(snapshot, dict):
        return snapshot.get("segments", []), snapshot.get("device_traces", [])
    return snapshot, list(getattr(snapshot, "device_traces", None) or [])


def device_trace(snapshot, device=None):
    """(device, trace entries) of `device`, or of the snapshot's first device with a trace."""
    traces = _parts(snapshot)[1]
    if device is not None:
        return device, (traces[device] if device < len(traces) else [])
    for index, trace in enumerate(traces):
        if trace:
            return index, trace
    return 0, []


def _in_window(t, since_us, until_us):
    return (since_us is None or t >= since_us) and (until_us is None or t <= until_us)


def points_from_trace(entries, since_us=None, until_us=None):
    """[(time us, allocated bytes, reserved bytes)] after every event of a device trace in the window, which
    starts at the totals of the last event before it."""
    points = [(e["time_us"], e["allocated"], e["reserved"]) for e in entries
              if _in_window(e["time_us"], since_us, until_us)]
    before = [e for e in entries if since_us is not None and e["time_us"] < since_us]
    if before and points:
        points.insert(0, (since_us, before[-1]["allocated"], before[-1]["reserved"]))
    return points


def points_from_counters(trace_events):
    """The same from the profiler's memory counters ("NPU d memory", MB) of a chrome trace."""
    out = []
    for e in trace_events:
        args = e.get("args", {})
        if e.get("ph") == "C" and str(e.get("name", "")).endswith(" memory") and "Total Allocated (MB)" in args:
            out.append((float(e["ts"]), args["Total Allocated (MB)"] * 2 ** 20, args["Total Reserved (MB)"] * 2 ** 20))
    return sorted(out)


def live_at_peak(entries, since_us=None, until_us=None):
    """(peak allocated bytes in the window, its time, the blocks live then: [{addr, size, stream, frames}]
    largest first — those allocated before the window included —, whether the trace lost older events).

    A trace that wrapped (max_entries) lost its oldest events: a free of a block it never saw allocated
    shows it, and blocks allocated before the loss are missing from the list."""
    peak_index, peak, peak_time = None, -1, 0
    for i, e in enumerate(entries):
        if since_us is not None and e["time_us"] < since_us:  # the level the window starts at
            peak_index, peak, peak_time = i, e["allocated"], since_us
        elif e["allocated"] > peak and _in_window(e["time_us"], since_us, until_us):
            peak_index, peak, peak_time = i, e["allocated"], e["time_us"]
    if peak_index is None:
        return 0, 0, [], False
    live, at_peak, lost = {}, {}, False
    for i, e in enumerate(entries):
        if e["action"] == "alloc":
            live[e["addr"]] = e
        elif e["action"] == "free_requested":
            lost |= live.pop(e["addr"], None) is None
        if i == peak_index:
            at_peak = dict(live)
    blocks = sorted(at_peak.values(), key=lambda e: -e["size"])
    return peak, peak_time, blocks, lost


def live_now(snapshot):
    """Blocks allocated at the snapshot, largest first (from the segments; their history has the stacks)."""
    out = []
    for seg in _parts(snapshot)[0]:
        addr = seg["address"]
        for b in seg["blocks"]:
            if b["state"] == "active_allocated":
                history = b.get("history") or [{}]
                out.append({"addr": addr, "size": b["size"], "stream": seg["stream"],
                            "frames": history[0].get("frames", [])})
            addr += b["size"]
    return sorted(out, key=lambda b: -b["size"])


def user_frame(frames):
    """The innermost frame outside the framework, as file:line:function."""
    for f in frames:
        if not f["filename"].startswith(_FRAMEWORK_PATHS):
            return f"{f['filename'].split('/')[-1]}:{f['line']}:{f['name']}"
    return f"{frames[0]['filename'].split('/')[-1]}:{frames[0]['line']}:{frames[0]['name']}" if frames else "<no stack>"


def _timeline_svg(points, peak_time, width=1100, height=220, left=80, bottom=24):
    t0, t1 = points[0][0], points[-1][0]
    top = max(max(p[2] for p in points), max(p[1] for p in points), 1)
    span = (t1 - t0) or 1

    def xy(t, value):
        return (left + (width - left - 10) * (t - t0) / span, 8 + (height - bottom - 8) * (1 - value / top))

    def steps(column):
        coords, previous = [], None
        for p in points:
            x, y = xy(p[0], p[column])
            if previous is not None:
                coords.append(f"{x:.1f},{previous:.1f}")
            coords.append(f"{x:.1f},{y:.1f}")
            previous = y
        return " ".join(coords)

    ticks = "".join(f'<text class="axis" x="{left - 6}" y="{xy(t0, top * k / 4)[1] + 4:.1f}" text-anchor="end">'
                    f'{_esc(_fmt_bytes(top * k / 4))}</text>' for k in range(5))
    peak_x = xy(peak_time, 0)[0]
    return (f'<svg id="memory-timeline" class="timeline" width="{width}" height="{height}">{ticks}'
            f'<polyline class="reserved" fill="none" stroke="#ff7f0e" stroke-width="1.5" points="{steps(2)}"/>'
            f'<polyline class="allocated" fill="none" stroke="#1f77b4" stroke-width="1.5" points="{steps(1)}"/>'
            f'<line class="peak" x1="{peak_x:.1f}" x2="{peak_x:.1f}" y1="8" y2="{height - bottom}" stroke="#d62728" '
            f'stroke-dasharray="4 3"/>'
            f'<text class="axis" x="{left}" y="{height - 6}">{_esc(f"{(t1 - t0) / 1e3:.1f} ms of host time")}</text>'
            "</svg>")


def render_memory_section(snapshot=None, trace_events=(), device=None, since_us=None, until_us=None):
    """The section's HTML ("" when there is nothing to show); [since_us, until_us]: the window of the
    timeline and its peak (a profile's), on the host clock of the trace entries."""
    entries, points, blocks, peak, peak_time, source, lost = [], [], [], 0, 0, "", False
    if snapshot is not None:
        device, entries = device_trace(snapshot, device)
        points = points_from_trace(entries, since_us, until_us)
    title = "Largest blocks live at the peak"
    if points:
        peak, peak_time, blocks, lost = live_at_peak(entries, since_us, until_us)
        source = f"the allocator's trace of NPU {device} ({len(entries)} events)"
    else:
        points = points_from_counters(trace_events)
        if points:
            peak, peak_time = max((p[1], p[0]) for p in points)
            source = "the profiler's memory counters (profile_memory=True)"
        if snapshot is not None:
            blocks = live_now(snapshot)
            title = "Largest blocks allocated at the snapshot"
    if not points and not blocks:
        return ""
    parts = ["<h2>Memory</h2>"]
    if points:
        parts += [f'<div class="summary"><span>peak allocated: <b id="memory-peak">{_esc(_fmt_bytes(peak))}</b></span>'
                  f"<span>peak reserved: <b>{_esc(_fmt_bytes(max(p[2] for p in points)))}</b></span>"
                  f"<span>from {_esc(source)}</span></div>",
                  '<div class="legend"><span class="swatch" style="background:#1f77b4"></span>allocated'
                  '<span class="swatch" style="background:#ff7f0e"></span>reserved'
                  '<span class="swatch" style="background:#d62728"></span>peak</div>',
                  _timeline_svg(points, peak_time)]
    rows = []
    for b in blocks[:_TOP_BLOCKS]:
        frames = b.get("frames", [])
        stack = "\n".join(f"{f['filename']}:{f['line']} {f['name']}" for f in frames) or "(no stack recorded)"
        rows.append(f'<tr><td>{_esc(_fmt_bytes(b["size"]))}</td><td class="name">0x{b["addr"]:x}</td>'
                    f'<td>{_esc(b["stream"])}</td><td class="name"><details><summary>{_esc(user_frame(frames))}'
                    f"</summary><pre>{_esc(stack)}</pre></details></td></tr>")
    if rows:
        parts += [f"<h3>{_esc(title)}</h3>",
                  '<table id="memory-blocks"><tr><th>size</th><th>address</th><th>stream</th><th>allocated by</th></tr>'
                  + "".join(rows) + "</table>"]
    if lost:
        parts.append('<p class="note">The trace wrapped (max_entries): blocks allocated before its oldest event are '
                     "missing from this table.</p>")
    if not any(b.get("frames") for b in blocks):
        parts.append('<p class="note">No stacks: record them with torch.npu.memory._record_memory_history() before '
                     "the run, and pass its snapshot (_dump_snapshot) to the report.</p>")
    return "\n".join(parts)
