"""torch.utils.checkpoint on NPU blocks gives the plain block's gradients bit for bit
(Note [Checkpoint recompute on the NPU] in torch_npu/_patches/checkpoint.py)."""
import pytest
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def _block(device, p=0.5):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(16, 32), nn.Dropout(p), nn.GELU(), nn.Linear(32, 16)).to(device)


def _grads(block, x, *, checkpointed, reentrant=True, amp=False, seed=123):
    for p in block.parameters():
        p.grad = None
    x = x.detach().requires_grad_()
    torch.npu.manual_seed_all(seed)
    with torch.npu.amp.autocast(enabled=amp):
        y = checkpoint(block, x, use_reentrant=reentrant) if checkpointed else block(x)
        loss = y.float().square().sum()
    loss.backward()
    return [x.grad] + [p.grad for p in block.parameters()], torch.npu.get_rng_state(x.device)


@pytest.mark.parametrize("amp", [False, True], ids=["fp32", "autocast"])
@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non_reentrant"])
def test_checkpointed_dropout_block_matches_the_plain_block_bit_for_bit(npu, reentrant, amp):
    block, x = _block(npu), torch.randn(8, 16, device=npu)
    plain, plain_rng = _grads(block, x, checkpointed=False, amp=amp)
    checkpointed, checkpointed_rng = _grads(block, x, checkpointed=True, reentrant=reentrant, amp=amp)
    for a, b in zip(plain, checkpointed):
        assert torch.equal(a.cpu(), b.cpu())
    # the recompute's draws are forked: the generator ends where the plain run leaves it
    assert torch.equal(plain_rng, checkpointed_rng)


@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "non_reentrant"])
def test_the_recompute_runs_in_the_forwards_autocast_dtype(npu, reentrant):
    block, x = _block(npu, p=0.0), torch.randn(8, 16, device=npu)
    plain, _ = _grads(block, x, checkpointed=False, amp=True)
    checkpointed, _ = _grads(block, x, checkpointed=True, reentrant=reentrant, amp=True)
    for a, b in zip(plain, checkpointed):
        assert torch.equal(a.cpu(), b.cpu())


def test_checkpoint_sequential_with_dropout(npu):
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(12, 12), nn.Dropout(0.3), nn.Tanh()) for _ in range(4)]).to(npu)
    x = torch.randn(6, 12, device=npu)

    def grads(run):
        model.zero_grad(set_to_none=True)
        torch.npu.manual_seed(7)
        run(x.detach().requires_grad_()).sum().backward()
        return [p.grad.cpu() for p in model.parameters()]

    plain = grads(model)
    segmented = grads(lambda inp: checkpoint_sequential(model, 2, inp))
    assert all(torch.equal(a, b) for a, b in zip(plain, segmented))


def test_the_rng_state_of_the_inputs_device_is_kept(npu):
    device = torch.device("npu:1")
    block, x = _block(device), torch.randn(8, 16, device=device)
    plain, _ = _grads(block, x, checkpointed=False)
    checkpointed, _ = _grads(block, x, checkpointed=True)
    assert all(torch.equal(a.cpu(), b.cpu()) for a, b in zip(plain, checkpointed))
