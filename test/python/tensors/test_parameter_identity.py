"""Parameters keep their identity across device moves, as with .cuda() (Note [Parameters keep their
identity across devices] in csrc/aten/common/ShallowCopyType.cpp): optimizers, hooks, tied weights and
id()-keyed state built before model.npu() stay valid."""
import pytest
import torch
import torch.nn as nn


def _tied():
    embed, head = nn.Embedding(10, 4), nn.Linear(4, 10)
    head.weight = embed.weight
    return nn.Sequential(embed, head)


def _mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))


def test_tied_weights_survive_npu_and_to(npu):
    for move in (lambda m: m.npu(), lambda m: m.to(npu), lambda m: m.to(npu).cpu(), lambda m: m.to(npu).half()):
        model = move(_tied())
        assert model[0].weight is model[1].weight
        assert len(list(model.parameters())) == 2  # the shared weight and the head's bias


def test_a_tied_weight_gets_the_sum_of_both_gradients(npu):
    torch.manual_seed(0)
    cpu_model = _tied()
    npu_model = _tied()
    npu_model.load_state_dict(cpu_model.state_dict())
    npu_model.to(npu)
    tokens = torch.tensor([1, 4, 7])
    cpu_model(tokens).square().sum().backward()
    npu_model(tokens.to(npu)).square().sum().backward()
    torch.testing.assert_close(npu_model[0].weight.grad.cpu(), cpu_model[0].weight.grad, rtol=1e-4, atol=1e-5)


def test_unshared_parameters_are_unaffected(npu):
    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    model = nn.Sequential(a, b).to(npu)
    assert model[0].weight is not model[1].weight
    assert len(list(model.parameters())) == 4


@pytest.mark.parametrize("move", ["npu", "to", "to_half"])
def test_the_same_parameter_objects_move(npu, move):
    model = _mlp()
    before = list(model.parameters())
    {"npu": lambda: model.npu(), "to": lambda: model.to(npu), "to_half": lambda: model.to(npu, torch.half)}[move]()
    after = list(model.parameters())
    assert all(a is b for a, b in zip(before, after))
    assert all(p.device.type == "npu" and isinstance(p, nn.Parameter) and p.requires_grad for p in after)
    model.cpu()
    assert all(a is b and a.device.type == "cpu" for a, b in zip(before, model.parameters()))


@pytest.mark.parametrize("make_optimizer", [
    lambda params: torch.optim.SGD(params, lr=0.1, momentum=0.9),
    lambda params: torch.optim.Adam(params, lr=0.01),
], ids=["sgd_momentum", "adam"])
def test_an_optimizer_built_before_npu_trains_the_npu_weights(npu, make_optimizer):
    cpu_model, npu_model = _mlp(), _mlp()
    cpu_opt, npu_opt = make_optimizer(cpu_model.parameters()), make_optimizer(npu_model.parameters())
    npu_model.npu()
    torch.manual_seed(1)
    for _ in range(3):
        x = torch.randn(5, 4)
        for model, opt, data in ((cpu_model, cpu_opt, x), (npu_model, npu_opt, x.to(npu))):
            opt.zero_grad()
            model(data).square().sum().backward()
            opt.step()
    for cpu_p, npu_p in zip(cpu_model.parameters(), npu_model.parameters()):
        assert npu_p.device.type == "npu"
        torch.testing.assert_close(npu_p.detach().cpu(), cpu_p.detach(), rtol=1e-5, atol=1e-6)
    assert not torch.equal(cpu_model[0].weight.detach(), _mlp()[0].weight.detach())  # it did train


def test_gradient_hooks_registered_before_the_move_fire(npu):
    model = _mlp()
    seen = []
    model[0].weight.register_hook(lambda grad: seen.append(grad.device.type))
    model.npu()
    model(torch.randn(2, 4, device=npu)).sum().backward()
    model.cpu()
    model(torch.randn(2, 4)).sum().backward()
    assert seen == ["npu", "cpu"]


def test_gradients_move_with_their_parameters(npu):
    model = _mlp()
    model(torch.randn(2, 4)).sum().backward()
    grad = model[0].weight.grad.clone()
    model.npu()
    assert model[0].weight.grad.device.type == "npu"
    torch.testing.assert_close(model[0].weight.grad.cpu(), grad)


def test_setting_data_across_devices(npu):
    param = nn.Parameter(torch.randn(3))
    param.data = torch.arange(3.0, device=npu)
    assert param.device.type == "npu" and isinstance(param, nn.Parameter)
    torch.testing.assert_close(param.detach().cpu(), torch.arange(3.0))
    param.data = torch.ones(2)
    assert param.device.type == "cpu" and param.shape == (2,)
    assert torch._has_compatible_shallow_copy_type(torch.ones(1), torch.ones(1, device=npu))
    assert not torch._has_compatible_shallow_copy_type(torch.ones(1, device=npu), torch.ones(1).to_sparse())
