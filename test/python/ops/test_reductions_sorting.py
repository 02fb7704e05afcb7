"""The reduction / scan / sorting / statistics family through its Python entry
points (keyword forms, tuple results, Python-number arguments) against the CPU.
The per-op numerics are covered by the C++ suites (test/cpp/test_*_ops.cpp)."""
import pytest
import torch
import torch_npu  # noqa: F401

g = torch.Generator().manual_seed(0)
X = torch.randn(6, 9, generator=g)
INTS = torch.randint(0, 6, (40,), generator=g)
SEQ = torch.sort(torch.randint(-5, 5, (12,), generator=g).float()).values

CASES = {
    "var_correction": lambda t: torch.var(t, dim=1, correction=0, keepdim=True),
    "std_unbiased": lambda t: t.std(0, unbiased=False),
    "var_mean": lambda t: torch.var_mean(t, dim=(0, 1)),
    "std_mean": lambda t: torch.std_mean(t, 1, correction=2),
    "prod": lambda t: t.prod(1, keepdim=True),
    "nansum": lambda t: torch.nansum(t.masked_fill(t > 1, float("nan")), dim=0),
    "nanmean": lambda t: torch.nanmean(t.masked_fill(t > 1, float("nan"))),
    "count_nonzero": lambda t: torch.count_nonzero(t.clamp(min=0), dim=1),
    "aminmax": lambda t: torch.aminmax(t, dim=0),
    "cumsum": lambda t: torch.cumsum(t, dim=1),
    "cumprod_dtype": lambda t: t.cumprod(0, dtype=torch.float32),
    "cummax": lambda t: torch.cummax(t, 1),
    "logcumsumexp": lambda t: torch.logcumsumexp(t, 0),
    "sort_stable": lambda t: torch.sort(t, dim=0, descending=True, stable=True),
    "argsort": lambda t: torch.argsort(t, dim=1),
    "msort": lambda t: torch.msort(t),
    "kthvalue": lambda t: torch.kthvalue(t, 2, dim=1),
    "median": lambda t: torch.median(t, dim=0),
    "nanmedian": lambda t: t.nanmedian(),
    "mode": lambda t: torch.mode((t > 0).float() - (t < -1).float(), 1),
    "renorm": lambda t: torch.renorm(t, p=2, dim=0, maxnorm=1.0),
    "histc": lambda t: torch.histc(t, bins=5, min=-2, max=2),
    "histogram": lambda t: torch.histogram(t, bins=4, range=(-1.0, 1.0)),
    "trace": lambda t: torch.trace(t),
    "isin_scalar": lambda t: torch.isin((t > 0).float(), 1.0),
    "isin_invert": lambda t: torch.isin(t, t[0], invert=True),
}


def _flatten(r):
    if isinstance(r, torch.Tensor):
        return [r]
    return [t for x in r for t in _flatten(x)]


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_cpu(name):
    fn = CASES[name]
    want = _flatten(fn(X))
    got = _flatten(fn(X.npu()))
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.device.type == "npu"
        torch.testing.assert_close(a.cpu(), b, rtol=1e-4, atol=1e-5)


def test_unique_keyword_forms():
    for kwargs in ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "dim": 0}):
        want = _flatten(torch.unique(INTS, **kwargs))
        got = _flatten(torch.unique(INTS.npu(), **kwargs))
        for a, b in zip(got, want):
            torch.testing.assert_close(a.cpu(), b)
    want = torch.unique_consecutive(INTS, return_counts=True)
    got = torch.unique_consecutive(INTS.npu(), return_counts=True)
    for a, b in zip(got, want):
        torch.testing.assert_close(a.cpu(), b)


def test_bincount_searchsorted_bucketize_equal():
    torch.testing.assert_close(torch.bincount(INTS.npu(), minlength=8).cpu(), torch.bincount(INTS, minlength=8))
    values = torch.tensor([[-6.0, 0.0, 4.5], [1.0, 9.0, -1.0]])
    for side in ("left", "right"):
        torch.testing.assert_close(torch.searchsorted(SEQ.npu(), values.npu(), side=side).cpu(),
                                   torch.searchsorted(SEQ, values, side=side))
    torch.testing.assert_close(torch.searchsorted(SEQ.npu(), 0.5).cpu(), torch.searchsorted(SEQ, 0.5))
    torch.testing.assert_close(torch.bucketize(values.npu(), SEQ.npu(), out_int32=True, right=True).cpu(),
                               torch.bucketize(values, SEQ, out_int32=True, right=True))
    assert torch.equal(X.npu(), X.clone().npu())
    assert not torch.equal(X.npu(), X.neg().npu())


def test_errors_are_pytorchs():
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        torch.var(INTS.npu())
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        torch.kthvalue(X.npu(), 10, dim=1)
    with pytest.raises(RuntimeError, match="bincount only supports 1-d non-negative integral inputs"):
        torch.bincount(INTS.npu() - 3)
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right'"):
        torch.searchsorted(SEQ.npu(), SEQ.npu(), side="middle")
