"""Differential fuzzer: random op calls on npu:0 against PyTorch's CPU backend (issue 17).

    /usr/bin/python3 test/python/fuzz/differential.py --seed 1 --cases 100000      # the long run
    /usr/bin/python3 test/python/fuzz/differential.py --seed 1 --case 1234 -v      # replay one case

Every case draws, from its own generator (seeded by (seed, case number), so any case replays
alone): an op of the table below, input shapes (rank 0-4, empty dims included, broadcasting or
deliberately mismatched), a dtype, and per input a layout (contiguous, a strided slice, a
transpose, an expand) and, for contiguous npu inputs of rank 2 or 4, a private format
(FRACTAL_NZ or NC1HWC0). Some cases call the in-place or the out= form. The same call runs on
the CPU (fp16 cases compute the reference in fp32 from the same fp16 values) and on the NPU.

Outcomes:
- both raise: fine when the exception types agree, else "different error";
- one raises: "only cpu raised" / "only npu raised" (a missing check or a wrong refusal);
- both return: values compared at the dtype's tolerance (NaN equal to NaN), shapes and dtypes
  must be equal; else "mismatch";
- the process dies: the case being run is in --progress FILE, written before each case.
Exit status 1 if any case failed. Precision mode: must_keep_origin_dtype (fp32 on the Cube).
"""
import argparse
import math
import random
import sys
import traceback

import torch
import torch_npu  # noqa: F401

NPU = torch.device("npu:0")
SATURATING_FP16 = torch.npu.get_device_name(0) == "Ascend910A"
NC1HWC0, FRACTAL_NZ = 3, 29


# ---- the op table ------------------------------------------------------------------------------

class Op:
    """fn(*tensors, **kwargs); arity tensors; kwargs(rng, shape) draws keyword arguments;
    dtypes it accepts; inplace / out: whether those forms exist."""

    def __init__(self, name, fn, arity=1, kwargs=None, dtypes=("f32", "f16"), inplace=None, out=False,
                 shapes="broadcast", tol=1.0):
        self.name, self.fn, self.arity, self.kwargs = name, fn, arity, kwargs or (lambda rng, shape: {})
        self.dtypes, self.inplace, self.out, self.shapes, self.tol = dtypes, inplace, out, shapes, tol


def some_dim(rng, shape):
    return rng.randrange(-len(shape), len(shape)) if shape else rng.choice([0, -1])


def dim_kw(keepdim=True):
    def draw(rng, shape):
        kw = {"dim": some_dim(rng, shape)}
        if keepdim:
            kw["keepdim"] = rng.random() < 0.5
        return kw
    return draw


ALL = ("f32", "f16", "i64", "i32", "bool")
NUMERIC = ("f32", "f16", "i64", "i32")

OPS = [
    Op("add", torch.add, 2, lambda r, s: {"alpha": r.choice([1, 2])}, NUMERIC, "add_", True),
    Op("sub", torch.sub, 2, None, NUMERIC, "sub_", True),
    Op("mul", torch.mul, 2, None, ALL, "mul_", True),
    Op("div", torch.div, 2, None, ("f32", "f16"), "div_", True),
    Op("maximum", torch.maximum, 2, None, NUMERIC, None, True),
    Op("minimum", torch.minimum, 2, None, NUMERIC, None, True),
    Op("atan2", torch.atan2, 2, None, ("f32",), None, True),
    Op("eq", torch.eq, 2, None, ALL, None, True),
    Op("lt", torch.lt, 2, None, NUMERIC, None, True),
    Op("ge", torch.ge, 2, None, NUMERIC, None, True),
    Op("where", lambda c, a, b: torch.where(c > 0, a, b), 3, None, ("f32", "f16", "i64")),
    Op("abs", torch.abs, 1, None, NUMERIC, "abs_", True),
    Op("neg", torch.neg, 1, None, NUMERIC, "neg_", True),
    Op("exp", torch.exp, 1, None, ("f32", "f16"), "exp_", True),
    Op("log", torch.log, 1, None, ("f32", "f16"), "log_", True),
    Op("sqrt", torch.sqrt, 1, None, ("f32", "f16"), "sqrt_", True),
    Op("rsqrt", torch.rsqrt, 1, None, ("f32",), None, True),
    Op("sigmoid", torch.sigmoid, 1, None, ("f32", "f16"), "sigmoid_", True),
    Op("tanh", torch.tanh, 1, None, ("f32", "f16"), "tanh_", True),
    Op("relu", torch.relu, 1, None, ("f32", "f16", "i64"), "relu_"),
    Op("gelu", torch.nn.functional.gelu, 1, None, ("f32",)),
    Op("silu", torch.nn.functional.silu, 1, None, ("f32",)),
    Op("sin", torch.sin, 1, None, ("f32",), "sin_", True),
    Op("floor", torch.floor, 1, None, ("f32", "f16"), "floor_", True),
    Op("sign", torch.sign, 1, None, NUMERIC, None, True),
    Op("clamp", torch.clamp, 1, lambda r, s: {"min": -0.5, "max": r.choice([0.5, 2.0])}, ("f32", "f16", "i64"),
       "clamp_", True),
    Op("pow_scalar", lambda x: torch.pow(x, 2), 1, None, ("f32", "f16", "i64")),
    Op("sum", torch.sum, 1, dim_kw(), ("f32", "f16", "i64"), shapes="one", tol=4.0),
    Op("mean", torch.mean, 1, dim_kw(), ("f32", "f16"), shapes="one", tol=4.0),
    Op("amax", torch.amax, 1, dim_kw(), ("f32", "f16", "i64"), shapes="one"),
    Op("argmax", torch.argmax, 1, dim_kw(), ("f32", "i64"), shapes="one"),
    Op("softmax", torch.softmax, 1, dim_kw(False), ("f32", "f16"), shapes="one"),
    Op("log_softmax", torch.log_softmax, 1, dim_kw(False), ("f32",), shapes="one"),
    Op("cumsum", torch.cumsum, 1, dim_kw(False), ("f32", "i64"), shapes="one", tol=4.0),
    Op("flip", torch.flip, 1, lambda r, s: {"dims": [some_dim(r, s)]}, ALL, shapes="one"),
    Op("roll", torch.roll, 1, lambda r, s: {"shifts": r.randrange(-3, 4), "dims": some_dim(r, s)}, ALL,
       shapes="one"),
    Op("transpose_contiguous", lambda x, dim0, dim1: x.transpose(dim0, dim1).contiguous(), 1,
       lambda r, s: {"dim0": some_dim(r, s), "dim1": some_dim(r, s)}, ALL, shapes="one"),
    Op("cat", lambda a, b, dim: torch.cat([a, b], dim), 2, lambda r, s: {"dim": some_dim(r, s)}, ALL,
       shapes="same"),
    Op("stack", lambda a, b, dim: torch.stack([a, b], dim), 2,
       lambda r, s: {"dim": r.randrange(-len(s) - 1, len(s) + 1)}, ALL, shapes="same"),
    Op("mm", torch.mm, 2, None, ("f32", "f16"), shapes="matmul2", tol=4.0),
    Op("bmm", torch.bmm, 2, None, ("f32",), shapes="matmul3", tol=4.0),
    Op("matmul", torch.matmul, 2, None, ("f32",), shapes="matmul", tol=4.0),
    Op("masked_fill", lambda x, m: x.masked_fill(m > 0, -1.5), 2, None, ("f32", "f16")),
    Op("index_select", lambda x, dim, idx: torch.index_select(x, dim, torch.tensor(idx, device=x.device)), 1,
       # (a 0-d input with no index returns uninitialised memory on the CPU: not drawn)
       lambda r, s: {"dim": some_dim(r, s), "idx": [r.randrange(-1, 4) for _ in range(r.randrange(0 if s else 1, 4))]},
       ALL, shapes="one"),
]


# ---- drawing a case ----------------------------------------------------------------------------

DIMS = [0, 1, 1, 2, 3, 4, 5, 7, 16]
DTYPES = {"f32": torch.float32, "f16": torch.float16, "i64": torch.int64, "i32": torch.int32, "bool": torch.bool}


def draw_shape(rng, rank=None):
    rank = rng.choice([0, 1, 2, 2, 3, 3, 4, 4]) if rank is None else rank
    return [rng.choice(DIMS) for _ in range(rank)]


def broadcast_partner(rng, shape):
    """A shape that broadcasts with `shape` (dims set to 1, leading dims dropped), or with
    probability 0.05 one that does not."""
    if shape and rng.random() < 0.05:
        bad = list(shape)
        i = rng.randrange(len(bad))
        bad[i] = bad[i] + 2 if bad[i] > 1 else 3
        return bad
    other = [1 if rng.random() < 0.3 else d for d in shape]
    drop = rng.randrange(0, len(other) + 1) if rng.random() < 0.3 else 0
    return other[drop:]


def input_shapes(rng, op):
    if op.shapes in ("one", "same"):
        s = draw_shape(rng)
        return [s] * op.arity
    if op.shapes == "matmul2":
        m, k, n = (rng.choice(DIMS) for _ in range(3))
        return [[m, k], [k if rng.random() > 0.05 else k + 1, n]]
    if op.shapes == "matmul3":
        b, m, k, n = (rng.choice(DIMS) for _ in range(4))
        return [[b, m, k], [b, k, n]]
    if op.shapes == "matmul":
        k = rng.choice(DIMS)
        a = draw_shape(rng, rng.randrange(1, 4))[:-1] + [k]
        b = [k] + draw_shape(rng, rng.randrange(0, 2)) if rng.random() < 0.5 else [k]
        if len(a) > 2 and rng.random() < 0.5:
            b = a[:-2] + [k, rng.choice(DIMS)]
        return [a, b]
    first = draw_shape(rng)
    return [first] + [broadcast_partner(rng, first) for _ in range(op.arity - 1)]


def values(rng, shape, dtype):
    g = torch.Generator().manual_seed(rng.randrange(1 << 31))
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < 0.5
    if not dtype.is_floating_point:
        return torch.randint(-5, 6, shape, generator=g, dtype=dtype)
    x = torch.randn(shape, generator=g) * rng.choice([0.5, 1.0, 3.0])
    if rng.random() < 0.05 and x.numel():
        x.view(-1)[0] = rng.choice([0.0, float("inf"), float("nan")])
    return x.to(dtype)


def layout_of(rng, shape):
    """How the input is laid out: 'contiguous', 'slice' (every other element of a larger
    tensor), 'transpose' (the last two dims swapped in storage) or 'expand' (a size-1 dim)."""
    choices = ["contiguous"] * 5 + ["slice"]
    if len(shape) >= 2:
        choices.append("transpose")
    if 1 in shape:
        choices.append("expand")
    return rng.choice(choices)


def make_layout(base, layout, shape):
    """A tensor of `shape` holding base's values, laid out as asked (on base's device)."""
    if layout == "slice":
        big = torch.zeros([d * 2 for d in shape], dtype=base.dtype, device=base.device)
        view = big[tuple(slice(None, None, 2) for _ in shape)] if shape else big
        view.copy_(base)
        return view
    if layout == "transpose":
        return base.transpose(-1, -2).contiguous().transpose(-1, -2)
    if layout == "expand":
        i = shape.index(1)
        return base.expand(*shape[:i], 1, *shape[i + 1:])
    return base


class Case:
    def __init__(self, seed, number):
        self.rng = random.Random(seed * 1_000_003 + number)
        rng = self.rng
        self.number = number
        self.op = rng.choice(OPS)
        self.dtype_name = rng.choice(self.op.dtypes)
        self.shapes = input_shapes(rng, self.op)
        self.kwargs = self.op.kwargs(rng, self.shapes[0])
        self.layouts = [layout_of(rng, s) for s in self.shapes]
        self.formats = [rng.choice([None, None, None, NC1HWC0 if len(s) == 4 else FRACTAL_NZ if len(s) == 2 else None])
                        for s in self.shapes]
        self.form = rng.choice(["functional"] * 6 + (["inplace"] * 2 if self.op.inplace else [])
                               + (["out"] if self.op.out else []))
        dtype = DTYPES[self.dtype_name]
        self.inputs = [values(rng, s, dtype) for s in self.shapes]

    def describe(self):
        parts = [f"{self.op.name}[{self.form}] {self.dtype_name}"]
        for s, lay, fmt in zip(self.shapes, self.layouts, self.formats):
            parts.append(f"{list(s)}:{lay}" + (f":fmt{fmt}" if fmt is not None else ""))
        if self.kwargs:
            parts.append(str(self.kwargs))
        return f"case {self.number}: " + " ".join(parts)

    def tensors(self, device):
        out = []
        for x, s, lay, fmt in zip(self.inputs, self.shapes, self.layouts, self.formats):
            if device.type == "cpu" and x.dtype == torch.float16:
                x = x.float()  # the reference computes fp16 cases in fp32
            t = make_layout(x.to(device, copy=True), lay, list(s))  # in-place forms must not touch the case
            if device.type == "npu" and fmt is not None and lay == "contiguous" and x.dtype.is_floating_point:
                t = torch_npu.npu_format_cast(t, fmt)
            out.append(t)
        return out

    def call(self, device):
        args = self.tensors(device)
        if self.form == "inplace":
            target = args[0].clone() if self.layouts[0] == "expand" else args[0]
            getattr(target, self.op.inplace)(*args[1:], **self.kwargs)
            return target
        if self.form == "out":
            result = self.op.fn(*args, **self.kwargs)  # for the out tensor's dtype and shape
            out = torch.empty(0, dtype=result.dtype, device=device)
            return self.op.fn(*args, **self.kwargs, out=out)
        return self.op.fn(*args, **self.kwargs)


# ---- judging -------------------------------------------------------------------------------------

def tolerance(case, ref):
    if case.dtype_name == "f16":
        return 2e-3 * case.op.tol, 2e-3 * case.op.tol
    reduced = 1
    if case.op.tol > 1 and "dim" in case.kwargs and case.shapes[0]:  # a reduction along dim
        reduced = case.shapes[0][case.kwargs["dim"]]
    elif case.op.shapes.startswith("matmul"):
        reduced = case.shapes[0][-1]
    return 1.3e-5 * case.op.tol, 1e-5 * case.op.tol * max(1.0, math.sqrt(reduced))


def judge(case):
    """None when the NPU agrees with the CPU, else a one-line reason."""
    try:
        ref = case.call(torch.device("cpu"))
        cpu_error = None
    except Exception as e:  # noqa: BLE001 - any error of the CPU is the expected outcome
        ref, cpu_error = None, e
    try:
        got = case.call(NPU)
        torch.npu.synchronize()  # an error of the device belongs to this case (an empty .cpu() does not wait)
        got = got.cpu() if isinstance(got, torch.Tensor) else got
        npu_error = None
    except Exception as e:  # noqa: BLE001
        got, npu_error = None, e
    if cpu_error and npu_error:
        # An index the device finds out of range while the op runs is a RuntimeError (as on CUDA).
        device_index_error = isinstance(cpu_error, IndexError) and "out of range" in str(npu_error)
        if type(cpu_error) is not type(npu_error) and not device_index_error and not (
                isinstance(cpu_error, RuntimeError) and isinstance(npu_error, RuntimeError)):
            return f"different error: cpu {type(cpu_error).__name__}, npu {type(npu_error).__name__}: {npu_error}"
        return None
    if cpu_error:
        return f"only cpu raised: {type(cpu_error).__name__}: {str(cpu_error).splitlines()[0][:200]}"
    if npu_error:
        return f"only npu raised: {type(npu_error).__name__}: {str(npu_error).splitlines()[0][:200]}"
    if case.dtype_name == "f16" and ref.dtype == torch.float32:
        ref = ref.half()  # the reference computed in fp32, rounded as the NPU's fp16 result is
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return f"mismatch: npu {got.dtype}{list(got.shape)}, cpu {ref.dtype}{list(ref.shape)}"
    if ref.dtype.is_floating_point:
        rtol, atol = tolerance(case, ref)
        close = torch.isclose(got.double(), ref.double(), rtol=rtol, atol=atol, equal_nan=True)
        if ref.dtype == torch.float16 and SATURATING_FP16:
            # The 910A's saturation mode: fp16 results computed as ±inf are ±65504, NaN is 0
            # (docs/simulated_device.md); data moved without computing keeps inf and NaN.
            saturated = ref.nan_to_num(nan=0.0, posinf=65504.0, neginf=-65504.0)
            close |= torch.isclose(got.double(), saturated.double(), rtol=rtol, atol=atol)
        ok = bool(close.all())
    else:
        ok = torch.equal(got, ref)
    if not ok:
        diff = (got.double() - ref.double()).abs().nan_to_num(nan=float("inf"))
        return f"mismatch: max |npu - cpu| = {diff.max().item():.3g}"
    return None


def run(seed, cases, first=0, progress=None, verbose=False, out=print):
    failures = []
    for n in range(first, first + cases):
        case = Case(seed, n)
        if progress:
            with open(progress, "w") as f:
                f.write(case.describe() + "\n")
        if verbose:
            out(case.describe())
        try:
            why = judge(case)
        except Exception:  # noqa: BLE001 - the harness itself failed: report, do not stop
            why = "harness error: " + traceback.format_exc().splitlines()[-1]
        if why:
            failures.append((case.describe(), why))
            out(f"FAIL {case.describe()}\n     {why}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--case", type=int, help="replay only this case")
    ap.add_argument("--progress", help="file that holds the case being run (to name a crash)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})
    first, count = (args.case, 1) if args.case is not None else (0, args.cases)
    failures = run(args.seed, count, first, args.progress, args.verbose)
    print(f"{count} cases (seed {args.seed}), {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
