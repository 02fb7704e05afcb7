"""Memory history (torch.npu.memory._record_memory_history / _snapshot / _dump_snapshot): stacks per
block, the allocation trace, torch 1.13's _memory_viz reading an NPU snapshot, and the HTML report's
memory section (Note [Memory history], Note [Snapshot format])."""
import pickle
import random
import subprocess
import sys

import pytest
import torch
from torch.cuda import _memory_viz

import torch_npu  # noqa: F401
from torch_npu.profiler import html_report, memory_report

MIB = 1 << 20


@pytest.fixture
def recording():
    torch.npu.synchronize()
    torch.npu.empty_cache()
    torch.npu.memory._record_memory_history(True)
    # A new stream has blocks of its own: no block an earlier test left cached serves these tests' requests.
    with torch.npu.stream(torch.npu.Stream()):
        yield
    torch.npu.memory._record_memory_history(None)


def allocate_activations_here():
    return torch.empty(3 * MIB, device="npu")  # 12 MiB: a segment of its own


def _blocks_with_frame(snapshot, name):
    return [(seg, b) for seg in snapshot for b in seg["blocks"]
            if any(f["name"] == name for h in b.get("history", []) for f in h["frames"])]


def test_a_live_block_names_the_python_function_that_allocated_it(recording):
    x = allocate_activations_here()
    snapshot = torch.npu.memory._snapshot()
    found = _blocks_with_frame(snapshot, "allocate_activations_here")
    assert len(found) == 1
    seg, block = found[0]
    assert block["state"] == "active_allocated" and block["size"] == 12 * MIB
    assert block["requested_size"] == 12 * MIB and seg["stream"] == torch.npu.current_stream().stream_id
    history = block["history"][0]
    assert history["addr"] == x.data_ptr() and history["real_size"] == 12 * MIB
    frame = next(f for f in history["frames"] if f["name"] == "allocate_activations_here")
    assert frame["filename"] == __file__ and frame["line"] > 0
    assert seg["address"] <= x.data_ptr() < seg["address"] + seg["total_size"]
    del x


def test_a_freed_block_keeps_who_last_used_its_memory_until_reused(recording):
    x = allocate_activations_here()
    del x
    (seg, block), = _blocks_with_frame(torch.npu.memory._snapshot(), "allocate_activations_here")
    assert block["state"] == "inactive"


def test_the_trace_lists_segment_alloc_free_and_totals(recording):
    x = allocate_activations_here()
    addr = x.data_ptr()
    allocated = torch.npu.memory_allocated()
    del x
    torch.npu.empty_cache()
    trace = torch.npu.memory._snapshot().device_traces[0]
    mine = [e for e in trace if e["addr"] == addr]
    assert [e["action"] for e in mine] == [
        "segment_alloc", "alloc", "free_requested", "free_completed", "segment_free"]
    alloc = mine[1]
    assert alloc["size"] == 12 * MIB and alloc["allocated"] == allocated
    assert any(f["name"] == "allocate_activations_here" for f in alloc["frames"])
    assert mine[-1]["reserved"] == torch.npu.memory_reserved()


def test_a_block_used_by_another_stream_is_pending_free_until_that_stream_is_done(recording):
    side = torch.npu.Stream()
    x = allocate_activations_here()
    x.record_stream(side)
    del x  # the block waits for an event on `side`; the next allocation looks at it again
    states = [b["state"] for _, b in _blocks_with_frame(torch.npu.memory._snapshot(), "allocate_activations_here")]
    assert states == ["active_pending_free"]
    side.synchronize()
    torch.empty(1, device="npu")
    states = [b["state"] for _, b in _blocks_with_frame(torch.npu.memory._snapshot(), "allocate_activations_here")]
    assert states == ["inactive"]


def test_state_level_keeps_block_histories_without_a_trace():
    torch.npu.memory._record_memory_history(enabled="state")
    try:
        x = allocate_activations_here()
        snapshot = torch.npu.memory._snapshot()
        assert _blocks_with_frame(snapshot, "allocate_activations_here")
        assert snapshot.device_traces[0] == []
        del x
    finally:
        torch.npu.memory._record_memory_history(enabled=None)


def test_no_stacks_when_context_is_off_and_nothing_when_recording_is_off():
    torch.npu.memory._record_memory_history(True, context=None)
    try:
        x = allocate_activations_here()
        trace = torch.npu.memory._snapshot().device_traces[0]
        assert trace and all(e["frames"] == [] for e in trace)
        del x
    finally:
        torch.npu.memory._record_memory_history(False)
    x = allocate_activations_here()
    snapshot = torch.npu.memory._snapshot()
    assert snapshot.device_traces[0] == []
    mine = [b for seg in snapshot for b in seg["blocks"] if seg["address"] == x.data_ptr()]
    assert mine and mine[0].get("history", [{"frames": []}])[0]["frames"] == []  # no stack, old or new
    del x


def test_bad_arguments_say_what_was_wrong():
    with pytest.raises(ValueError, match="enabled must be one of"):
        torch.npu.memory._record_memory_history(enabled="everything")
    with pytest.raises(ValueError, match="stacks must be"):
        torch.npu.memory._record_memory_history(stacks="cpp")
    with pytest.raises(RuntimeError, match="max_entries must be >= 0"):
        torch.npu.memory._record_memory_history(max_entries=-1)
    torch.npu.memory._record_memory_history(False)


def test_torch_memory_viz_reads_a_dumped_npu_snapshot(recording, tmp_path):
    x = allocate_activations_here()
    y = torch.ones(1000, device="npu")
    path = torch.npu.memory._dump_snapshot(str(tmp_path / "snap.pickle"))
    del x, y
    with open(path, "rb") as f:
        snapshot = pickle.load(f)
    stats = _memory_viz.stats(snapshot)
    assert stats["segments"] == len(snapshot) >= 2
    assert stats["active_allocated"].value >= 12 * MIB + 4000
    assert stats["total_size"].value == sum(s["total_size"] for s in snapshot)
    lines = _memory_viz.segments(snapshot, format_flamegraph=lambda text: text)
    mine = [ln for ln in lines.splitlines() if "allocate_activations_here" in ln]
    assert mine and mine[0].startswith("stream_") and mine[0].endswith(f" {12 * MIB}")
    assert all(int(ln.rsplit(" ", 1)[1]) >= 0 for ln in lines.splitlines())  # no negative gaps
    # torch's own command line reads it; the pickle names no class outside the standard library
    out = subprocess.run([sys.executable, _memory_viz.__file__, "stats", path], capture_output=True, text=True,
                         check=True).stdout
    assert "active_allocated" in out and "segments" in out
    classes = []

    class Recording(pickle.Unpickler):
        def find_class(self, module, name):
            classes.append((module, name))
            return super().find_class(module, name)

    with open(path, "rb") as f:
        Recording(f).load()
    assert set(classes) == {("collections", "UserList")}


def _train_steps(steps=3):
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).npu()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        loss = model(torch.randn(64, 256, device="npu")).square().mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    torch.npu.synchronize()


def test_memory_report_from_a_dumped_snapshot_shows_the_timeline_and_the_largest_blocks(recording, tmp_path):
    keep = allocate_activations_here()
    _train_steps()
    path = torch.npu.memory._dump_snapshot(str(tmp_path / "train.pickle"))
    out = subprocess.run([sys.executable, "-m", "torch_npu.tools.profile_report", "--memory", path],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == str(tmp_path / "train.html")
    page = open(out).read()
    assert 'id="memory-timeline"' in page and "polyline" in page and 'id="memory-blocks"' in page
    snapshot = memory_report.load_snapshot(path)
    peak, _, blocks, lost = memory_report.live_at_peak(snapshot.device_traces[0])
    assert not lost and blocks[0]["size"] == 12 * MIB  # the largest block live at the peak: ours, named by our function
    assert memory_report.user_frame(blocks[0]["frames"]).endswith(":allocate_activations_here")
    assert "allocate_activations_here" in page
    assert sum(b["size"] for b in blocks) <= peak
    del keep


def test_profile_html_report_has_a_memory_section_with_and_without_history(tmp_path):
    profile = torch.autograd.profiler.profile
    with profile(use_npu=True, profile_memory=True) as prof:
        _train_steps(1)
    page = open(prof.export_html_report(str(tmp_path / "counters.html"))).read()
    assert 'id="memory-timeline"' in page and "memory counters" in page and 'id="memory-blocks"' not in page

    torch.npu.memory._record_memory_history(True)
    try:
        with profile(use_npu=True, profile_memory=True) as prof:
            _train_steps(1)
        page = open(prof.export_html_report(str(tmp_path / "history.html"))).read()
    finally:
        torch.npu.memory._record_memory_history(False)
    assert "allocator&#x27;s trace" in page and 'id="memory-blocks"' in page and "_train_steps" in page


def test_memory_section_from_synthetic_trace():
    def ev(action, addr, size, t, allocated, reserved):
        return {"action": action, "addr": addr, "size": size, "stream": 0, "time_us": t, "allocated": allocated,
                "reserved": reserved, "frames": [{"filename": "/x/train.py", "line": t, "name": f"f{addr}"}]}
    trace = [ev("segment_alloc", 0, 100, 1, 0, 100), ev("alloc", 0, 40, 2, 40, 100), ev("alloc", 40, 50, 3, 90, 100),
             ev("free_requested", 0, 40, 4, 50, 100), ev("alloc", 100, 30, 5, 80, 100)]
    peak, time, blocks, lost = memory_report.live_at_peak(trace)
    assert (peak, time, lost) == (90, 3, False) and [b["addr"] for b in blocks] == [40, 0]
    peak, time, blocks, _ = memory_report.live_at_peak(trace, since_us=5)  # a window after the peak
    assert (peak, time) == (80, 5) and [b["addr"] for b in blocks] == [40, 100]  # the freed one is gone
    peak, time, blocks, _ = memory_report.live_at_peak(trace, since_us=4, until_us=4)  # only a free inside
    assert (peak, time) == (90, 4) and [b["addr"] for b in blocks] == [40, 0]  # the level the window starts at
    assert memory_report.points_from_trace(trace, 4, 4) == [(4, 90, 100), (4, 50, 100)]
    peak, _, blocks, lost = memory_report.live_at_peak(trace[2:])  # a wrapped trace: A's alloc is gone
    assert lost and [b["addr"] for b in blocks] == [40]  # the peak (90) is its first event
    assert memory_report.user_frame(blocks[0]["frames"]) == "train.py:3:f40"
    assert html_report.render_memory_section(None, []) == ""


def test_a_block_allocated_while_not_recording_does_not_keep_an_old_owner(recording):
    x = allocate_activations_here()
    ptr = x.data_ptr()
    del x
    torch.npu.memory._record_memory_history(False)
    y = torch.empty(3 * MIB, device="npu")  # the same block, taken back
    assert y.data_ptr() == ptr
    blocks = [b for seg in torch.npu.memory._snapshot() for b in seg["blocks"] if b["state"] == "active_allocated"
              and seg["address"] == ptr]
    assert blocks and blocks[0]["history"][0]["frames"] == []  # no stack, rather than the wrong one
    torch.npu.memory._record_memory_history(True)


def test_torch_1_13_and_2_0_positional_spellings(tmp_path):
    try:
        torch.npu.memory._record_memory_history(True, 0)  # torch 1.13: (enabled, device)
        torch.npu.memory._record_memory_history(True, "cuda:0")  # the same through transfer_to_npu
        torch.npu.memory._record_memory_history(True, True, 5)  # torch 2.0: (enabled, record_context, entries)
        x = [torch.empty(1000, device="npu") for _ in range(8)]  # 8 allocations at least: the ring keeps 5
        assert len(torch.npu.memory._snapshot().device_traces[0]) == 5
        del x
    finally:
        torch.npu.memory._record_memory_history(False)


def test_block_histories_stay_disjoint_and_inside_their_blocks_through_random_work(recording):
    rng = random.Random(0)
    side = torch.npu.Stream()
    live = []
    for step in range(300):
        if live and rng.random() < 0.45:
            live.pop(rng.randrange(len(live)))
        else:
            t = torch.empty(rng.choice([1, 100, 3000, 70000, 300000, 3 * MIB // 4]), device="npu")
            if rng.random() < 0.2:
                t.record_stream(side)
            live.append(t)
        if step % 25 == 0:
            torch.empty(rng.randrange(1, 5000), device="npu")  # the last-freed-block path
            for seg in torch.npu.memory._snapshot():
                addr = seg["address"]
                for b in seg["blocks"]:
                    spans = sorted((h["addr"], h["addr"] + h["real_size"]) for h in b.get("history", []))
                    assert all(addr <= lo and hi <= addr + b["size"] for lo, hi in spans), (b, addr)
                    assert all(prev[1] <= nxt[0] for prev, nxt in zip(spans, spans[1:])), b
                    addr += b["size"]
                assert addr == seg["address"] + seg["total_size"]
    side.synchronize()
