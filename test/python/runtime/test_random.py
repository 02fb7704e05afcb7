"""Seeding and determinism of NPU random numbers."""
import pytest
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


def test_randint_and_random_cover_the_range_repeatably(npu):
    torch.npu.manual_seed(3)
    a = torch.randint(-9, 10, (20000,), device=npu).cpu()
    torch.npu.manual_seed(3)
    b = torch.randint(-9, 10, (20000,), device=npu).cpu()
    assert torch.equal(a, b)
    assert a.min() == -9 and a.max() == 9
    counts = torch.bincount(a + 9)
    assert counts.min() > 850 and counts.max() < 1250  # ~1053 each
    for dtype, low, high in [(torch.bool, 0, 2), (torch.uint8, 0, 255), (torch.int8, -128, 127),
                             (torch.int32, -5, 5), (torch.float16, -3, 3), (torch.float32, 0, 100)]:
        t = torch.randint(low, high, (500,), device=npu, dtype=dtype).cpu()
        assert t.dtype == dtype
        assert t.to(torch.float64).min() >= low and t.to(torch.float64).max() < high
    wide = torch.empty(1000, dtype=torch.int64, device=npu).random_(-2**40, 2**40).cpu()
    assert wide.min() >= -2**40 and wide.max() < 2**40 and wide.abs().max() > 2**32
    floats = torch.empty(1000, device=npu).random_().cpu()  # [0, 2^24] integers
    assert torch.equal(floats, floats.round()) and floats.max() <= 2**24
    assert torch.empty(1000, device=npu).random_(7).cpu().max() < 7


def test_random_rejects_bad_ranges(npu):
    with pytest.raises(RuntimeError, match="'from' to be less than 'to'"):
        torch.empty(3, device=npu).random_(5, 3)
    with pytest.raises(RuntimeError, match="to be at most 128 for dtype Char"):
        torch.empty(3, device=npu, dtype=torch.int8).random_(0, 300)
    assert torch.empty(0, device=npu).random_(0, 3).shape == (0,)


# torch.random.fork_rng(device_type="npu") and torch.seed() (torch_npu/_patches/random.py)
def test_fork_rng_for_the_npu(npu):
    torch.npu.manual_seed(5)
    before = torch.npu.get_rng_state(0)
    with torch.random.fork_rng(devices=[0], device_type="npu"):
        torch.rand(4, device=npu)
        cpu_draw = torch.rand(2)
    assert torch.equal(torch.npu.get_rng_state(0), before)
    assert torch.equal(torch.rand(2), cpu_draw)  # the CPU generator is forked too
    with torch.random.fork_rng(devices=[]):  # torch's own default (CUDA devices) is unchanged
        pass
    with pytest.raises(ValueError, match="device_type must be 'cuda' or 'npu'"):
        with torch.random.fork_rng(device_type="xla"):
            pass


def test_fork_rng_of_every_npu_warns_once(npu):
    with pytest.warns(UserWarning, match="forks the RNG of every NPU"):
        with torch.random.fork_rng(device_type="npu"):
            torch.rand(1, device="npu:3")


def test_torch_seed_seeds_the_npus_with_the_seed_it_returns(npu):
    seed = torch.seed()
    drawn = torch.rand(3, device="npu:1")
    torch.manual_seed(seed)
    assert torch.equal(torch.rand(3, device="npu:1").cpu(), drawn.cpu())
