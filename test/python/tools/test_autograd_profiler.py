"""torch.autograd.profiler.profile(use_npu=True): NPU time per host op, tables and the chrome trace
(Note [NPU time in the autograd profiler] in torch_npu/npu/autograd_profiler.py)."""
import csv
import json
import re

import pytest
import torch
import torchvision

import torch_npu  # noqa: F401


def _resnet18_step():
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = torch.randn(2, 3, 64, 64).npu(), torch.randint(0, 10, (2,)).npu()

    def step():
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    return step


def _transformer_step():
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1, batch_first=True)
    model = torch.nn.Sequential(torch.nn.TransformerEncoder(layer, 2), torch.nn.Linear(32, 50)).npu()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, y = torch.randn(4, 16, 32).npu(), torch.randint(0, 50, (4 * 16,)).npu()

    def step():
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x).reshape(-1, 50), y).backward()
        optimizer.step()
    return step


def _ms(text):
    value, unit = re.match(r"([0-9.]+)(us|ms|s)", text).groups()
    return float(value) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


@pytest.mark.parametrize("make_step", [_resnet18_step, _transformer_step], ids=["resnet18", "transformer"])
def test_npu_total_of_the_table_is_the_sum_of_the_op_records(make_step):
    step = make_step()
    step()  # compile every op first
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        with torch.autograd.profiler.record_function("train_step"):
            step()
    records_ms = sum(r.duration_us for r in prof.npu_records) / 1e3
    assert len(prof.npu_records) > 50 and records_ms > 0
    table = prof.key_averages().table(sort_by="npu_time_total", row_limit=15)
    assert "NPU total" in table and "CUDA" not in table, table
    total = re.search(r"Self NPU time total: (\S+)", table)
    assert total, table
    assert abs(_ms(total.group(1)) - records_ms) <= 0.01 * records_ms, (total.group(1), records_ms)
    # Every record went to a host op (forward ops under train_step, backward ops on the autograd thread):
    # tasks outside any host op would get "[npu task]" events of their own.
    events = list(prof.function_events)
    assert abs(sum(e.self_npu_time_total for e in events) / 1e3 - records_ms) <= 0.01 * records_ms
    orphans = sum(e.npu_time_total for e in events if e.name.startswith("[npu task]")) / 1e3
    assert orphans <= 0.01 * records_ms, [e.name for e in events if e.name.startswith("[npu task]")]
    train = [e for e in events if e.name == "train_step"]
    assert len(train) == 1 and train[0].npu_time_total > 0.2 * records_ms * 1e3  # the forward's share
    top = prof.key_averages()
    rows = sorted(top, key=lambda e: -e.self_npu_time_total)
    assert rows[0].self_npu_time_total > 0 and rows[0].key.startswith("aten::"), rows[0].key


def test_chrome_trace_follows_the_trace_event_format(tmp_path):
    step = _resnet18_step()
    step()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        step()
    path = prof.export_chrome_trace(str(tmp_path / "trace.json"))
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    for e in events:
        assert {"ph", "ts", "pid", "tid"} <= set(e), e
        if e["ph"] == "X":
            assert e["dur"] >= 0, e
    begins = sum(e["ph"] == "B" for e in events)
    assert begins == sum(e["ph"] == "E" for e in events)
    flows = {}
    for e in events:
        if e["ph"] in ("s", "f"):
            flows.setdefault(e["id"], []).append(e["ph"])
    assert flows and all(sorted(v) == ["f", "s"] for v in flows.values())
    device = [e for e in events if e["ph"] == "X" and e.get("cat") == "npu_op"]
    assert len(device) == len(prof.npu_records)
    conv = next(e for e in device if e["name"] == "Conv2D")
    assert {"shapes and formats", "unit", "cube ratio", "block dim", "bytes", "flops"} <= set(conv["args"])
    assert any(e["ph"] == "M" and e["args"].get("name", "").startswith("stream") for e in events)
    assert sum(e["ph"] == "X" and e.get("cat") == "cpu_op" for e in events) > 100


def test_without_use_npu_it_is_torchs_profiler_and_use_cuda_is_refused():
    x = torch.randn(8, 8).npu()
    with torch.autograd.profiler.profile() as prof:
        (x @ x).sum().item()
    table = prof.key_averages().table()
    assert prof.function_events and "Self NPU" not in table and "CUDA" not in table
    assert "NPU launch" in table  # each launch's host event (Note [Launch events] in csrc/core/TaskQueue.cpp)
    with pytest.raises(ValueError, match="use_npu=True"):
        torch.autograd.profiler.profile(use_cuda=True)


def test_e2e_profile_writes_one_summary_row_per_task_and_a_statistic_per_op_type(tmp_path):
    step = _resnet18_step()
    step()
    with torch.npu.profile(profiler_result_path=str(tmp_path / "prof")) as prof:
        step()
    records = prof.records
    with open(prof.files["op_summary"]) as f:
        summary = list(csv.DictReader(f))
    with open(prof.files["op_statistic"]) as f:
        statistic = list(csv.DictReader(f))
    assert len(summary) == len(records) > 50
    conv = next(row for row in summary if row["OP Type"] == "Conv2D")
    assert conv["Task Type"] == "AI_CORE" and conv["Host Op"].startswith("aten::")
    assert conv["Input Formats"].split(";")[1] == "FRACTAL_Z" and conv["Input Data Types"]
    assert int(conv["Block Dim"]) > 0 and float(conv["Task Duration(us)"]) > 0
    assert all(float(row["Task Wait Time(us)"]) >= 0 for row in summary)
    assert sum(int(row["Count"]) for row in statistic) == len(records)
    total = sum(float(row["Total Time(us)"]) for row in statistic)
    assert abs(total - sum(r.duration_us for r in records)) <= 1e-3 * len(records)
    assert abs(sum(float(row["Ratio(%)"]) for row in statistic) - 100.0) < 0.5
    with open(prof.files["trace"]) as f:
        assert json.load(f)["traceEvents"]
    with pytest.raises(ValueError, match="profiler_result_path"):
        torch.npu.profile(profiler_result_path="")


def test_torch_npu_profiler_schedule_records_active_steps_per_cycle(tmp_path):
    from torch_npu.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler
    step = _resnet18_step()
    step()
    cycles = []
    handler = tensorboard_trace_handler(str(tmp_path / "tb"))

    def on_trace_ready(prof):
        steps = [e.trace_name for e in prof.profiler.function_events if e.trace_name.startswith("ProfilerStep#")]
        cycles.append((steps, len(prof.profiler.npu_records)))
        handler(prof)

    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.NPU], on_trace_ready=on_trace_ready,
                 schedule=schedule(wait=1, warmup=1, active=2, repeat=2)) as prof:
        for _ in range(9):
            step()
            prof.step()
    assert len(cycles) == 2, cycles
    for steps, records in cycles:
        assert len(steps) == 2 and records > 50, (steps, records)
    traces = sorted((tmp_path / "tb").glob("*.pt.trace.json"))
    assert len(traces) == 2
    events = json.loads(traces[0].read_text())["traceEvents"]
    assert any(e.get("cat") == "npu_op" for e in events) and any(e["name"].startswith("ProfilerStep#")
                                                                 for e in events if e["ph"] == "X")
    with pytest.raises(ValueError, match="unsupported activities"):
        profile(activities=[torch.profiler.ProfilerActivity.CUDA])


def test_memory_events_show_the_allocators_allocated_and_reserved_totals(tmp_path):
    step = _resnet18_step()
    step()
    with torch.autograd.profiler.profile(use_npu=True, profile_memory=True) as prof:
        step()
    events = json.loads(open(prof.export_chrome_trace(str(tmp_path / "t.json"))).read())["traceEvents"]
    counters = [e for e in events if e["ph"] == "C"]
    assert len(counters) > 20, len(counters)
    for e in counters:
        assert e["pid"] == "NPU 0" and {"Total Allocated (MB)", "Total Reserved (MB)"} == set(e["args"])
        assert 0 <= e["args"]["Total Allocated (MB)"] <= e["args"]["Total Reserved (MB)"]
    assert max(e["args"]["Total Reserved (MB)"] for e in counters) * 2 ** 20 <= torch.npu.max_memory_reserved() + 1


def test_tasks_belong_to_the_launching_op_not_to_a_sub_microsecond_child_before_it():
    # aten::add_ calls aten::result_type (well under 1 us) and then launches its Add; in Kineto's whole
    # microseconds the launch often falls inside the child's truncated interval.
    a = torch.ones(16).npu()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        for _ in range(200):
            a.add_(1)
    assert all(r.host_launch_id >= 2 ** 40 for r in prof.npu_records)  # each names its launch event
    owners = [e.name for e in prof.npu_record_owners]
    assert len(owners) == 200 and set(owners) == {"aten::add_"}
