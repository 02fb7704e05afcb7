"""Parameters shared between modules stay shared on the NPU (Note [Shared parameters across devices])."""
import torch
import torch.nn as nn


def _tied():
    embed, head = nn.Embedding(10, 4), nn.Linear(4, 10)
    head.weight = embed.weight
    return nn.Sequential(embed, head)


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
