"""torch.Generator objects on the NPU (Note [NPU torch.Generator])."""
import pytest
import torch
import torch_npu  # noqa: F401


def test_npu_generator_is_a_torch_generator():
    g = torch.Generator(device="npu")
    assert isinstance(g, torch.Generator)
    assert g.device == torch.device("npu", 0)
    assert torch.Generator(device="npu:1").device == torch.device("npu", 1)
    assert torch.Generator(device=torch.device("npu", 1)).device == torch.device("npu", 1)
    assert torch.Generator().device == torch.device("cpu")


def test_default_generators_are_the_seeded_device_state():
    assert len(torch.npu.default_generators) == torch.npu.device_count()
    torch.npu.manual_seed(7)
    x = torch.rand(5, device="npu")
    torch.npu.default_generators[0].manual_seed(7)
    assert torch.npu.initial_seed() == 7
    y = torch.rand(5, device="npu")
    assert torch.equal(x, y)
    assert torch.equal(torch.npu.default_generators[0].get_state(), torch.npu.get_rng_state())


@pytest.mark.parametrize("draw", [
    lambda g: torch.randn(64, device="npu", generator=g),
    lambda g: torch.rand(64, device="npu", generator=g),
    lambda g: torch.empty(64, device="npu").uniform_(-2, 3, generator=g),
    lambda g: torch.empty(64, device="npu").normal_(1, 2, generator=g),
    lambda g: torch.randint(0, 1000, (64,), device="npu", generator=g),
    lambda g: torch.empty(64, device="npu").bernoulli_(0.3, generator=g),
    lambda g: torch.bernoulli(torch.full((64,), 0.5, device="npu"), generator=g),
    lambda g: torch.randperm(64, device="npu", generator=g),
    lambda g: torch.multinomial(torch.ones(64, device="npu"), 8, generator=g),
    lambda g: torch.normal(torch.zeros(64, device="npu"), torch.ones(64, device="npu"), generator=g),
], ids=["randn", "rand", "uniform_", "normal_", "randint", "bernoulli_", "bernoulli", "randperm", "multinomial",
        "normal"])
def test_explicit_generator_drives_the_op_and_leaves_the_default_alone(draw):
    torch.npu.manual_seed(0)
    default_before = torch.npu.get_rng_state()
    g = torch.Generator(device="npu").manual_seed(1234)
    first = draw(g).cpu()
    assert torch.equal(torch.npu.get_rng_state(), default_before)  # the default stream did not move
    g.manual_seed(1234)
    assert torch.equal(draw(g).cpu(), first)
    other = torch.Generator(device="npu").manual_seed(99)
    assert not torch.equal(draw(other).cpu(), first)


def test_generator_state_roundtrip_and_independence():
    g1 = torch.Generator(device="npu").manual_seed(5)
    g2 = torch.Generator(device="npu").manual_seed(5)
    a = torch.randn(16, device="npu", generator=g1)
    state = g1.get_state()
    assert state.dtype == torch.uint8 and state.numel() == 16
    b = torch.randn(16, device="npu", generator=g1)
    assert torch.equal(torch.randn(16, device="npu", generator=g2), a)  # g2 is independent of g1
    g1.set_state(state)
    assert torch.equal(torch.randn(16, device="npu", generator=g1), b)
    assert g1.initial_seed() == 5
    assert g1.seed() != 5 or g1.seed() != 5


def test_dropout_and_data_loader_paths():
    g = torch.Generator(device="npu").manual_seed(3)
    x = torch.ones(8, 8, device="npu")
    m1 = torch.empty_like(x).bernoulli_(0.5, generator=g)
    assert set(m1.unique().cpu().tolist()) <= {0.0, 1.0}
    # The DataLoader's sampler makes CPU generators through torch.Generator().
    loader = torch.utils.data.DataLoader(list(range(10)), shuffle=True, generator=torch.Generator().manual_seed(0))
    assert sorted(int(v) for batch in loader for v in batch) == list(range(10))


def test_wrong_generators_are_rejected():
    with pytest.raises(RuntimeError, match="expected a generator of the npu device, got one of cpu"):
        torch.rand(3, device="npu", generator=torch.Generator())
    g = torch.Generator(device="npu")
    with pytest.raises(RuntimeError, match="16 bytes"):
        g.set_state(torch.zeros(3, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match="uint8"):
        g.set_state(torch.zeros(16, dtype=torch.float32))
    with pytest.raises(RuntimeError):
        torch.Generator(device="npu:99")
