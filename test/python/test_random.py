"""Seeding and determinism of NPU random numbers."""
import torch


def test_manual_seed_makes_runs_repeatable():
    torch.npu.manual_seed(123)
    a = torch.randn(1000, device="npu").cpu()
    torch.npu.manual_seed(123)
    b = torch.randn(1000, device="npu").cpu()
    c = torch.randn(1000, device="npu").cpu()
    assert torch.equal(a, b) and not torch.equal(b, c)
    assert abs(a.mean()) < 0.1 and abs(a.std() - 1) < 0.1


def test_torch_manual_seed_also_seeds_the_npu():
    torch.manual_seed(7)
    a = torch.rand(10, device="npu").cpu()
    torch.manual_seed(7)
    assert torch.equal(a, torch.rand(10, device="npu").cpu())
    assert torch.npu.initial_seed() == 7


def test_rng_state_roundtrip():
    torch.npu.manual_seed(5)
    state = torch.npu.get_rng_state()
    a = torch.randn(8, device="npu").cpu()
    torch.npu.set_rng_state(state)
    assert torch.equal(a, torch.randn(8, device="npu").cpu())


def test_seed_returns_a_new_seed():
    s = torch.npu.seed()
    assert torch.npu.initial_seed() == s
