"""torch.npu.profile(profiler_result_path): the porting guide's end-to-end profiling.

    with torch.npu.profile(profiler_result_path="./results"):
        train_one_step()

writes, for the current device N, CANN-style summaries of every device task of the region:
- op_summary_N.csv: one row per task in execution order: the op's name (type and running number),
  type, task type (unit), the host op that launched it, stream, start, duration, wait time (idle
  time of its stream before it), block dim, the Cube/Vector/MTE ratios, bytes, FLOPs, and the input
  and output shapes, dtypes and formats;
- op_statistic_N.csv: one row per op type and task type: count, total/avg/min/max duration and the
  share of the total;
- trace_N.json: the chrome trace of torch.autograd.profiler.profile(use_npu=True), which runs
  underneath (docs/profiling.md);
- report_N.html: its self-contained HTML report (torch_npu/profiler/html_report.py).
"""
import csv
import os

from torch_npu.npu.autograd_profiler import profile as _autograd_profile

SUMMARY_COLUMNS = ["Op Name", "OP Type", "Task Type", "Host Op", "Stream ID", "Task Start Time(us)",
                   "Task Duration(us)", "Task Wait Time(us)", "Block Dim", "aic_cube_ratio", "aiv_vec_ratio",
                   "mte_ratio", "Bytes", "FLOPs", "Input Shapes", "Input Data Types", "Input Formats",
                   "Output Shapes", "Output Data Types", "Output Formats"]
STATISTIC_COLUMNS = ["OP Type", "Task Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)",
                     "Max Time(us)", "Ratio(%)"]
_TASK_TYPES = {"cube": "AI_CORE", "vector": "AI_VECTOR_CORE", "ai_core": "AI_CORE", "ai_cpu": "AI_CPU",
               "dma": "DMA"}


def _split_operands(side):
    """'[2,3]:FLOAT16:ND;[4]:FLOAT:ND' -> ('2,3;4', 'FLOAT16;FLOAT', 'ND;ND')."""
    shapes, dtypes, formats = [], [], []
    for operand in filter(None, side.split(";")):
        parts = operand.rsplit(":", 2)
        if len(parts) != 3:  # truncated by the record's fixed width
            continue
        shape, dtype, fmt = parts
        shapes.append(shape.strip("[]"))
        dtypes.append(dtype)
        formats.append(fmt)
    return ";".join(shapes), ";".join(dtypes), ";".join(formats)


def summary_rows(records, owners=None):
    """op_summary rows (dicts keyed by SUMMARY_COLUMNS) of the records, in execution order."""
    rows, counts, stream_end = [], {}, {}
    order = sorted(range(len(records)), key=lambda i: (records[i].start_us, records[i].stream_id))
    for i in order:
        r = records[i]
        n = counts.get(r.op_type, 0)
        counts[r.op_type] = n + 1
        inputs, _, outputs = r.shapes.partition("->")
        in_shapes, in_dtypes, in_formats = _split_operands(inputs)
        out_shapes, out_dtypes, out_formats = _split_operands(outputs)
        previous_end = stream_end.get(r.stream_id)
        wait = max(0.0, r.start_us - previous_end) if previous_end is not None else 0.0
        stream_end[r.stream_id] = r.start_us + r.duration_us
        rows.append({
            "Op Name": f"{r.op_type}_{n}", "OP Type": r.op_type,
            "Task Type": _TASK_TYPES.get(r.core_type, r.core_type.upper()),
            "Host Op": owners[i].name if owners else "", "Stream ID": r.stream_id,
            "Task Start Time(us)": f"{r.start_us:.3f}", "Task Duration(us)": f"{r.duration_us:.3f}",
            "Task Wait Time(us)": f"{wait:.3f}", "Block Dim": r.block_dim,
            "aic_cube_ratio": f"{r.cube_ratio:.3f}", "aiv_vec_ratio": f"{r.vector_ratio:.3f}",
            "mte_ratio": f"{r.mte_ratio:.3f}", "Bytes": f"{r.bytes:.0f}", "FLOPs": f"{r.flops:.0f}",
            "Input Shapes": in_shapes, "Input Data Types": in_dtypes, "Input Formats": in_formats,
            "Output Shapes": out_shapes, "Output Data Types": out_dtypes, "Output Formats": out_formats,
        })
    return rows


def statistic_rows(records):
    """op_statistic rows: one per (op type, task type), by total time."""
    groups = {}
    for r in records:
        key = (r.op_type, _TASK_TYPES.get(r.core_type, r.core_type.upper()))
        groups.setdefault(key, []).append(r.duration_us)
    grand = sum(sum(v) for v in groups.values()) or 1.0
    rows = []
    for (op, task_type), durations in sorted(groups.items(), key=lambda kv: -sum(kv[1])):
        total = sum(durations)
        rows.append({"OP Type": op, "Task Type": task_type, "Count": len(durations),
                     "Total Time(us)": f"{total:.3f}", "Min Time(us)": f"{min(durations):.3f}",
                     "Avg Time(us)": f"{total / len(durations):.3f}", "Max Time(us)": f"{max(durations):.3f}",
                     "Ratio(%)": f"{100.0 * total / grand:.2f}"})
    return rows


def _write_csv(path, columns, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)


class profile:
    """Context manager: E2E profiling of the region into `profiler_result_path` (see the module doc)."""

    def __init__(self, profiler_result_path="./", use_e2e_profiler=True, config=None):
        if not profiler_result_path:
            raise ValueError("torch.npu.profile needs a profiler_result_path to write its results into")
        self.result_path = os.path.abspath(profiler_result_path)
        self.enabled = bool(use_e2e_profiler)
        self.config = config
        self.files = {}
        self._profiler = None

    def __enter__(self):
        if self.enabled:
            os.makedirs(self.result_path, exist_ok=True)
            self._profiler = _autograd_profile(use_npu=True)
            self._profiler.__enter__()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.enabled:
            return False
        self._profiler.__exit__(exc_type, exc_val, exc_tb)
        if exc_type is not None:
            return False
        device = self._profiler.npu_device
        records, owners = self._profiler.npu_records, self._profiler.npu_record_owners
        self.files = {name: os.path.join(self.result_path, f"{name}_{device}.{ext}")
                      for name, ext in (("op_summary", "csv"), ("op_statistic", "csv"), ("trace", "json"),
                                        ("report", "html"))}
        _write_csv(self.files["op_summary"], SUMMARY_COLUMNS, summary_rows(records, owners))
        _write_csv(self.files["op_statistic"], STATISTIC_COLUMNS, statistic_rows(records))
        self._profiler.export_chrome_trace(self.files["trace"])
        self._profiler.export_html_report(self.files["report"], f"torch.npu.profile: NPU {device}")
        return False

    @property
    def records(self):
        return self._profiler.npu_records if self._profiler else []
