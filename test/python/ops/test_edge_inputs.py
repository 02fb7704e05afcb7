"""Edge inputs behave as on the CPU or raise a clear error — never kill the process.

Empty and 0-d tensors, non-contiguous views, broadcasting, type promotion and
integer division by zero, over a table of ops from every family (the OpInfo
conformance suite covers each op's own samples; this sweeps the shapes).
"""
import pytest
import torch

OPS = {
    "add": lambda a, b: a + b,
    "mul_scalar": lambda a, b: a * 2.5,
    "div": lambda a, b: a / b,
    "floor_divide": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "maximum": torch.maximum,
    "eq": torch.eq,
    "where": lambda a, b: torch.where(a > 0, a, b),
    "exp": lambda a, b: torch.exp(a),
    "neg": lambda a, b: -a,
    "clamp": lambda a, b: torch.clamp(a, -0.5, 0.5),
    "sum": lambda a, b: a.sum(),
    "sum_dim": lambda a, b: a.sum(-1) if a.dim() else a.sum(),
    "mean": lambda a, b: a.mean(),
    "amax": lambda a, b: a.amax() if a.numel() else a.sum(),
    "softmax": lambda a, b: torch.softmax(a, -1) if a.dim() else torch.softmax(a, 0),
    "cat": lambda a, b: torch.cat([a.reshape(-1), b.reshape(-1)]),
    "mm": lambda a, b: a.reshape(-1, 1) @ b.reshape(1, -1),
    "triu": lambda a, b: torch.triu(a.reshape(a.numel(), 1).expand(-1, 2)),
    "layer_norm": lambda a, b: torch.nn.functional.layer_norm(a.reshape(-1, 1), (1,)),
    "clone_t": lambda a, b: a.t().contiguous() if a.dim() <= 2 else a.transpose(0, 1).contiguous(),
}

SHAPES = {
    "0-d": ((), ()),
    "empty": ((0,), (0,)),
    "empty-2d": ((3, 0), (3, 0)),
    "broadcast": ((4, 1), (1, 5)),
    "scalar-broadcast": ((2, 3), ()),
    "non-contiguous": ((3, 4), (3, 4)),
}


def _pair(name, shape_a, shape_b, dtype):
    torch.manual_seed(0)
    make = (lambda s: torch.randn(s).to(dtype)) if dtype.is_floating_point else \
        (lambda s: torch.randint(-5, 6, s, dtype=dtype))
    a, b = make(shape_a), make(shape_b)
    if name == "non-contiguous":
        a, b = make((4, 3)).t(), make((4, 3)).t()
    return a, b


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("op", sorted(OPS))
def test_edge_shapes_match_the_cpu_or_raise_like_it(op, shape, npu):
    fn = OPS[op]
    for dtype in (torch.float32, torch.int64):
        if dtype == torch.int64 and op in ("exp", "softmax", "mean", "mm", "layer_norm", "div"):
            continue
        a, b = _pair(shape, *SHAPES[shape], dtype)
        try:
            expected = fn(a, b)
        except Exception:  # the CPU rejects it: the NPU must raise too, not crash
            with pytest.raises(Exception):
                fn(a.to(npu), b.to(npu))
                torch.npu.synchronize()
            continue
        actual = fn(a.to(npu), b.to(npu))
        # (layer_norm of one element: the NPU's exact 0 against the CPU's ~1e-5 rounding residue)
        torch.testing.assert_close(actual.cpu(), expected, rtol=1e-4, atol=1e-4, equal_nan=True)


def test_type_promotion_matches_the_cpu(npu):
    cases = [(torch.int32, torch.float16), (torch.int64, torch.float32), (torch.uint8, torch.int8),
             (torch.bool, torch.int32), (torch.float16, torch.float32), (torch.int16, torch.int64)]
    for left, right in cases:
        a = torch.tensor([1, 2, 3]).to(left)
        b = torch.tensor([3, 0, 1]).to(right)
        for fn in (torch.add, torch.mul, torch.maximum, torch.eq):
            expected = fn(a, b)
            actual = fn(a.to(npu), b.to(npu))
            assert actual.dtype == expected.dtype, (fn, left, right)
            torch.testing.assert_close(actual.cpu(), expected)
        # Python scalars do not promote an integer tensor past its category, as on the CPU.
        assert (a.to(npu) + 1).dtype == (a + 1).dtype
        assert (a.to(npu) * 1.5).dtype == (a * 1.5).dtype


def test_integer_division_by_zero_raises_instead_of_crashing(npu):
    a, zero = torch.tensor([7, -7, 0]), torch.tensor([0, 2, 1])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        torch.div(a, zero, rounding_mode="floor")
    with pytest.raises(RuntimeError, match="division by zero"):
        torch.div(a.to(npu), zero.to(npu), rounding_mode="floor").cpu()
    # The device is usable afterwards; float division by zero gives inf/nan as on the CPU.
    torch.testing.assert_close((a.to(npu) // 3).cpu(), a // 3)
    torch.testing.assert_close((a.float().to(npu) / zero.float().to(npu)).cpu(), a.float() / zero.float(),
                               equal_nan=True)
