"""Runs PyTorch's OpInfo database on the NPU and on the CPU and compares them.

Note [OpInfo conformance]
Every entry of torch.testing._internal.common_methods_invocations.op_db that
the CPU supports in float32 is run sample by sample, as PyTorch's own device
tests do: the samples are made on the NPU (`op.sample_inputs("npu", dtype)`),
copied to the CPU for the reference, and the op's outputs are compared.
  float32  NPU float32 vs CPU float32, rtol = atol = 1e-3 (the Cube keeps fp32
           operands: must_keep_origin_dtype);
  float16  NPU float16 vs the CPU on the same (fp16) values, compared at
           rtol = atol = 1e-2 — an fp16 result is one or a few roundings
           (2^-11 each) of the fp32 value. The CPU runs the op in float16
           where it supports it (so output dtypes are checked exactly), else
           in float32 on the upcast values (then an fp16 NPU output stands for
           an fp32 reference). Entries whose dtypes on CUDA include float16
           take part (a GPU-class device's half-precision set).
A sample whose CPU reference raises is skipped (the CPU rejects it too). An
entry passes when every remaining sample runs on the NPU and matches; entries
with random or uninitialised outputs (NONDETERMINISTIC) are compared by
shape, dtype and device only. Each entry starts from the same seed.

Used by test/python/ops/test_opinfo_conformance.py, which runs the entries in
chunks in child processes (so a crash is reported against the entry that
caused it), with ASCEND_LAUNCH_BLOCKING=1 so that a device error is reported
by the op that caused it (not by whichever later call meets it first), and
writes the report docs/op_coverage.md (report.py). Standalone:
    python3 opinfo_run.py --dtype float32 [--start N --end M] [--only NAME...]
prints one JSON line per entry.
"""
import argparse
import json
import os
import random
import re
import sys
import zlib

import numpy

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "stubs"))

import torch  # noqa: E402
import torch_npu  # noqa: E402,F401

TOLERANCES = {"float32": (1e-3, 1e-3), "float16": (1e-2, 1e-2)}

# Entries whose outputs are random or uninitialised memory: compared by
# shape, dtype and device only.
NONDETERMINISTIC = {
    "bernoulli", "empty", "empty_like", "new_empty", "new_empty_strided", "rand_like", "randn_like",
    "randint_like", "randint", "multinomial", "normal", "normal.number_mean", "uniform", "cauchy", "exponential",
    "geometric", "log_normal", "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout.with_train", "nn.functional.rrelu",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d", "empty_permuted",
}

NOT_IMPLEMENTED = re.compile(r"The operator '([^']+)' is not implemented for the NPU backend")


def entry_name(op):
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def entries(dtype):
    """The OpInfo entries taking part for `dtype` ("float32" or "float16")."""
    from torch.testing._internal.common_methods_invocations import op_db

    selected = [op for op in op_db if torch.float32 in op.supported_dtypes("cpu")]
    if dtype == "float16":
        selected = [op for op in selected if torch.float16 in op.supported_dtypes("cuda")]
    return selected


def _map(value, fn):
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (list, tuple)) and not isinstance(value, torch.Size):
        mapped = [_map(v, fn) for v in value]
        return type(value)(*mapped) if hasattr(value, "_fields") else type(value)(mapped)
    if isinstance(value, dict):
        return {k: _map(v, fn) for k, v in value.items()}
    return value


def _to_reference(upcast):
    """Moves a sample to the CPU; with `upcast`, fp16 floats become fp32 there."""
    def move(t):
        if not isinstance(t, torch.Tensor):
            return t  # SampleInput.transform also hands dtypes to the function
        t = t.detach().cpu()
        return t.float() if upcast and t.dtype == torch.float16 else t
    return move


def _compare(actual, expected, dtype, metadata_only, upcast):
    actual = _map(actual, lambda t: t.detach().cpu())
    _compare_metadata(actual, expected, upcast)
    if metadata_only:
        return
    if dtype == "float16":
        actual = _map(actual, lambda t: t.float() if t.dtype == torch.float16 else t)
        expected = _map(expected, lambda t: t.float() if t.dtype == torch.float16 else t)
    rtol, atol = TOLERANCES[dtype]
    torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True, check_device=False,
                               check_stride=False, check_dtype=False)


def _compare_metadata(actual, expected, upcast):
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            raise AssertionError(f"expected a tensor, got {type(actual).__name__}")
        dtype_ok = actual.dtype == expected.dtype or (
            upcast and actual.dtype == torch.float16 and expected.dtype == torch.float32)
        if actual.shape != expected.shape or not dtype_ok:
            raise AssertionError(f"expected {tuple(expected.shape)} {expected.dtype}, "
                                 f"got {tuple(actual.shape)} {actual.dtype}")
    elif isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(f"expected {len(expected)} outputs, got {len(actual)}")
        for a, e in zip(actual, expected):
            _compare_metadata(a, e, upcast)


def _first_line(e):
    text = str(e).strip().split("\n")[0]
    return f"{type(e).__name__}: {text}"[:300]


def run_entry(op, dtype):
    """(status, detail, samples run): status is pass, fail or not_implemented."""
    name = entry_name(op)
    seed = zlib.crc32(name.encode())
    random.seed(seed)  # some sample generators draw arguments from Python's and NumPy's generators
    numpy.random.seed(seed)
    torch.manual_seed(seed)
    torch.npu.manual_seed(seed)
    torch_dtype = getattr(torch, dtype)
    metadata_only = name in NONDETERMINISTIC
    upcast = dtype == "float16" and torch.float16 not in op.supported_dtypes("cpu")
    try:
        samples = list(op.sample_inputs("npu", torch_dtype, requires_grad=False))
    except Exception as e:  # the sample generator itself runs ops on the NPU
        return _failure(e, "making samples: ")
    ran = 0
    for sample in samples:
        try:
            reference = sample.transform(_to_reference(upcast))  # waits for the NPU: may raise its errors
        except Exception as e:
            status, detail, _ = _failure(e, "copying a sample to the CPU: ")
            return status, f"sample {ran}: {detail}", ran
        try:
            expected = op(reference.input, *reference.args, **reference.kwargs)
        except Exception:
            continue  # the CPU rejects this sample as well
        try:
            actual = op(sample.input, *sample.args, **sample.kwargs)
            torch.npu.synchronize()
            _compare(actual, expected, dtype, metadata_only, upcast)
        except Exception as e:
            status, detail, _ = _failure(e, "")
            return status, detail if status == "not_implemented" else f"sample {ran}: {detail}", ran
        ran += 1
    return "pass", "", ran


def _failure(e, prefix):
    try:
        torch.npu.synchronize()
    except Exception:
        pass  # a device error already reported by e
    missing = NOT_IMPLEMENTED.search(str(e))
    if missing:
        return "not_implemented", missing.group(1), 0
    return "fail", prefix + _first_line(e), 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=sorted(TOLERANCES), default="float32")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--end", type=int, default=None)
    parser.add_argument("--only", nargs="*", default=None, help="entry names to run")
    args = parser.parse_args(argv)
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    import warnings
    warnings.filterwarnings("ignore")
    ops = entries(args.dtype)
    indexed = list(enumerate(ops))[args.start:args.end]
    for index, op in indexed:
        name = entry_name(op)
        if args.only is not None and name not in args.only:
            continue
        print(json.dumps({"start": name, "index": index}), flush=True)
        status, detail, ran = run_entry(op, args.dtype)
        print(json.dumps({"entry": name, "index": index, "status": status, "detail": detail, "samples": ran}),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
