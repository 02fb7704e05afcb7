"""Pointwise math and activations from Python: the NPU matches the CPU on a
grid of ordinary and special values (NaN, ±inf, ±0), for the Python-level
entry points (torch.*, torch.special.*, torch.nn.functional.*, operators)."""
import math

import pytest
import torch
import torch.nn.functional as F

VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.7, 7.0, -0.3, math.inf, -math.inf, math.nan]

UNARY = {
    "floor": torch.floor, "round_decimals": lambda t: torch.round(t, decimals=1), "frac": torch.frac,
    "erfinv": torch.erfinv, "log1p": torch.log1p, "exp2": torch.exp2, "atanh": torch.atanh, "sinc": torch.sinc,
    "lgamma": torch.lgamma, "digamma": torch.digamma, "polygamma2": lambda t: torch.polygamma(2, t),
    "i0e": torch.special.i0e, "ndtri": torch.special.ndtri, "log_ndtr": torch.special.log_ndtr,
    "erfcx": torch.special.erfcx, "entr": torch.special.entr, "bessel_j0": torch.special.bessel_j0,
    "airy_ai": torch.special.airy_ai, "nan_to_num": torch.nan_to_num, "signbit": torch.signbit,
    "isposinf": torch.isposinf, "logit": lambda t: torch.logit(t, 0.1), "angle": torch.angle,
    "elu": F.elu, "selu": F.selu, "softplus": F.softplus, "mish": F.mish, "hardsigmoid": F.hardsigmoid,
    "softshrink": F.softshrink, "hardshrink": F.hardshrink, "logsigmoid": F.logsigmoid,
    "threshold": lambda t: F.threshold(t, 0.5, -1.0), "hardtanh_crossed": lambda t: F.hardtanh(t, 0.5, -0.5),
}

BINARY = {
    "remainder": torch.remainder, "fmod": torch.fmod, "atan2": torch.atan2, "hypot": torch.hypot,
    "logaddexp": torch.logaddexp, "xlogy": torch.xlogy, "copysign": torch.copysign, "fmax": torch.fmax,
    "heaviside": torch.heaviside, "igammac": torch.igammac, "zeta": torch.special.zeta,
    "div_trunc": lambda a, b: torch.div(a, b, rounding_mode="trunc"), "floor_divide": torch.floor_divide,
    "lerp": lambda a, b: torch.lerp(a, b, 0.25), "clamp_tensor": lambda a, b: torch.clamp(a, b, b + 1),
    "smooth_l1": lambda a, b: F.smooth_l1_loss(a, b, reduction="none", beta=0.5),
    "huber": lambda a, b: F.huber_loss(a, b, reduction="none", delta=0.5),
}


def _grid():
    v = torch.tensor(VALUES)
    return v.repeat_interleave(len(VALUES)), v.repeat(len(VALUES))


def _assert_same(got, want):
    torch.testing.assert_close(got.cpu(), want, rtol=1e-4, atol=1e-5, equal_nan=True)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_matches_cpu(name):
    x = torch.tensor(VALUES)
    _assert_same(UNARY[name](x.npu()), UNARY[name](x))


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_matches_cpu(name):
    a, b = _grid()
    _assert_same(BINARY[name](a.npu(), b.npu()), BINARY[name](a, b))


def test_integer_ops_and_operators():
    a = torch.tensor([7, -7, 13, 0, 100, -100], dtype=torch.int32)
    b = torch.tensor([2, 3, -4, 5, 7, -9], dtype=torch.int32)
    an, bn = a.npu(), b.npu()
    assert torch.equal((an % bn).cpu(), a % b)
    assert torch.equal((an // bn).cpu(), a // b)
    assert torch.equal((an & bn).cpu(), a & b)
    assert torch.equal((an ^ 5).cpu(), a ^ 5)
    assert torch.equal((an << 2).cpu(), a << 2)
    assert torch.equal((an >> bn.abs()).cpu(), a >> b.abs())
    assert torch.equal(torch.gcd(an, bn).cpu(), torch.gcd(a, b))
    assert torch.equal(torch.lcm(an, bn).cpu(), torch.lcm(a, b))
    assert torch.equal((1 - an).cpu(), 1 - a)  # rsub


def test_out_dtype_and_in_place():
    x = torch.rand(4, 5) + 0.1
    out = torch.empty(4, 5, dtype=torch.float16).npu()
    torch.sin(x.npu(), out=out)
    torch.testing.assert_close(out.cpu(), torch.sin(x).half(), rtol=1e-3, atol=1e-3)
    y = x.npu()
    y.digamma_()
    torch.testing.assert_close(y.cpu(), torch.digamma(x), rtol=1e-4, atol=1e-5)
    m, e = torch.frexp(x.npu())
    mc, ec = torch.frexp(x)
    assert torch.equal(m.cpu(), mc) and torch.equal(e.cpu(), ec)


def test_gradients_flow():
    x = torch.randn(6, 4)
    xn = x.npu().requires_grad_()
    xc = x.clone().requires_grad_()
    for t in (xn, xc):
        (F.elu(t) + F.softplus(t) + F.mish(t) + torch.erfinv(torch.tanh(t) * 0.9) + F.glu(t, 1).sum()).sum().backward()
    torch.testing.assert_close(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-5)


def test_clear_errors():
    x = torch.randn(3).npu()
    with pytest.raises(RuntimeError, match="negative n"):
        torch.polygamma(-1, x)
    with pytest.raises(RuntimeError, match="integer"):
        torch.bitwise_and(x, x)
    with pytest.raises(RuntimeError, match="inconsistent target size"):
        F.multi_margin_loss(x.reshape(1, 3), torch.tensor([1, 2]).npu())
