"""Tensor factories and small utilities used by torch_npu's per-op tests.

The usual pattern of a per-op test::

    cpu_input, npu_input = create_common_tensor([np.float16, 3, (2, 3, 4, 5)], -1, 1)

gives the same random values on the CPU and on the NPU, the NPU copy stored in
the requested ACL format (0 NCHW, 2 ND, 3 NC1HWC0, 4 FRACTAL_Z, 29 FRACTAL_NZ;
-1 keeps the default format).
"""
import os
import sys
import tempfile
import warnings
from contextlib import contextmanager
from itertools import product

import numpy as np
import torch

import torch_npu

IS_WINDOWS = sys.platform == "win32"


def get_npu_device():
    """The device the tests run on: "npu:<SET_NPU_DEVICE>" or "npu:0"."""
    index = os.environ.get("SET_NPU_DEVICE")
    return "npu:0" if index is None else f"npu:{index}"


def set_npu_device():
    """Makes the test device current and returns its name."""
    device = get_npu_device()
    torch.npu.set_device(device)
    return device


def is_iterable(obj):
    """True if iter(obj) works."""
    try:
        iter(obj)
    except TypeError:
        return False
    return True


def iter_indices(tensor):
    """Every index tuple of a tensor (an empty range for 0-d tensors)."""
    if tensor.dim() == 0:
        return range(0)
    if tensor.dim() == 1:
        return range(tensor.size(0))
    return product(*(range(s) for s in tensor.size()))


@contextmanager
def freeze_rng_state():
    """Restores the CPU random state on exit."""
    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)


@contextmanager
def TemporaryFileName():
    """The name of a temporary file that is removed on exit."""
    handle = tempfile.NamedTemporaryFile(delete=False)
    handle.close()
    try:
        yield handle.name
    finally:
        if os.path.exists(handle.name):
            os.unlink(handle.name)


def _to_device(array, device, npu_format):
    """(cpu tensor, npu tensor) holding `array`; the NPU copy cast to `npu_format` unless it is -1."""
    cpu_tensor = torch.from_numpy(array)
    npu_tensor = torch.from_numpy(array).to(device)
    if npu_format != -1:
        npu_tensor = torch_npu.npu_format_cast(npu_tensor, npu_format)
    return cpu_tensor, npu_tensor


def create_common_tensor(item, minValue, maxValue, device=None):
    """Returns (cpu_tensor, npu_tensor) with the same uniform random values in [minValue, maxValue).

    item = [numpy dtype, npu format (-1 keeps the default), shape]. The values are drawn
    with numpy and converted to the dtype, so an np.float16 item gives float16 tensors on
    both sides (tests that compute the reference in fp32 cast the CPU tensor themselves).
    """
    dtype, npu_format, shape = item[0], item[1], item[2]
    device = device or get_npu_device()
    array = np.random.uniform(minValue, maxValue, shape).astype(dtype)
    return _to_device(array, device, npu_format)


def create_dtype_tensor(shape, dtype, npu_format=-1, min_value=-5, max_value=5, no_zero=False, device=None):
    """Returns (cpu_tensor, npu_tensor) of a torch dtype.

    bool: random True/False; half/float: uniform in [min_value, max_value);
    any other dtype: int32 integers in [min_value, max_value]. no_zero replaces zeros by
    ones. The format cast applies to floating tensors only.
    """
    device = device or get_npu_device()
    if dtype == torch.bool:
        array = np.random.randint(0, 2, size=shape).astype(np.bool_)
    elif dtype == torch.half:
        array = np.random.uniform(min_value, max_value, shape).astype(np.float16)
    elif dtype == torch.float:
        array = np.random.uniform(min_value, max_value, shape).astype(np.float32)
    else:
        array = np.random.randint(min_value, max_value + 1, size=shape).astype(np.int32)
    if no_zero:
        array = np.where(array != 0, array, np.ones_like(array))
    fmt = npu_format if dtype in (torch.float, torch.half) else -1
    return _to_device(array, device, fmt)


def _broadcast_cases(device=None):
    """Pairs of float32 inputs whose shapes broadcast: (cpu_x, cpu_y, npu_x, npu_y)."""
    device = device or get_npu_device()
    for x_shape, y_shape in (((2, 3, 4, 5), (1, 1, 1)), ((2, 3, 4, 5), (4, 5))):
        x = np.random.rand(*x_shape).astype(np.float32)
        y = np.random.rand(*y_shape).astype(np.float32)
        yield (torch.from_numpy(x), torch.from_numpy(y),
               torch.from_numpy(x).to(device), torch.from_numpy(y).to(device))


def test_2args_broadcast(fn):
    """Runs fn(x, y) on broadcasting input pairs on both devices; returns [[cpu_out, npu_out], ...] as numpy."""
    return [[fn(cx, cy).numpy(), fn(nx, ny).to("cpu").numpy()] for cx, cy, nx, ny in _broadcast_cases()]


# Not a pytest test, even when a test module imports it by name.
test_2args_broadcast.__test__ = False


def _strip_namespace(name):
    """'aten::add' -> 'add'."""
    return name.split("::")[-1]


def _ran_operator_names(prof):
    """The names of the operators recorded in `prof`, or None if it is not a known kind of record.

    prof may be
      * a torch.autograd.profiler result (anything with key_averages()): its event keys, e.g.
        "aten::add", plus the same names without their namespace ("add");
      * a torch.npu.op_records context object (anything with .records) or a list of
        torch.npu.OpRecord, e.g. torch.npu.get_op_records(): the simulator op types
        ("Add", "MatMul", "TransData", ...).
    """
    if hasattr(prof, "key_averages"):
        keys = [event.key for event in prof.key_averages()]
        return set(keys) | {_strip_namespace(k) for k in keys}
    records = getattr(prof, "records", prof)
    if is_iterable(records):
        return {getattr(r, "op_type", r) for r in records}
    return None


def check_operators_in_prof(expected_operators, prof, unexpected_operators=None):
    """True if every expected operator ran and none of the unexpected ones did.

    This backend has no NPU-side autograd profiler events, so besides a
    torch.autograd.profiler result (which records the aten ops dispatched to the
    NPU, e.g. "aten::mm" or just "mm") it accepts the simulator's op records:
    a torch.npu.op_records() context object or the list returned by
    torch.npu.get_op_records(), whose names are the device op types ("MatMul",
    "TransData", ...). An empty record warns and returns False.
    expected_operators is not modified.
    """
    names = _ran_operator_names(prof)
    if not names:
        warnings.warn("check_operators_in_prof: the profile is empty, was the code run inside it?")
        return False
    if any(op in names for op in (unexpected_operators or [])):
        return False
    return all(op in names for op in expected_operators)
