"""Moving tensors and modules to the NPU, and factory functions with device='npu'."""
import pytest
import torch

from conftest import assert_close


@pytest.mark.parametrize("factory", [
    lambda d: torch.tensor([1.0, 2.0], device=d),
    lambda d: torch.zeros(2, 3, device=d),
    lambda d: torch.ones(2, 3, device=d),
    lambda d: torch.empty(2, 3, device=d),
    lambda d: torch.randn(2, 3, device=d),
    lambda d: torch.rand(2, 3, device=d),
    lambda d: torch.full((2, 3), 7.0, device=d),
    lambda d: torch.arange(0, 10, 3, device=d),
])
def test_factories_accept_npu(factory):
    for spec in ("npu", "npu:0", torch.device("npu")):
        assert factory(spec).device == torch.device("npu:0")


def test_factory_values():
    assert torch.zeros(2, 3, device="npu").cpu().eq(0).all()
    assert torch.full((2, 2), 7.0, device="npu").cpu().eq(7).all()
    assert torch.arange(0, 10, 3, device="npu").cpu().tolist() == [0, 3, 6, 9]
    assert torch.arange(0, 1, 0.25, device="npu").cpu().tolist() == [0, 0.25, 0.5, 0.75]
    r = torch.rand(1000, device="npu").cpu()
    assert 0 <= r.min() and r.max() < 1 and abs(r.mean() - 0.5) < 0.05


def test_tensor_moves():
    x = torch.randn(3, 4)
    for moved in (x.npu(), x.npu(0), x.to("npu:0"), x.to(torch.device("npu")), x.to("npu")):
        assert moved.device == torch.device("npu:0")
        assert torch.equal(moved.cpu(), x)
    assert x.npu(1).device == torch.device("npu:1")
    assert x.to("npu", dtype=torch.float16).dtype == torch.float16


def test_legacy_tensor_types():
    t = torch.npu.FloatTensor([1, 2])
    assert t.device.type == "npu" and t.dtype == torch.float32 and t.cpu().tolist() == [1.0, 2.0]
    assert isinstance(t, torch.npu.FloatTensor) and not isinstance(t, torch.npu.LongTensor)
    assert torch.npu.LongTensor(2, 3).shape == (2, 3)


def test_module_moves():
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU())
    for moved in (model.npu(), model.to("npu:0")):
        assert all(p.device == torch.device("npu:0") for p in moved.parameters())
    x = torch.randn(5, 3)
    cpu_out = model.cpu()(x)
    assert_close(model.npu()(x.npu()), cpu_out)
