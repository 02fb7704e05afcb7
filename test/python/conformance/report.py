"""The OpInfo coverage report (docs/op_coverage.md) and the expected-failures list.

    /usr/bin/python3 test/python/conformance/report.py

runs the suite (suite.py, a minute or two) and rewrites both files:
expected_failures.yaml keeps the reason written for every entry that still
fails, gives new failures a reason derived from their error, and drops
entries that pass now; docs/op_coverage.md is generated from the results and
yaml/npu_native_functions.yaml. ops/test_opinfo_conformance.py checks that both
files match a fresh run.
"""
import collections
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
EXPECTED_PATH = os.path.join(HERE, "expected_failures.yaml")
REPORT_PATH = os.path.join(ROOT, "docs", "op_coverage.md")
YAML_PATH = os.path.join(ROOT, "yaml", "npu_native_functions.yaml")
# Hand-written: where this backend's answers differ from torch_npu's own 1.11 per-op tests, and why.
DIFFERENCES_PATH = os.path.join(HERE, "torch_npu_1_11_differences.md")

# The goals of issue "Beyond CNNs" for the number of entries passing every sample.
TARGETS = {"float32": 450, "float16": 350}

LINALG = {"cholesky", "cholesky_inverse", "cholesky_solve", "det", "logdet", "slogdet", "geqrf", "inverse", "lu",
          "lu_solve", "lu_unpack", "matrix_exp", "ormqr", "pinverse", "qr", "svd", "svd_lowrank", "pca_lowrank",
          "symeig", "triangular_solve", "lstsq", "linalg_householder_product"}
FAMILY_RULES = [  # (family, predicate on the entry name), first match wins
    ("linear algebra", lambda n: n.startswith("linalg.") or n.split(".")[0] in LINALG),
    ("FFT and spectral", lambda n: n.startswith("fft.") or n.split(".")[0] in ("stft", "istft")),
    ("special functions", lambda n: n.startswith("special.")),
    ("masked reductions", lambda n: n.startswith("masked.")),
    ("losses", lambda n: n.startswith("nn.functional.") and ("loss" in n or "cross_entropy" in n)),
    ("pooling", lambda n: n.startswith("nn.functional.") and "pool" in n),
    ("convolution", lambda n: n.startswith("nn.functional.conv")),
    ("normalization", lambda n: n.startswith("nn.functional.") and "norm" in n or n.startswith("native_")),
    ("resampling and padding", lambda n: any(k in n for k in ("interpolate", "upsample", "pad", "grid_sample",
                                                              "pixel_", "unfold", "nn.functional.fold",
                                                              "affine_grid"))),
    ("nn activations and other nn.functional", lambda n: n.startswith("nn.functional.")),
    ("sorting, selection and statistics", lambda n: n.split(".")[0] in (
        "sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
        "unique_consecutive", "searchsorted", "bucketize", "histc", "histogram", "histogramdd", "bincount",
        "quantile", "nanquantile", "cov", "corrcoef", "aminmax", "argwhere", "nonzero", "isin")),
    ("scans", lambda n: n.split(".")[0] in ("cumsum", "cumprod", "cummax", "cummin", "logcumsumexp",
                                            "cumulative_trapezoid", "trapz", "trapezoid", "diff")),
    ("matrix products", lambda n: n.split(".")[0] in (
        "mm", "bmm", "addmm", "addmv", "addr", "addbmm", "baddbmm", "matmul", "mv", "dot", "vdot", "inner",
        "outer", "einsum", "tensordot", "kron", "chain_matmul", "__rmatmul__", "block_diag", "cdist", "cross")),
    ("indexing and scatter/gather", lambda n: any(n.startswith(k) for k in (
        "index_", "scatter", "gather", "take", "put", "masked_", "__getitem__", "where", "select",
        "narrow", "embedding"))),
    ("creation and conversion", lambda n: any(n.startswith(k) for k in (
        "empty", "zeros", "ones", "full", "new_", "rand", "arange", "linspace", "logspace", "eye", "tril_indices",
        "triu_indices", "to", "byte", "char", "short", "int", "long", "half", "float", "double", "bool", "bfloat16",
        "cfloat", "cdouble", "chalf", "clone", "contiguous", "bernoulli", "normal", "uniform", "multinomial",
        "complex", "polar", "view_as_complex", "view_as_real"))),
]


def family_of(entry, kind):
    for family, matches in FAMILY_RULES:
        if matches(entry):
            return family
    return {"UnaryUfuncInfo": "pointwise unary", "BinaryUfuncInfo": "pointwise binary",
            "ReductionOpInfo": "reductions"}.get(kind, "shape, views and other tensor ops")


def default_reason(result):
    detail = result["detail"]
    if result["status"] == "not_implemented":
        return f"{detail} has no NPU kernel yet"
    if result["status"] in ("crash", "hang"):
        return result["detail"]
    if re.search(r"Complex|complex", detail):
        return "complex dtypes are not NPU dtypes"
    if "float64" in detail or "Double" in detail:
        return "needs float64 arithmetic on the device (float64 is a storage-only NPU dtype)"
    return "mismatch: " + re.sub(r"^sample \d+: ", "", detail)


GENERATED_REASON = re.compile(r"^mismatch: |has no NPU kernel yet$|^needs float64 arithmetic|^the process ")


def updated_expectations(results, old):
    """The expected-failures mapping for `results`: hand-written reasons are
    kept for entries that still fail, generated ones are derived afresh."""
    new = {}
    for dtype, per_entry in results.items():
        previous = old.get(dtype) or {}

        def reason(name, r):
            kept = previous.get(name)
            return kept if kept and not GENERATED_REASON.search(kept) else default_reason(r)
        new[dtype] = {name: reason(name, r) for name, r in sorted(per_entry.items()) if r["status"] != "pass"}
    return new


def load_expectations():
    if not os.path.exists(EXPECTED_PATH):
        return {}
    with open(EXPECTED_PATH) as f:
        return yaml.safe_load(f) or {}


def render_expectations(expected):
    lines = ["# OpInfo entries that do not pass every sample on the NPU, with the reason (see Note [OpInfo",
             "# conformance] in opinfo_run.py). ops/test_opinfo_conformance.py fails when an entry not listed here",
             "# fails and when a listed entry passes. Regenerate with test/python/conformance/report.py; write",
             "# a better reason by hand where the generated one only restates the error."]
    for dtype in sorted(expected):
        lines.append(f"{dtype}:")
        for name, reason in sorted(expected[dtype].items()):
            key = name if re.fullmatch(r"[A-Za-z_][\w.]*", name) else json.dumps(name)
            lines.append(f"  {key}: {json.dumps(reason)}")
    return "\n".join(lines) + "\n"


def _yaml_sections():
    with open(YAML_PATH) as f:
        npu = yaml.safe_load(f)
    return {key: npu.get(key) or [] for key in ("supported", "structured", "autograd", "custom")}


def render_report(results, kinds, expected):
    """docs/op_coverage.md for `results` ({dtype: {entry: result}}) and the YAML."""
    out = ["# NPU operator coverage", "",
           "Generated by `test/python/conformance/report.py` from a run of PyTorch's OpInfo database",
           "(`torch.testing._internal.common_methods_invocations.op_db`) on the NPU against the CPU, and from",
           "`yaml/npu_native_functions.yaml`; `test/python/ops/test_opinfo_conformance.py` fails when this file no",
           "longer matches a fresh run. Method (Note [OpInfo conformance] in `test/python/conformance/opinfo_run.py`):",
           "every sample of an entry runs on `npu` and on the CPU; float32 is compared at rtol = atol = 1e-3",
           "(precision mode must_keep_origin_dtype), float16 at rtol = atol = 1e-2 against the CPU on the same",
           "fp16 values (Ascend910B2 preset: IEEE fp16). An entry passes when every sample matches; entries with",
           "random or uninitialised outputs are compared by shape, dtype and device.", "",
           "## Summary", "", "| dtype | entries | pass every sample | fail | not implemented | crash | goal |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for dtype in ("float32", "float16"):
        counts = collections.Counter(r["status"] for r in results[dtype].values())
        out.append(f"| {dtype} | {len(results[dtype])} | {counts['pass']} | {counts['fail']} | "
                   f"{counts['not_implemented']} | {counts['crash'] + counts['hang']} | {TARGETS[dtype]} |")
    out += ["", "## By family (float32)", "", "| family | entries | pass | fail | not implemented |",
            "|---|---:|---:|---:|---:|"]
    by_family = collections.defaultdict(list)
    for name, r in results["float32"].items():
        by_family[family_of(name, kinds.get(name, ""))].append((name, r))
    for family in sorted(by_family):
        counts = collections.Counter(r["status"] for _, r in by_family[family])
        out.append(f"| {family} | {len(by_family[family])} | {counts['pass']} | {counts['fail']} | "
                   f"{counts['not_implemented']} |")
    sections = _yaml_sections()
    out += ["", "## NPU kernels (`yaml/npu_native_functions.yaml`)", "",
            f"- {len(sections['supported'])} aten operators with a hand-written NPU kernel (`supported`);",
            f"- {len(sections['structured'])} structured out= kernels, each registered for its functional, "
            "in-place and out= forms (`structured`);",
            f"- {len(sections['autograd'])} operators implementing their own autograd (`autograd`);",
            f"- {len(sections['custom'])} custom `npu::` operators (`custom`).", "",
            "Structured kernels: " + ", ".join(f"`{name}`" for name in sections["structured"]) + ".", "",
            "## Entries that do not pass", "",
            "Reasons come from `test/python/conformance/expected_failures.yaml`.", ""]
    for family in sorted(by_family):
        failing = [(n, r) for n, r in sorted(by_family[family]) if r["status"] != "pass"]
        if not failing:
            continue
        out += [f"### {family}", "", "| entry | float32 | float16 |", "|---|---|---|"]
        for name, _ in failing:
            f16 = results["float16"].get(name)
            f16_text = "—" if f16 is None else ("pass" if f16["status"] == "pass"
                                                else expected.get("float16", {}).get(name, ""))
            out.append(f"| `{name}` | {expected['float32'].get(name, '')} | {f16_text} |".replace("\n", " "))
        out.append("")
    only16 = sorted(n for n, r in results["float16"].items()
                    if r["status"] != "pass" and results["float32"].get(n, {}).get("status") == "pass")
    if only16:
        out += ["### Passing in float32, not in float16", "", "| entry | float16 |", "|---|---|"]
        out += [f"| `{n}` | {expected['float16'].get(n, '')} |" for n in only16]
        out.append("")
    with open(DIFFERENCES_PATH) as f:
        out += ([""] if out[-1] else []) + [f.read().rstrip("\n"), ""]
    return "\n".join(out)


def entry_kinds():
    sys.path.insert(0, HERE)
    import opinfo_run

    return {opinfo_run.entry_name(op): type(op).__name__ for op in opinfo_run.entries("float32")}


def main():
    sys.path.insert(0, HERE)
    import suite

    results = suite.run_all()
    expected = updated_expectations(results, load_expectations())
    with open(EXPECTED_PATH, "w") as f:
        f.write(render_expectations(expected))
    with open(REPORT_PATH, "w") as f:
        f.write(render_report(results, entry_kinds(), expected))
    for dtype, per_entry in results.items():
        passing = sum(r["status"] == "pass" for r in per_entry.values())
        print(f"{dtype}: {passing} of {len(per_entry)} OpInfo entries pass every sample")


if __name__ == "__main__":
    main()
