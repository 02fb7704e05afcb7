"""Precision comparison of an NPU run with the same script's CPU run: the first op whose outputs diverge.

Record the same step twice, once on each device, then compare:

    from torch_npu.tools import compare
    with compare.record("run_npu"):           # model and inputs on the NPU
        loss_fn(model(x), y).backward()
    with compare.record("run_cpu"):           # the same on the CPU (same seed and weights)
        loss_fn(model_cpu(x_cpu), y_cpu).backward()

    python3 -m torch_npu.tools.compare run_npu run_cpu [--rtol 1e-3 --atol 1e-5]

Note [Comparing runs op by op]
A recording holds every ATen op the step ran (forward and backward), in order, seen from PyTorch's
dispatcher below autograd (a TorchDispatchMode): its name, the module path it ran in (the layer), and its
outputs as .npy files. On the NPU each op also lists the device tasks (CANN ops) it launched, found
from the simulator's task records by their host launch time. Both devices run the same ATen ops, so the
two sequences line up; where they do not (an op only one backend calls, such as a gradient
accumulation add_), the alignment of difflib's SequenceMatcher skips it. The comparison walks the
aligned pairs in order and reports the first whose outputs differ by more than atol + rtol * |cpu| in
any element (or in shape, or in where NaNs are): later ops inherit a divergence, so the first is where
to look. The same recorder gives an op-level dump of the NPU run; torch.npu.set_dump's device-level
dump is the other view of the same ops.
"""
import argparse
import bisect
import difflib
import json
import os
import sys
import time

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from torch_npu.npu import _module_scope
from torch_npu.tools.dump_files import load_manifest, load_tensor


def _now_us():
    return time.time_ns() / 1e3  # the clock of the simulator's host launch tags


class _Recorder(TorchDispatchMode):
    def __init__(self, owner):
        super().__init__()
        self.owner = owner

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        start = _now_us()
        out = func(*args, **(kwargs or {}))
        end = _now_us()
        self.owner._add(str(func), out, start, end)
        return out


class record:
    """Context manager: records every ATen op's outputs into `path` (see the module doc)."""

    def __init__(self, path):
        self.path = os.path.abspath(path)
        self.ops = []
        self._mode = None
        self._records = None

    def __enter__(self):
        os.makedirs(self.path, exist_ok=True)
        if torch.npu.is_available():
            torch.npu.synchronize()
            self._records = torch.npu.op_records()
            self._records.__enter__()
        _module_scope.acquire()
        self._mode = _Recorder(self)
        self._mode.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        self._mode.__exit__(exc_type, exc, tb)
        _module_scope.release()
        tasks = []
        if self._records is not None:
            torch.npu.synchronize()
            self._records.__exit__(exc_type, exc, tb)
            tasks = [r for r in self._records.records if r.host_launch_us and r.core_type != "host_fallback"]
        self._attach_tasks(tasks)
        with open(os.path.join(self.path, "manifest.json"), "w") as f:
            json.dump({"kind": "aten", "ops": self.ops}, f, indent=1)
        return False

    def _add(self, name, out, start, end):
        index = len(self.ops)
        outputs, devices = [], set()
        for i, t in enumerate(o for o in tree_flatten(out)[0] if isinstance(o, torch.Tensor)):
            devices.add(t.device.type)
            value = t.detach()
            if value.dtype == torch.bfloat16:
                value = value.float()
            entry = {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape)}
            if value.dtype.is_complex or value.layout != torch.strided:
                outputs.append(entry)  # listed, not compared
                continue
            entry["file"] = f"{index}.{name.replace('aten.', '')}.output.{i}.npy"
            np.save(os.path.join(self.path, entry["file"]), value.cpu().numpy())
            outputs.append(entry)
        self.ops.append({"index": index, "op": name, "scope": _module_scope.current(), "devices": sorted(devices),
                         "outputs": outputs, "npu_ops": [], "_span": (start, end)})

    def _attach_tasks(self, tasks):
        """Each device task to the op whose host interval holds its launch (ops do not nest here)."""
        starts = [op["_span"][0] for op in self.ops]
        for t in tasks:
            i = bisect.bisect_right(starts, t.host_launch_us) - 1
            if i >= 0 and t.host_launch_us <= self.ops[i]["_span"][1]:
                self.ops[i]["npu_ops"].append(t.op_type)
        for op in self.ops:
            del op["_span"]


def _difference(a, b, rtol, atol):
    """(diverges, max abs error, max rel error, note) of two arrays."""
    if a is None or b is None:
        return False, 0.0, 0.0, "not recorded"
    if a.shape != b.shape:
        return True, float("inf"), float("inf"), f"shape {list(a.shape)} vs {list(b.shape)}"
    if a.size == 0:
        return False, 0.0, 0.0, ""
    x, y = a.astype(np.float64), b.astype(np.float64)
    nan_x, nan_y = np.isnan(x), np.isnan(y)
    if (nan_x != nan_y).any():
        return True, float("inf"), float("inf"), f"NaN in {int((nan_x != nan_y).sum())} element(s) of one run only"
    same = (x == y) | (nan_x & nan_y)  # equal infinities too
    with np.errstate(invalid="ignore"):
        err = np.where(same, 0.0, np.abs(x - y))
        rel = np.where(same, 0.0, err / np.maximum(np.abs(y), np.finfo(np.float64).tiny))
    bad = err > atol + rtol * np.abs(np.where(np.isfinite(y), y, 0.0))
    return bool(bad.any()), float(np.nanmax(err)), float(np.nanmax(rel)), f"{int(bad.sum())} of {x.size} elements"


def compare(npu_dir, cpu_dir, rtol=1e-3, atol=1e-5):
    """Compares two recordings (see the module doc). Returns (rows, first): a row per aligned op with its
    errors, and the first diverging row (or None)."""
    a, b = load_manifest(npu_dir)["ops"], load_manifest(cpu_dir)["ops"]
    matcher = difflib.SequenceMatcher(a=[op["op"] for op in a], b=[op["op"] for op in b], autojunk=False)
    rows, first = [], None
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            x, y = a[block.a + k], b[block.b + k]
            row = {"index": x["index"], "cpu_index": y["index"], "op": x["op"], "scope": x["scope"],
                   "npu_ops": x.get("npu_ops", []), "diverges": False, "max_abs": 0.0, "max_rel": 0.0, "note": ""}
            for i, (tx, ty) in enumerate(zip(x["outputs"], y["outputs"])):
                diverges, max_abs, max_rel, note = _difference(load_tensor(npu_dir, tx), load_tensor(cpu_dir, ty),
                                                               rtol, atol)
                row["max_abs"], row["max_rel"] = max(row["max_abs"], max_abs), max(row["max_rel"], max_rel)
                if diverges and not row["diverges"]:
                    row["diverges"], row["note"] = True, f"output {i}: {note}"
            rows.append(row)
            if row["diverges"] and first is None:
                first = row
    return rows, first


def report(npu_dir, cpu_dir, rtol=1e-3, atol=1e-5, context=3):
    rows, first = compare(npu_dir, cpu_dir, rtol, atol)
    lines = [f"{len(rows)} ops aligned between {npu_dir} and {cpu_dir} (rtol {rtol:g}, atol {atol:g})"]
    if first is None:
        lines.append("No op diverges.")
        return "\n".join(lines), None
    at = rows.index(first)
    lines.append(f"First divergent op: #{first['index']} {first['op']} in layer {first['scope'] or '-'}: "
                 f"max abs error {first['max_abs']:.3g}, max rel error {first['max_rel']:.3g} ({first['note']})")
    if first["npu_ops"]:
        lines.append(f"  its NPU tasks: {', '.join(first['npu_ops'])}")
    lines.append(f"  {'#':>5}  {'op':<36}{'layer':<24}{'max abs':>10}{'max rel':>10}")
    for row in rows[max(0, at - context):at + context + 1]:
        mark = "<-" if row is first else ("x" if row["diverges"] else "")
        lines.append(f"  {row['index']:>5}  {row['op']:<36}{row['scope'] or '-':<24}{row['max_abs']:>10.3g}"
                     f"{row['max_rel']:>10.3g} {mark}")
    return "\n".join(lines), first


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m torch_npu.tools.compare", description=__doc__.splitlines()[0])
    parser.add_argument("npu_dir", help="recording of the NPU run (torch_npu.tools.compare.record)")
    parser.add_argument("cpu_dir", help="recording of the CPU run")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-5)
    args = parser.parse_args(argv)
    text, first = report(args.npu_dir, args.cpu_dir, args.rtol, args.atol)
    print(text)
    return 1 if first else 0


if __name__ == "__main__":
    sys.exit(main())
