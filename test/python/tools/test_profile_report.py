"""The HTML report of a profile (torch_npu/profiler/html_report.py): its numbers on synthetic traces,
and a resnet18 step's report rendered in headless Chromium (installed by ci/setup.sh)."""
import html.parser
import os
import shutil
import subprocess
import sys

import pytest
import torch
import torchvision
from PIL import Image

import torch_npu  # noqa: F401
from torch_npu.profiler import html_report


def _task(name, ts, dur, unit="vector", launch=None, tid=1, cube=0.0, vector=1.0, mte=0.1, idx=[0]):
    idx[0] += 1
    args = {"unit": unit, "cube ratio": cube, "vector ratio": vector, "mte ratio": mte}
    events = [{"name": name, "ph": "X", "cat": "npu_op", "pid": "NPU 0", "tid": tid, "ts": ts, "dur": dur,
               "args": args}]
    if launch is not None:
        events += [{"name": "launch", "ph": "s", "cat": "npu_launch", "id": idx[0], "pid": "CPU", "tid": 7,
                    "ts": launch},
                   {"name": "launch", "ph": "f", "bp": "e", "cat": "npu_launch", "id": idx[0], "pid": "NPU 0",
                    "tid": tid, "ts": ts}]
    return events


def _host(name, ts, dur):
    return {"name": name, "ph": "X", "cat": "cpu_op", "pid": "CPU", "tid": 7, "ts": ts, "dur": dur}


def test_launch_gaps_replay_each_stream_against_the_host_launches():
    # Device tasks of 10 us each, back to back in simulated time, launched at 1, 2, 42 and 43 us: a
    # real device runs the first two from 1 to 21 us, then idles until the third's launch at 42 us.
    events = [_host("aten::add", 0, 5), _host("aten::mul", 40, 5)]
    events += _task("Add", 100, 10, launch=1) + _task("Mul", 110, 10, launch=2)
    events += _task("Mul", 120, 10, launch=42) + _task("Cast", 130, 10, launch=43)
    tasks, _ = html_report.parse_trace({"traceEvents": events})
    gaps = html_report.launch_gaps(tasks)
    assert len(gaps) == 1
    assert gaps[0]["gap"] == pytest.approx(21.0) and gaps[0]["before"] == "Mul" and gaps[0]["after"] == "Mul"
    assert gaps[0]["host_op"] == "aten::mul"
    assert [t.host_op for t in tasks] == ["aten::add", "aten::add", "aten::mul", "aten::mul"]


def test_unit_shares_count_each_task_for_its_bounding_unit_and_flag_transdata_and_ai_cpu():
    events = (_task("MatMul", 0, 30, unit="cube", cube=0.9, vector=0.1, mte=0.5)
              + _task("Add", 30, 10, mte=1.0, vector=0.3)
              + _task("TransData", 40, 5, vector=1.0)
              + _task("AsStrided", 45, 15, unit="ai_cpu"))
    tasks, _ = html_report.parse_trace({"traceEvents": events})
    assert html_report.unit_shares(tasks) == {"Cube": 30.0, "Vector": 5.0, "MTE": 10.0, "AI CPU": 15.0}
    top = html_report.top_ops(tasks)
    assert [r["op"] for r in top] == ["MatMul", "AsStrided", "Add", "TransData"]
    assert [r["flagged"] for r in top] == [False, True, False, True]
    assert {r["op"] for r in html_report.removal_candidates(tasks)} == {"AsStrided", "TransData"}
    assert sum(r["share"] for r in top) == pytest.approx(100.0)


class _Dom(html.parser.HTMLParser):
    """Counts what the test checks in Chromium's DOM."""

    def __init__(self):
        super().__init__()
        self.rects, self.tables, self.flagged_rows, self.table = {}, {}, {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "rect" and "task" in attrs.get("class", "").split():
            self.rects.setdefault(self.svg, []).append(attrs)
        elif tag == "svg":
            self.svg = attrs.get("id")
        elif tag == "table":
            self.table = attrs.get("id")
            self.tables[self.table] = 0
        elif tag == "tr" and self.table:
            self.tables[self.table] += 1
            if attrs.get("class") == "flagged":
                self.flagged_rows[self.table] = self.flagged_rows.get(self.table, 0) + 1


def _chromium():
    exe = shutil.which("chromium")
    assert exe, "headless Chromium is missing: ci/setup.sh installs Debian's chromium"
    return [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,900"]


def test_resnet18_report_renders_in_headless_chromium(tmp_path):
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=10).npu()
    x, y = torch.randn(2, 3, 64, 64).npu(), torch.randint(0, 10, (2,)).npu()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    with torch.autograd.profiler.profile(use_npu=True) as prof:
        torch.nn.functional.cross_entropy(model(x), y).backward()
    report = prof.export_html_report(str(tmp_path / "report.html"), "resnet18 step")
    tasks = prof.npu_records

    dom_text = subprocess.run(_chromium() + ["--dump-dom", f"file://{report}"], capture_output=True, text=True,
                              timeout=120, check=True).stdout
    dom = _Dom()
    dom.feed(dom_text)
    assert len(dom.rects["timeline"]) == len(dom.rects["device-timeline"]) == len(tasks) > 100
    assert sum(r["data-op"] == "TransData" for r in dom.rects["device-timeline"]) == \
        sum(r.op_type == "TransData" for r in tasks)
    op_types = {r.op_type for r in tasks}
    assert dom.tables["top-ops"] == 1 + min(15, len(op_types))
    assert dom.tables["unit-shares"] == 1 + 4 and dom.tables["launch-gaps"] > 1
    n_flagged = sum(r.op_type == "TransData" or r.core_type == "ai_cpu" for r in tasks)
    assert n_flagged > 0 and dom.flagged_rows["remove-first"] >= 1
    assert f'<b id="task-count">{len(tasks)}</b>' in dom_text

    # The screenshot: the device timeline is drawn in the units' colours, and no external resource was
    # needed (the page is one file; Chromium ran without network).
    png = tmp_path / "report.png"
    subprocess.run(_chromium() + [f"--screenshot={png}", f"file://{report}"], capture_output=True, timeout=120,
                   check=True)
    # Right of x = 1030 only the timelines draw (their plot spans x = 210..1310; the unit bar and the
    # tables end before).
    image = Image.open(png).convert("RGB")
    timelines = image.crop((1030, 0, image.width, image.height))
    counts = {rgb: n for n, rgb in timelines.getcolors(maxcolors=1 << 20)}
    mte, vector, host = (255, 127, 14), (44, 160, 44), (158, 158, 158)
    assert counts.get(mte, 0) > 500 and counts.get(vector, 0) > 20 and counts.get(host, 0) > 500
    with open(report) as f:
        text = f.read()
    assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "https://" not in text


def test_e2e_profile_and_the_command_line_tool_write_the_report(tmp_path):
    a, b = torch.randn(64, 64).npu(), torch.randn(64, 64).npu()
    with torch.npu.profile(profiler_result_path=str(tmp_path)) as prof:
        torch.mm(a, b).relu_()
    assert os.path.exists(prof.files["report"]) and "MatMul" in open(prof.files["report"]).read()
    out = tmp_path / "again.html"
    subprocess.run([sys.executable, "-m", "torch_npu.tools.profile_report", prof.files["trace"], "-o", str(out)],
                   check=True, capture_output=True)
    assert 'id="device-timeline"' in out.read_text()
    with pytest.raises(RuntimeError, match="use_npu=True"):
        with torch.autograd.profiler.profile() as cpu_only:
            torch.ones(2).add(1)
        cpu_only.export_html_report(str(tmp_path / "x.html"))
