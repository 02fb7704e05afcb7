"""Training steps on the NPU match the CPU: Linear + ReLU, MSE and cross-entropy, SGD with momentum."""
import copy

import pytest
import torch

from conftest import REPO_ROOT


def _train(model, criterion, data, device, steps=5, **sgd):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, **sgd)
    losses = []
    for x, y in data[:steps]:
        opt.zero_grad()
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, model


def _data(classes, regression=False, n=8):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        x = torch.randn(13, 7, generator=g)
        y = torch.randn(13, classes, generator=g) if regression else torch.randint(0, classes, (13,), generator=g)
        out.append((x, y))
    return out


@pytest.mark.parametrize("criterion,regression", [(torch.nn.MSELoss(), True), (torch.nn.CrossEntropyLoss(), False),
                                                  (torch.nn.CrossEntropyLoss(label_smoothing=0.1), False)])
@pytest.mark.parametrize("sgd", [{}, {"momentum": 0.9}, {"momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}])
def test_npu_training_matches_cpu(criterion, regression, sgd):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(7, 19), torch.nn.ReLU(), torch.nn.Linear(19, 3))
    data = _data(3, regression)
    cpu_losses, cpu_model = _train(copy.deepcopy(model), criterion, data, "cpu", **sgd)
    npu_losses, npu_model = _train(copy.deepcopy(model), criterion, data, "npu:0", **sgd)
    assert npu_losses == pytest.approx(cpu_losses, rel=1e-4)
    for p_cpu, p_npu in zip(cpu_model.parameters(), npu_model.parameters()):
        torch.testing.assert_close(p_npu.cpu(), p_cpu, rtol=1e-4, atol=1e-5)


def test_loss_goes_down():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(7, 32), torch.nn.ReLU(), torch.nn.Linear(32, 3))
    x, y = _data(3)[0]
    losses, _ = _train(model, torch.nn.CrossEntropyLoss(), [(x, y)] * 20, "npu:0", steps=20, momentum=0.9)
    assert losses[-1] < losses[0] * 0.5


@pytest.mark.parametrize("foreach", [False, True])
def test_sgd_with_zero_grad_set_to_none_matches_cpu(foreach):
    """SGD (momentum, nesterov, weight decay) with grads set to None between steps: the same
    parameters and momentum buffers as the CPU after every step, for the per-tensor and the
    foreach (multi-tensor) implementation."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.Tanh(), torch.nn.Linear(7, 2))
    g = torch.Generator().manual_seed(1)
    batches = [torch.randn(4, 5, generator=g) for _ in range(4)]
    runs = {}
    for device in ("cpu", "npu:0"):
        m = copy.deepcopy(model).to(device)
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-2,
                              foreach=foreach)
        steps = []
        for x in batches:
            opt.zero_grad(set_to_none=True)
            assert all(p.grad is None for p in m.parameters())
            m(x.to(device)).pow(2).mean().backward()
            opt.step()
            steps.append([p.detach().cpu().clone() for p in m.parameters()] +
                         [opt.state[p]["momentum_buffer"].cpu().clone() for p in m.parameters()])
        assert all(p.device.type == torch.device(device).type for p in m.parameters())
        runs[device] = steps
    for cpu_step, npu_step in zip(runs["cpu"], runs["npu:0"]):
        for c, n in zip(cpu_step, npu_step):
            torch.testing.assert_close(n, c, rtol=1e-5, atol=1e-6)
    assert not torch.equal(runs["npu:0"][-1][0], model[0].weight.detach())  # the steps did move the weights


def test_demo_script_runs():
    import subprocess
    import os
    result = subprocess.run(["/usr/bin/python3", os.path.join(REPO_ROOT, "examples", "train_demo.py"), "--steps", "12"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "simulated NPU time" in result.stdout


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_label_smoothing_matches_cpu(reduction):
    g = torch.Generator().manual_seed(3)
    logits = torch.randn(6, 5, generator=g)
    target = torch.tensor([0, 4, 2, -100, 1, 3])
    weight = torch.rand(5, generator=g) + 0.5
    x_cpu = logits.clone().requires_grad_()
    x_npu = logits.npu().requires_grad_()
    kwargs = dict(weight=weight, label_smoothing=0.2, reduction=reduction)
    loss_cpu = torch.nn.functional.cross_entropy(x_cpu, target, **kwargs).sum()
    loss_npu = torch.nn.functional.cross_entropy(x_npu, target.npu(), weight=weight.npu(), label_smoothing=0.2,
                                                 reduction=reduction).sum()
    loss_cpu.backward()
    loss_npu.backward()
    assert loss_npu.item() == pytest.approx(loss_cpu.item(), rel=1e-5)
    torch.testing.assert_close(x_npu.grad.cpu(), x_cpu.grad, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("foreach", [False, True])
def test_adam_family_matches_cpu(name, foreach):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(7, 19), torch.nn.ReLU(), torch.nn.Linear(19, 3))
    data = _data(3)
    results = []
    for device in ("cpu", "npu:0"):
        m = copy.deepcopy(model).to(device)
        opt = getattr(torch.optim, name)(m.parameters(), lr=1e-3, foreach=foreach, weight_decay=1e-2)
        for x, y in data[:3]:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(m(x.to(device)), y.to(device)).backward()
            torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
            opt.step()
        results.append([p.detach().cpu() for p in m.parameters()])
    for p_cpu, p_npu in zip(*results):
        torch.testing.assert_close(p_npu, p_cpu, rtol=1e-4, atol=1e-5)
