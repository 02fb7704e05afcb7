"""The custom npu:: operators as torch_npu users call them: torch_npu.<name>,
Tensor methods, autograd, and argument errors (the math is checked against
independent CPU expressions in test/cpp/fused/test_custom_ops.cpp)."""
import pytest
import torch
import torch.nn.functional as F

import torch_npu
from conftest import assert_close


def test_every_custom_op_is_a_torch_npu_function():
    for name in ("npu_dtype_cast", "npu_transpose", "npu_broadcast", "npu_confusion_transpose", "npu_linear",
                 "npu_bmmV2", "one_", "npu_silu", "npu_mish", "fast_gelu", "npu_layer_norm_eval", "npu_rms_norm",
                 "npu_rotary_mul", "npu_softmax_cross_entropy_with_logits", "npu_format_cast", "npu_alloc_float_status",
                 "npu_dropout", "_npu_dropout", "npu_dropout_backward", "npu_dropout_gen_mask", "npu_dropout_do_mask",
                 "npu_dropout_with_add_softmax", "npu_dropout_with_add_softmax_backward",
                 "npu_fusion_attention", "npu_fusion_attention_grad",
                 "npu_fast_gelu", "npu_fast_gelu_backward", "npu_rms_norm_backward", "npu_rotary_mul_backward",
                 "npu_softmax_cross_entropy_with_logits_backward", "npu_slice"):
        assert callable(getattr(torch_npu, name)) and name in torch_npu.__all__
        assert f"npu::{name}" in torch.npu.get_supported_ops()


def test_tensor_methods(npu):
    x = torch.randn(2, 3, 4, device=npu)
    assert x.npu_dtype_cast(torch.float16).dtype == torch.float16
    assert x.npu_transpose([2, 0, 1]).shape == (4, 2, 3)
    assert x.npu_broadcast([5, 2, 3, 4]).shape == (5, 2, 3, 4)
    assert x.npu_confusion_transpose([1, 0], [6, 4], False).shape == (4, 6)
    assert x.one_() is x and x.cpu().eq(1).all()


def test_autograd_flows_through_the_custom_ops(npu):
    x = torch.randn(4, 8, requires_grad=True)
    w = torch.randn(5, 8, requires_grad=True)
    g = torch.rand(8) + 0.5
    xn, wn = x.detach().to(npu).requires_grad_(), w.detach().to(npu).requires_grad_()
    out_npu = (torch_npu.npu_rms_norm(torch_npu.fast_gelu(xn), g.to(npu))[0] @ wn.t()
               + torch_npu.npu_linear(xn, wn)).sum()
    out_npu.backward()
    fx = x / (1 + torch.exp(-1.702 * x))
    out_cpu = ((fx / torch.sqrt(fx.square().mean(-1, keepdim=True) + 1e-6) * g) @ w.t() + F.linear(x, w)).sum()
    out_cpu.backward()
    assert_close(out_npu, out_cpu.detach(), rtol=1e-4, atol=1e-4)
    assert_close(xn.grad, x.grad, rtol=1e-4, atol=1e-4)
    assert_close(wn.grad, w.grad, rtol=1e-4, atol=1e-4)
    y = torch_npu.npu_dtype_cast(xn, torch.float16)
    assert y.requires_grad and y.grad_fn is not None


def test_npu_slice(npu):
    x = torch.randn(3, 8, 5)
    xn = x.to(npu).requires_grad_()
    y = torch_npu.npu_slice(xn, [1, 2, 0], [2, 4, -1])
    assert_close(y, x[1:3, 2:6, :], rtol=0, atol=0)
    y.backward(torch.ones_like(y))
    want = torch.zeros_like(x)
    want[1:3, 2:6, :] = 1
    assert_close(xn.grad, want, rtol=0, atol=0)
    with pytest.raises(RuntimeError, match="npu_slice: dim 1: offset 6 and size 4 do not lie inside its 8 elements"):
        torch_npu.npu_slice(xn, [0, 6, 0], [1, 4, 1])


def test_format_cast_is_differentiable(npu):
    x = torch.randn(2, 19, 5, 3, device=npu, requires_grad=True)
    y = torch_npu.npu_format_cast(x, 3)
    assert y.requires_grad and torch_npu.get_npu_format(y) == 3
    (y * y).sum().backward()
    assert_close(x.grad, 2 * x.detach().cpu())


def test_rotary_embedding_in_an_attention_block(npu):
    """How LLaMA-style code uses npu_rotary_mul: cos/sin tables broadcast over batch and heads."""
    q = torch.randn(2, 4, 6, 16)
    pos = torch.arange(6).float()[:, None] / (10000 ** (torch.arange(0, 16, 2).float() / 16))
    emb = torch.cat([pos, pos], -1)
    cos, sin = emb.cos()[None, None], emb.sin()[None, None]
    halves = q.chunk(2, -1)
    expected = q * cos + torch.cat([-halves[1], halves[0]], -1) * sin
    assert_close(torch_npu.npu_rotary_mul(q.to(npu), cos.to(npu), sin.to(npu)), expected, rtol=1e-5, atol=1e-5)


def _ops(rec):
    return [r.op_type for r in rec.records]


def test_fused_llm_ops_are_one_kernel_each_way(npu):
    """fast_gelu, npu_rms_norm, npu_rotary_mul and npu_softmax_cross_entropy_with_logits run the
    fused CANN kernel torch_npu calls, forward and backward, and cost less simulated time than
    the unfused expression of the same math."""
    x = torch.randn(64, 1024, device=npu, requires_grad=True)
    gamma = torch.rand(1024, device=npu, requires_grad=True)
    cos, sin = torch.randn(1024, device=npu), torch.randn(1024, device=npu)
    labels = torch.softmax(torch.randn(64, 1024, device=npu), -1)
    fused = {
        "FastGelu": lambda: torch_npu.fast_gelu(x),
        "RmsNorm": lambda: torch_npu.npu_rms_norm(x, gamma)[0],
        "RotaryMul": lambda: torch_npu.npu_rotary_mul(x, cos, sin),
        "SoftmaxCrossEntropyWithLogits": lambda: torch_npu.npu_softmax_cross_entropy_with_logits(x, labels),
    }
    unfused = {
        "FastGelu": lambda: x * torch.sigmoid(x * 1.702),
        "RmsNorm": lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma,
        "RotaryMul": lambda: x * cos + torch.cat([-x[:, 512:], x[:, :512]], -1) * sin,
        "SoftmaxCrossEntropyWithLogits": lambda: -(labels * torch.log_softmax(x, -1)).sum(-1),
    }
    grads = {"FastGelu": ["FastGeluGrad"], "RmsNorm": ["RmsNormGrad"], "RotaryMul": ["RotaryMulGrad"],
             "SoftmaxCrossEntropyWithLogits": ["Mul"]}
    for kernel, fn in fused.items():
        y = fn()
        g = torch.ones_like(y)
        torch.npu.synchronize()
        with torch.npu.op_records() as forward:
            y = fn()
        x.grad = gamma.grad = None  # no accumulation Add into earlier gradients
        with torch.npu.op_records() as backward:
            y.backward(g)
        assert _ops(forward) == [kernel] and _ops(backward) == grads[kernel], (_ops(forward), _ops(backward))
        with torch.npu.op_records() as composite:
            unfused[kernel]()
        assert len(composite.records) >= 3
        fused_us = sum(r.duration_us for r in forward.records)
        assert fused_us < sum(r.duration_us for r in composite.records), kernel


def test_fused_llm_ops_in_a_llama_block(npu):
    """RMSNorm, rotary q/k and a fast_gelu MLP as LLaMA-style code writes them, forward and backward
    against the CPU expression of the same block."""
    torch.manual_seed(0)
    b, s, h, d = 2, 6, 4, 16
    x = torch.randn(b, s, h * d)
    gamma, w = torch.rand(h * d) + 0.5, torch.randn(h * d, h * d) / 8
    pos = torch.arange(s).float()[:, None] / (10000 ** (torch.arange(0, d, 2).float() / d))
    emb = torch.cat([pos, pos], -1)
    cos, sin = emb.cos()[None, :, None], emb.sin()[None, :, None]

    def block(x, gamma, w, cos, sin, rms, rotary, gelu):
        n = rms(x, gamma)
        q = (n @ w).view(b, s, h, d)
        return gelu(rotary(q, cos, sin)).sum()

    def rms_ref(x, g):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * g

    def rotary_ref(q, c, sn):
        return q * c + torch.cat([-q[..., d // 2:], q[..., :d // 2]], -1) * sn

    cpu_in = [t.clone().requires_grad_() for t in (x, gamma, w)]
    block(*cpu_in, cos, sin, rms_ref, rotary_ref, lambda t: t * torch.sigmoid(1.702 * t)).backward()
    npu_in = [t.to(npu).requires_grad_() for t in (x, gamma, w)]
    with torch.npu.op_records() as rec:
        out = block(*npu_in, cos.to(npu), sin.to(npu), lambda a, g: torch_npu.npu_rms_norm(a, g)[0],
                    torch_npu.npu_rotary_mul, torch_npu.fast_gelu)
        out.backward()
    for kernel in ("RmsNorm", "RmsNormGrad", "RotaryMul", "RotaryMulGrad", "FastGelu", "FastGeluGrad"):
        assert _ops(rec).count(kernel) == 1, kernel
    for got, want in zip(npu_in, cpu_in):
        assert_close(got.grad, want.grad, rtol=1e-4, atol=1e-4)


def test_fused_llm_backward_ops_are_callable(npu):
    x, dy = torch.randn(3, 8), torch.randn(3, 8)
    gamma = torch.rand(8) + 0.5
    xr = x.clone().requires_grad_()
    gr = gamma.clone().requires_grad_()
    (xr * torch.rsqrt(xr.pow(2).mean(-1, keepdim=True) + 1e-6) * gr).backward(dy)
    _, rstd = torch_npu.npu_rms_norm(x.to(npu), gamma.to(npu))
    dx, dgamma = torch_npu.npu_rms_norm_backward(dy.to(npu), x.to(npu), gamma.to(npu), rstd)
    assert dgamma.dtype == torch.float32
    assert_close(dx, xr.grad, rtol=1e-4, atol=1e-5)
    assert_close(dgamma, gr.grad, rtol=1e-4, atol=1e-5)
    fx = x.clone().requires_grad_()
    (fx * torch.sigmoid(1.702 * fx)).backward(dy)
    assert_close(torch_npu.npu_fast_gelu_backward(dy.to(npu), x.to(npu)), fx.grad, rtol=1e-5, atol=1e-5)
    assert torch.equal(torch_npu.npu_fast_gelu(x.to(npu)), torch_npu.fast_gelu(x.to(npu)))
    r1, r2 = torch.randn(8), torch.randn(8)
    xq, c1, c2 = x.clone().requires_grad_(), r1.clone().requires_grad_(), r2.clone().requires_grad_()
    (xq * c1 + torch.cat([-xq[:, 4:], xq[:, :4]], -1) * c2).backward(dy)
    got = torch_npu.npu_rotary_mul_backward(dy.to(npu), x.to(npu), r1.to(npu), r2.to(npu))
    for g, want in zip(got, (xq.grad, c1.grad, c2.grad)):
        assert_close(g, want, rtol=1e-4, atol=1e-5)
    labels = torch.softmax(torch.randn(3, 8), -1)
    grad = torch.randn(3)
    ce = torch_npu.npu_softmax_cross_entropy_with_logits_backward(grad.to(npu), x.to(npu), labels.to(npu))
    assert_close(ce, grad[:, None] * (torch.softmax(x, -1) - labels), rtol=1e-5, atol=1e-6)


def test_bad_arguments_say_what_is_wrong(npu):
    x = torch.randn(2, 3, device=npu)
    with pytest.raises(RuntimeError, match=r"npu_transpose: perm \[1\] must name all 2 dims"):
        torch_npu.npu_transpose(x, [1])
    with pytest.raises(RuntimeError, match="npu_linear: expected 2-D input and weight"):
        torch_npu.npu_linear(x.unsqueeze(0), x)
    with pytest.raises(RuntimeError, match="gamma of shape \\[4\\] must match the trailing dims"):
        torch_npu.npu_rms_norm(x, torch.ones(4, device=npu))
    with pytest.raises(RuntimeError, match="must have the same shape"):
        torch_npu.npu_softmax_cross_entropy_with_logits(x, torch.ones(3, 2, device=npu))
    with pytest.raises(RuntimeError, match=r"npu_rotary_mul: the last dim of x \(\[2, 3\]\) must be even"):
        torch_npu.npu_rotary_mul(x, x, x)
    with pytest.raises(RuntimeError,
                       match=r"r1 of shape \[3, 4\] and r2 of shape \[4\] must broadcast to x of shape \[2, 4\]"):
        torch_npu.npu_rotary_mul(torch.randn(2, 4, device=npu), torch.ones(3, 4, device=npu), torch.ones(4, device=npu))
    with pytest.raises(RuntimeError, match="fast_gelu.*floating"):
        torch_npu.fast_gelu(torch.ones(3, dtype=torch.int32, device=npu))
    with pytest.raises(RuntimeError, match="expected floating x and gamma"):
        torch_npu.npu_rms_norm(torch.ones(2, 4, dtype=torch.int32, device=npu), torch.ones(4, device=npu))


def _kept(mask, shape):
    """The kept elements of an npu dropout bit mask (LSB first) as a 0/1 float CPU tensor."""
    bits = (mask.cpu().long().unsqueeze(1) >> torch.arange(8)) & 1
    n = torch.Size(shape).numel()
    return bits.reshape(-1)[:n].float().reshape(shape)


def test_nn_dropout_runs_the_dropout_kernels(npu):
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.Dropout(0.25)).to(npu)
    x = torch.randn(32, 64, device=npu)
    with torch.npu.op_records() as rec:
        model(x).sum().backward()
    ops = [r.op_type for r in rec.records]
    assert ops.count("DropOutGenMask") == 1 and ops.count("DropOutDoMask") == 2  # forward + backward
    assert "StatelessBernoulli" not in ops
    torch.npu.manual_seed(9)
    a = model(x)
    torch.npu.manual_seed(9)
    assert torch.equal(a, model(x))
    model.eval()
    assert torch.equal(model(x), model[0](x))


def test_npu_dropout_family(npu):
    x = torch.randn(5, 40, device=npu, requires_grad=True)
    torch.npu.manual_seed(1)
    out, mask = torch_npu.npu_dropout(x, 0.3)
    torch.npu.manual_seed(1)
    out_legacy, mask_legacy = torch_npu._npu_dropout(x, 0.3)
    assert torch.equal(mask, mask_legacy) and torch.equal(out, out_legacy)
    assert mask.dtype == torch.uint8 and mask.shape == (32,)  # 200 bits rounded up to 256
    kept = _kept(mask, x.shape)
    assert_close(out.detach().cpu(), x.detach().cpu() * kept / 0.7, rtol=1e-6, atol=0)
    out.backward(torch.ones_like(out))
    assert_close(x.grad.cpu(), kept / 0.7, rtol=1e-6, atol=0)
    assert torch.equal(torch_npu.npu_dropout_backward(torch.ones_like(out), mask, 0.3), x.grad)
    torch.npu.manual_seed(1)
    assert torch.equal(torch_npu.npu_dropout_gen_mask(x.shape, 0.3, device=npu), mask)
    assert torch.equal(torch_npu.npu_dropout_do_mask(x.detach(), mask, 0.3)[0], out.detach())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_npu_dropout_with_add_softmax(npu, dtype):
    a = torch.randn(2, 3, 10, 10, dtype=dtype)
    b = torch.randn(2, 3, 10, 10, dtype=dtype)
    an, bn = a.to(npu).requires_grad_(), b.to(npu).requires_grad_()
    with torch.npu.op_records() as rec:
        mask, softmax_out, out = torch_npu.npu_dropout_with_add_softmax(an, bn, 0.125, 0.1, -1)
        out.backward(torch.ones_like(out))
    assert [r.op_type for r in rec.records].count("AxpyWithSoftmaxAndDropOutDoMask") == 1
    assert "DropoutWithMulsAndSoftmaxGrad" in [r.op_type for r in rec.records]
    ac, bc = a.float().requires_grad_(), b.float().requires_grad_()
    sm = torch.softmax(bc + 0.125 * ac, -1)
    ref = sm * _kept(mask, a.shape) / 0.9
    ref.backward(torch.ones_like(ref))
    tol = 2e-3 if dtype == torch.float16 else 1e-5
    assert_close(softmax_out.detach().cpu().float(), sm.detach(), rtol=tol, atol=tol)
    assert_close(out.detach().cpu().float(), ref.detach(), rtol=tol, atol=tol)
    assert_close(an.grad.cpu().float(), ac.grad, rtol=tol, atol=tol)
    assert_close(bn.grad.cpu().float(), bc.grad, rtol=tol, atol=tol)


def test_dropout_bad_arguments(npu):
    x = torch.randn(10, device=npu)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        torch_npu.npu_dropout(x, 1.5)
    with pytest.raises(RuntimeError, match="uint8 bit mask of 16 bytes for 10 elements"):
        torch_npu.npu_dropout_do_mask(x, torch.zeros(10, dtype=torch.uint8, device=npu), 0.5)
    with pytest.raises(RuntimeError, match="expected a float32, float16 or bfloat16 tensor"):
        torch_npu.npu_dropout(torch.ones(3, dtype=torch.int32, device=npu), 0.5)


def test_custom_ops_are_also_in_torchs_namespace_as_in_torch_npus_1_11_line():
    import torch_npu
    names = [n for n in torch_npu.__all__ if n.startswith("npu_")]
    assert {"npu_slice", "npu_format_cast", "npu_dtype_cast", "npu_rms_norm"} <= set(names)
    for name in names:
        assert getattr(torch, name) is getattr(torch_npu, name)
    x = torch.arange(12.0).view(3, 4).npu()
    torch.testing.assert_close(torch.npu_slice(x, [0, 1], [2, 3]).cpu(), x.cpu()[0:2, 1:4])  # offsets, sizes
