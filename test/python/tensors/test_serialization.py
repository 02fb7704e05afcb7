"""torch.save / torch.load of NPU tensors and modules."""
import copy
import io

import pytest

import torch


def _roundtrip(obj, **load_kwargs):
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return torch.load(buffer, **load_kwargs)


def test_tensor_roundtrip_stays_on_npu():
    x = torch.randn(5, 7).npu()
    y = _roundtrip(x)
    assert y.device == torch.device("npu:0") and torch.equal(y.cpu(), x.cpu())


def test_map_location_cpu_and_npu():
    x = torch.arange(10, dtype=torch.int64).npu()
    assert _roundtrip(x, map_location="cpu").device.type == "cpu"
    assert torch.equal(_roundtrip(x, map_location="cpu"), x.cpu())
    z = _roundtrip(torch.ones(3), map_location="npu:1")
    assert z.device == torch.device("npu:1") and z.cpu().tolist() == [1, 1, 1]


def test_views_share_storage_after_load():
    base = torch.arange(12.0).npu()
    a, b = _roundtrip([base, base.view(3, 4).t()])
    assert torch.equal(b.cpu(), torch.arange(12.0).view(3, 4).t())
    a.add_(1)
    assert torch.equal(b.cpu(), torch.arange(1, 13.0).view(3, 4).t())


def test_state_dict_loads_into_cpu_model():
    model = torch.nn.Linear(4, 3).npu()
    state = _roundtrip(model.state_dict(), map_location="cpu")
    cpu_model = torch.nn.Linear(4, 3)
    cpu_model.load_state_dict(state)
    assert torch.equal(cpu_model.weight, model.weight.cpu())


def test_file_roundtrip(tmp_path):
    path = tmp_path / "x.pt"
    x = torch.randn(3).half().npu()
    torch.save({"x": x}, path)
    assert torch.equal(torch.load(path)["x"].cpu(), x.cpu())


def test_deepcopy_of_npu_module():
    import copy
    model = torch.nn.Linear(4, 3).npu()
    clone = copy.deepcopy(model)
    assert clone.weight.device == torch.device("npu:0")
    assert torch.equal(clone.weight.cpu(), model.weight.cpu())
    with torch.no_grad():
        clone.weight.add_(1)
    assert not torch.equal(clone.weight.cpu(), model.weight.cpu())


def test_deepcopy_of_plain_npu_tensors_and_state_dicts():
    model = torch.nn.Linear(4, 3).npu()
    state = model.state_dict()
    copied = copy.deepcopy(state)
    for name, value in state.items():
        assert copied[name].device == value.device and torch.equal(copied[name].cpu(), value.cpu())
        assert copied[name].data_ptr() != value.data_ptr()
    t = torch.randn(5, device="npu", requires_grad=True)
    t.grad = torch.ones(5, device="npu")
    c = copy.deepcopy(t)
    assert c.requires_grad and torch.equal(c.grad.cpu(), t.grad.cpu())
    pair = copy.deepcopy([t, t])
    assert pair[0] is pair[1]  # the memo keeps identity
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(t * 2)
