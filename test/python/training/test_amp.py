"""torch.npu.amp: autocast (Note [NPU autocast]), custom_fwd/custom_bwd and GradScaler."""
import pytest
import torch

import torch_npu  # noqa: F401
from conftest import run_python


def test_autocast_casts_by_policy_and_restores():
    lin = torch.nn.Linear(16, 8).npu()
    x = torch.randn(4, 16).npu()
    assert not torch.npu.amp.is_autocast_enabled()
    with torch.npu.amp.autocast():
        assert torch.npu.amp.is_autocast_enabled()
        y = lin(x)
        assert y.dtype == torch.float16
        assert torch.softmax(y, -1).dtype == torch.float32
        assert torch.nn.functional.layer_norm(y, (8,)).dtype == torch.float32
        assert (y + y).dtype == torch.float16
        assert lin.cpu()(x.cpu()).dtype == torch.float32  # CPU work is untouched
        lin.npu()
        with torch.npu.amp.autocast(enabled=False):
            assert lin(x).dtype == torch.float32
        assert lin(x).dtype == torch.float16
    assert not torch.npu.amp.is_autocast_enabled()
    assert lin(x).dtype == torch.float32

    @torch.npu.amp.autocast()
    def forward(inp):
        return lin(inp)
    assert forward(x).dtype == torch.float16


def test_autocast_matches_the_cpu_in_the_cast_dtypes():
    w, x = torch.randn(32, 64), torch.randn(16, 64)
    with torch.npu.amp.autocast():
        y = torch.nn.functional.linear(x.npu(), w.npu())
    expected = torch.nn.functional.linear(x.half().float(), w.half().float())
    torch.testing.assert_close(y.cpu().float(), expected, rtol=2e-3, atol=2e-3)


def test_bfloat16_needs_a_910b_chip():
    with pytest.raises(RuntimeError, match="needs an Ascend 910B chip"):
        torch.npu.amp.autocast(dtype=torch.bfloat16)
    with pytest.raises(RuntimeError, match="float16 and torch.bfloat16"):
        torch.npu.amp.autocast(dtype=torch.float64)
    result = run_python("""
        import torch, torch_npu
        with torch.npu.amp.autocast(dtype=torch.bfloat16):
            y = torch.nn.Linear(4, 4).npu()(torch.randn(2, 4).npu())
        print("DTYPE", y.dtype)
    """, env={"ASCEND_SIM_SOC_VERSION": "Ascend910B2"})
    assert result.returncode == 0, result.stderr
    assert "DTYPE torch.bfloat16" in result.stdout


def test_binary_cross_entropy_is_banned_inside_autocast():
    p = torch.rand(4).npu()
    with torch.npu.amp.autocast():
        with pytest.raises(RuntimeError, match="binary_cross_entropy_with_logits"):
            torch.nn.functional.binary_cross_entropy(p, p)


class _MyMM(torch.autograd.Function):
    @staticmethod
    @torch.npu.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        assert a.dtype == torch.float32 and not torch.npu.amp.is_autocast_enabled()
        return a.mm(b)

    @staticmethod
    @torch.npu.amp.custom_bwd
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad.mm(b.t()), a.t().mm(grad)


def test_custom_fwd_and_custom_bwd():
    a = torch.randn(4, 4).npu().half().requires_grad_()
    b = torch.randn(4, 4).npu().requires_grad_()
    with torch.npu.amp.autocast():
        out = _MyMM.apply(a, b)
    assert out.dtype == torch.float32
    out.sum().backward()
    assert a.grad is not None and b.grad is not None


class _LibraryMM(torch.autograd.Function):
    """As third-party code writes it: torch.cuda.amp's decorators (torch_npu/_patches/cuda_amp.py)."""

    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a.mm(b)

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad.mm(b.t()), a.t().mm(grad)


class _AutocastInBackward(torch.autograd.Function):
    @staticmethod
    @torch.npu.amp.custom_fwd
    def forward(ctx, a):
        return a * 2

    @staticmethod
    @torch.npu.amp.custom_bwd
    def backward(ctx, grad):
        assert torch.npu.amp.is_autocast_enabled()
        return grad.mm(torch.eye(grad.shape[1], device=grad.device))


def test_torch_cuda_amp_decorators_keep_a_function_in_fp32_under_npu_autocast():
    a, b = torch.randn(4, 4).npu().half().requires_grad_(), torch.randn(4, 4).npu().requires_grad_()
    with torch.npu.amp.autocast():
        out = _LibraryMM.apply(a, b)
    assert out.dtype == torch.float32
    out.sum().backward()
    assert a.grad.dtype == torch.float16 and b.grad.dtype == torch.float32


def test_custom_bwd_runs_under_the_forwards_autocast_state():
    a = torch.randn(4, 4).npu().requires_grad_()
    with torch.npu.amp.autocast():
        out = _AutocastInBackward.apply(a)
    out.sum().backward()  # outside autocast: the backward still runs under it (mm in fp16)
    assert a.grad.dtype == torch.float32


def _train(steps, scaler, opt_level_autocast=True, lr=0.2, seed=0):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4)).npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    data = torch.randn(64, 32)
    target = (data[:, :4] * 2).npu()
    data = data.npu()
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        with torch.npu.amp.autocast(enabled=opt_level_autocast):
            loss = torch.nn.functional.mse_loss(model(data).float(), target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        losses.append(loss.item())
    return model, losses


def test_grad_scaler_trains_and_tracks_the_fp32_run():
    _, amp_losses = _train(20, torch.npu.amp.GradScaler(init_scale=1024.0))
    _, fp32_losses = _train(20, torch.npu.amp.GradScaler(enabled=False), opt_level_autocast=False)
    assert amp_losses[-1] < 0.5 * amp_losses[0]
    for a, f in zip(amp_losses, fp32_losses):
        assert abs(a - f) <= 0.02 * f + 1e-3


OVERFLOW_STEP = """
    import torch, torch_npu
    scaler = torch.npu.amp.GradScaler(init_scale=2.0 ** 24, growth_interval=1000)
    torch.manual_seed(0)
    model = torch.nn.Linear(32, 4).npu()
    before = [p.detach().cpu().clone() for p in model.parameters()]
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with torch.npu.amp.autocast():
        loss = model(torch.randn(16, 32).npu() * 100).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    skipped = all(torch.equal(b, p.detach().cpu()) for b, p in zip(before, model.parameters()))
    print("SCALE", scaler.get_scale(), "SKIPPED", skipped)
"""


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend910B2"])  # float status / inf scan
def test_grad_scaler_skips_overflowing_steps_and_backs_off(soc):
    result = run_python(OVERFLOW_STEP, env={"ASCEND_SIM_SOC_VERSION": soc})
    assert result.returncode == 0, result.stderr
    assert "SCALE 8388608.0 SKIPPED True" in result.stdout


def test_grad_scaler_growth_static_mode_and_state_dict():
    scaler = torch.npu.amp.GradScaler(init_scale=8.0, growth_interval=2)
    _train(4, scaler)
    assert scaler.get_scale() == 32.0  # two growths in four good steps
    state = scaler.state_dict()
    restored = torch.npu.amp.GradScaler()
    restored.load_state_dict(state)
    assert restored.get_scale() == 32.0 and restored.state_dict() == state
    static = torch.npu.amp.GradScaler(init_scale=128.0, growth_interval=1, dynamic=False)
    _train(3, static)
    assert static.get_scale() == 128.0 and not static.is_dynamic()
    with pytest.raises(ValueError, match="scales NPU tensors"):
        torch.npu.amp.GradScaler().scale(torch.ones(1))


def test_backward_inside_the_region_keeps_the_autocast_dtype():
    """The engine's worker threads see the region's fp16, not c10's thread-local XPU default (bf16)."""
    w = torch.randn(16, 4).npu().requires_grad_()
    x = torch.randn(8, 16)
    with torch.npu.amp.autocast():
        y = torch.mm(x.npu(), w)
        with torch.npu.op_records() as rec:
            y.float().sum().backward()
    assert not any("BF16" in r.shapes for r in rec.records)
    expected = (x.half().float().t() @ torch.ones(8, 4)).half().float()
    assert torch.equal(w.grad.cpu(), expected)
