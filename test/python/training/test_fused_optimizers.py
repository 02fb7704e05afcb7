"""torch_npu.optim's fused optimizers (Note [Combined parameters]) against torch.optim."""
import copy
import io

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


def _records_of_one_step(optimizer_factory):
    """The device tasks of one optimizer step (after a first step, which combines the buffers)."""
    model = _model()
    optimizer = optimizer_factory(model.parameters())
    _train(model, optimizer, steps=1)
    torch.nn.functional.mse_loss(model(torch.randn(16, 24).npu()), torch.randn(16, 5).npu()).backward()
    with torch.npu.op_records() as rec:
        optimizer.step()
    return rec.records


CASES = [
    (torch_npu.optim.NpuFusedSGD, torch.optim.SGD, dict(lr=0.1)),
    (torch_npu.optim.NpuFusedSGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9, weight_decay=1e-3)),
    (torch_npu.optim.NpuFusedSGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (torch_npu.optim.NpuFusedAdam, torch.optim.Adam, dict(lr=1e-2, weight_decay=1e-2)),
    (torch_npu.optim.NpuFusedAdamW, torch.optim.AdamW, dict(lr=1e-2, weight_decay=5e-2)),
    (torch_npu.optim.NpuFusedRMSprop, torch.optim.RMSprop, dict(lr=1e-2)),
    (torch_npu.optim.NpuFusedRMSprop, torch.optim.RMSprop, dict(lr=1e-2, momentum=0.9, weight_decay=1e-2)),
    (torch_npu.optim.NpuFusedRMSprop, torch.optim.RMSprop, dict(lr=1e-2, momentum=0.5, centered=True)),
    (torch_npu.optim.NpuFusedAdadelta, torch.optim.Adadelta, dict(lr=1.0)),
    (torch_npu.optim.NpuFusedAdadelta, torch.optim.Adadelta, dict(lr=0.5, rho=0.8, weight_decay=1e-2)),
]


class ReferenceLamb(torch.optim.Optimizer):
    """LAMB per tensor with torch ops, as torch_npu's (unfused) reference computes it."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0, adam=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, adam=adam))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                if not state:
                    state["exp_avg"], state["exp_avg_sq"] = torch.zeros_like(p), torch.zeros_like(p)
                beta1, beta2 = group["betas"]
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                weight_norm = float(p.pow(2).sum().sqrt().clamp(0, 10))
                adam_step = state["exp_avg"] / state["exp_avg_sq"].sqrt().add(group["eps"])
                if group["weight_decay"] != 0:
                    adam_step.add_(p, alpha=group["weight_decay"])
                adam_norm = float(adam_step.pow(2).sum().sqrt())
                trust = 1.0 if group["adam"] or weight_norm == 0 or adam_norm == 0 else weight_norm / adam_norm
                p.add_(adam_step, alpha=-group["lr"] * trust)


class ReferenceBertAdam(torch.optim.Optimizer):
    """BertAdam per tensor (NVIDIA's BERT example), with the group's gradients clipped jointly."""

    def __init__(self, params, lr, warmup=-1, t_total=-1, schedule="warmup_linear", b1=0.9, b2=0.999, e=1e-6,
                 weight_decay=0.01, max_grad_norm=1.0):
        super().__init__(params, dict(lr=lr, warmup=warmup, t_total=t_total, schedule=schedule, b1=b1, b2=b2, e=e,
                                      weight_decay=weight_decay, max_grad_norm=max_grad_norm))

    @torch.no_grad()
    def step(self):
        from torch_npu.optim.fused_bert_adam import SCHEDULES
        for group in self.param_groups:
            if group["max_grad_norm"] > 0:
                torch.nn.utils.clip_grad_norm_(group["params"], group["max_grad_norm"])
            for p in group["params"]:
                state = self.state[p]
                if not state:
                    state["step"], state["next_m"], state["next_v"] = 0, torch.zeros_like(p), torch.zeros_like(p)
                state["next_m"].mul_(group["b1"]).add_(p.grad, alpha=1 - group["b1"])
                state["next_v"].mul_(group["b2"]).addcmul_(p.grad, p.grad, value=1 - group["b2"])
                update = state["next_m"] / (state["next_v"].sqrt() + group["e"])
                if group["weight_decay"] > 0.0:
                    update += group["weight_decay"] * p
                lr = group["lr"]
                if group["t_total"] != -1:
                    lr *= SCHEDULES[group["schedule"]](state["step"] / group["t_total"], group["warmup"])
                p.add_(-lr * update)
                state["step"] += 1


REFERENCE_CASES = [
    (torch_npu.optim.NpuFusedLamb, ReferenceLamb, dict(lr=1e-2)),
    (torch_npu.optim.NpuFusedLamb, ReferenceLamb, dict(lr=1e-2, weight_decay=1e-2, betas=(0.8, 0.99))),
    (torch_npu.optim.NpuFusedLamb, ReferenceLamb, dict(lr=1e-2, adam=True)),
    (torch_npu.optim.NpuFusedBertAdam, ReferenceBertAdam, dict(lr=1e-2)),
    (torch_npu.optim.NpuFusedBertAdam, ReferenceBertAdam,
     dict(lr=1e-2, warmup=0.2, t_total=10, schedule="warmup_linear", max_grad_norm=0.05)),
    (torch_npu.optim.NpuFusedBertAdam, ReferenceBertAdam,
     dict(lr=1e-2, warmup=0.3, t_total=12, schedule="warmup_cosine", max_grad_norm=-1, weight_decay=0)),
]


@pytest.mark.parametrize("fused,reference,kwargs", REFERENCE_CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_lamb_and_bert_adam_match_their_per_tensor_references(fused, reference, kwargs):
    a, b = _model(), _model()
    got = _train(a, fused(a.parameters(), **kwargs))
    want = _train(b, reference(b.parameters(), **kwargs))
    moved = sum(float((g - p.detach().cpu()).abs().max()) for g, p in zip(got, _model().parameters()))
    assert moved > 1e-3  # the optimizer did something
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("factory,kernel", [
    (lambda p: torch_npu.optim.NpuFusedRMSprop(p, lr=1e-3, momentum=0.9), "ApplyRMSProp"),
    (lambda p: torch_npu.optim.NpuFusedRMSprop(p, lr=1e-3, centered=True), "ApplyCenteredRMSProp"),
    (lambda p: torch_npu.optim.NpuFusedAdadelta(p), "ApplyAdadelta"),
    (lambda p: torch_npu.optim.NpuFusedLamb(p), "ApplyLamb"),
    (lambda p: torch_npu.optim.NpuFusedBertAdam(p, lr=1e-3, max_grad_norm=-1), "ApplyAdamW"),
])
def test_each_fused_optimizer_steps_in_one_kernel(factory, kernel):
    assert [r.op_type for r in _records_of_one_step(factory)] == [kernel]


@pytest.mark.parametrize("fused,reference,kwargs", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_matches_torch_optim_over_ten_steps(fused, reference, kwargs):
    a, b = _model(), _model()
    got = _train(a, fused(a.parameters(), **kwargs))
    want = _train(b, reference(b.parameters(), foreach=False, **kwargs))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)


def test_one_kernel_per_step_and_lower_simulated_time():
    fused = _records_of_one_step(lambda p: torch_npu.optim.NpuFusedAdamW(p, lr=1e-3))
    loop = _records_of_one_step(lambda p: torch.optim.AdamW(p, lr=1e-3, foreach=False))
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


@pytest.mark.parametrize("fused,reference", [
    (lambda p: torch_npu.optim.NpuFusedAdamW(p, lr=1e-2), lambda p: torch.optim.AdamW(p, lr=1e-2, foreach=False)),
    (lambda p: torch_npu.optim.NpuFusedRMSprop(p, lr=1e-3, momentum=0.9, centered=True),
     lambda p: torch.optim.RMSprop(p, lr=1e-3, momentum=0.9, centered=True, foreach=False)),
    (lambda p: torch_npu.optim.NpuFusedLamb(p, lr=1e-2, weight_decay=1e-2),
     lambda p: ReferenceLamb(p, lr=1e-2, weight_decay=1e-2)),
], ids=["adamw", "rmsprop", "lamb"])
def test_private_format_parameters_step_in_place_without_transdata(fused, reference):
    def conv_model():  # no conv bias: BN cancels its gradient to rounding noise, which LAMB's ratio amplifies
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, bias=False), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
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
    formats = [torch_npu.get_npu_format(p) for p in a.parameters()]
    assert formats[:3] == [4, 3, 3]  # FRACTAL_Z weight, NC1HWC0 batch-norm parameters
    optimizer = fused(a.parameters())
    got, records = train(a, optimizer)
    want, _ = train(b, reference(b.parameters()))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=1e-6, atol=1e-6)
    kinds = [r.op_type for r in records]
    assert "TransData" not in kinds
    # Note [Combined private formats]: one launch per format's buffer (FRACTAL_Z, NC1HWC0, ND); LAMB keeps
    # private-format parameters apart (its norms must not see pads): one launch each.
    assert len(kinds) == (3 if optimizer.combines_private_formats else 4), kinds
    assert [torch_npu.get_npu_format(p) for p in a.parameters()] == formats  # the formats are kept


def test_combined_private_formats_survive_checkpoints_and_cpu_copies():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, bias=False), torch.nn.BatchNorm2d(8),
                                torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 4)).npu()
    optimizer = torch_npu.optim.NpuFusedSGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(4, 3, 8, 8).npu()
    for _ in range(2):
        optimizer.zero_grad()
        model(x).square().mean().backward()
        optimizer.step()
    weight = model[0].weight
    assert torch_npu.get_npu_format(weight) == 4
    combined = [c for buffers, _ in optimizer._combined for c in buffers]
    assert len(combined) == 3 and sum(c.private for c in combined) == 2
    # The weight's storage aliases the FRACTAL_Z buffer; reading, copying and saving see its values.
    fz = next(c for c in combined if c.private and torch_npu.get_npu_format(c.params[0]) == 4)
    assert fz.params[0] is weight and weight.data_ptr() == fz.param.data_ptr()
    state = {k: v.cpu() for k, v in model.state_dict().items()}
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    buffer.seek(0)
    loaded = torch.load(buffer)
    for k, v in state.items():
        torch.testing.assert_close(loaded[k].cpu(), v)
    torch.testing.assert_close(weight.detach().cpu(), state["0.weight"])
    # A step changes the buffer and so the parameter, seen through a fresh read.
    optimizer.zero_grad()
    model(x).square().mean().backward()
    optimizer.step()
    assert not torch.equal(weight.detach().cpu(), state["0.weight"])


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
