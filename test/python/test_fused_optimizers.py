"""torch_npu.optim's fused optimizers (Note [Combined parameters]) against torch.optim."""
import copy

import pytest
import torch

import torch_npu


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(24, 48), torch.nn.Tanh(), torch.nn.Linear(48, 48), torch.nn.Tanh(),
                               torch.nn.Linear(48, 5)).npu()


def _train(model, optimizer, steps=10, set_to_none=False):
    g = torch.Generator().manual_seed(3)
    for _ in range(steps):
        x, y = torch.randn(16, 24, generator=g).npu(), torch.randn(16, 5, generator=g).npu()
        optimizer.zero_grad(set_to_none=set_to_none)
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    return [p.detach().cpu() for p in model.parameters()]


CASES = [
    (torch_npu.optim.NpuFusedSGD, torch.optim.SGD, dict(lr=0.1)),
    (torch_npu.optim.NpuFusedSGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=1e-3)),
    (torch_npu.optim.NpuFusedSGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (torch_npu.optim.NpuFusedAdam, torch.optim.Adam, dict(lr=1e-2, weight_decay=1e-2)),
    (torch_npu.optim.NpuFusedAdamW, torch.optim.AdamW, dict(lr=1e-2, weight_decay=5e-2)),
]


@pytest.mark.parametrize("fused,reference,kwargs", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_matches_torch_optim_over_ten_steps(fused, reference, kwargs):
    a, b = _model(), _model()
    got = _train(a, fused(a.parameters(), **kwargs))
    want = _train(b, reference(b.parameters(), foreach=False, **kwargs))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)


def test_one_kernel_per_step_and_lower_simulated_time():
    def step_records(optimizer_factory):
        model = _model()
        optimizer = optimizer_factory(model.parameters())
        _train(model, optimizer, steps=1)
        torch.nn.functional.mse_loss(model(torch.randn(16, 24).npu()), torch.randn(16, 5).npu()).backward()
        with torch.npu.op_records() as rec:
            optimizer.step()
        return rec.records

    fused = step_records(lambda p: torch_npu.optim.NpuFusedAdamW(p, lr=1e-3))
    loop = step_records(lambda p: torch.optim.AdamW(p, lr=1e-3, foreach=False))
    assert [r.op_type for r in fused] == ["ApplyAdamW"]
    assert len(loop) >= 3 * len(fused) * 6  # 6 parameters, several ops each
    assert sum(r.duration_us for r in fused) < sum(r.duration_us for r in loop)


def test_state_dict_round_trip_and_zero_grad():
    model = _model()
    optimizer = torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-2)
    _train(model, optimizer, steps=3)
    state = copy.deepcopy(optimizer.state_dict())
    assert set(state["state"][0]) == {"exp_avg", "exp_avg_sq", "step"} and float(state["state"][0]["step"]) == 3
    twin = copy.deepcopy(model)
    twin_opt = torch_npu.optim.NpuFusedAdamW(twin.parameters(), lr=1e-2)
    twin_opt.load_state_dict(state)
    got, want = _train(twin, twin_opt, steps=2), _train(model, optimizer, steps=2)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)
    optimizer.zero_grad()
    assert all(p.grad is not None and not p.grad.cpu().any() for p in model.parameters())


def test_bad_arguments():
    with pytest.raises(ValueError, match="dampening=0 only"):
        torch_npu.optim.NpuFusedSGD(_model().parameters(), lr=0.1, momentum=0.9, dampening=0.1)
    with pytest.raises(ValueError, match="amsgrad"):
        torch_npu.optim.NpuFusedAdam(_model().parameters(), amsgrad=True)
    cpu = torch.nn.Linear(2, 2)
    optimizer = torch_npu.optim.NpuFusedSGD(cpu.parameters(), lr=0.1)
    cpu(torch.randn(1, 2)).sum().backward()
    with pytest.raises(ValueError, match="step NPU parameters"):
        optimizer.step()


def test_private_format_parameters_step_in_place_without_transdata():
    def conv_model():
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                                   torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 4)).npu()

    def train(model, optimizer):
        g = torch.Generator().manual_seed(5)
        for _ in range(10):
            x, y = torch.randn(4, 3, 8, 8, generator=g).npu(), torch.randn(4, 4, generator=g).npu()
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            with torch.npu.op_records() as rec:
                optimizer.step()
        return [p.detach().cpu() for p in model.parameters()], rec.records

    a, b = conv_model(), conv_model()
    assert torch_npu.get_npu_format(a[0].weight) != 2  # stored in a private format
    got, records = train(a, torch_npu.optim.NpuFusedAdamW(a.parameters(), lr=1e-2))
    want, _ = train(b, torch.optim.AdamW(b.parameters(), lr=1e-2, foreach=False))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)
    assert "TransData" not in [r.op_type for r in records]


@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_clip_grad_norm_fused_matches_clip_grad_norm(norm_type):
    a, b = _model(), _model()
    fused = torch_npu.optim.NpuFusedSGD(a.parameters(), lr=0.1, momentum=0.9)
    reference = torch.optim.SGD(b.parameters(), lr=0.1, momentum=0.9, foreach=False)
    _train(a, fused, steps=1)  # the first step combines the buffers
    _train(b, reference, steps=1)
    x, y = torch.randn(16, 24).npu(), torch.randn(16, 5).npu()
    for model, optimizer in ((a, fused), (b, reference)):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x) * 50, y).backward()
    total = fused.clip_grad_norm_fused_(1.0, norm_type)
    want = torch.nn.utils.clip_grad_norm_(b.parameters(), 1.0, norm_type)
    assert float(want) > 1.0  # the clip does something
    torch.testing.assert_close(total.cpu(), want.cpu(), rtol=1e-5, atol=1e-6)
    for p, q in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(p.grad.cpu(), q.grad.cpu(), rtol=1e-5, atol=1e-7)
