"""The custom npu:: operators as torch_npu users call them: torch_npu.<name>,
Tensor methods, autograd, and argument errors (the math is checked against
independent CPU expressions in test/cpp/test_custom_ops.cpp)."""
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
                 "npu_dropout_with_add_softmax", "npu_dropout_with_add_softmax_backward", "npu_fusion_attention", "npu_fusion_attention_grad"):
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
    out_npu = (torch_npu.npu_rms_norm(torch_npu.fast_gelu(xn), g.to(npu))[0] @ wn.t() + torch_npu.npu_linear(xn, wn)).sum()
    out_npu.backward()
    fx = x / (1 + torch.exp(-1.702 * x))
    out_cpu = ((fx / torch.sqrt(fx.square().mean(-1, keepdim=True) + 1e-6) * g) @ w.t() + F.linear(x, w)).sum()
    out_cpu.backward()
    assert_close(out_npu, out_cpu.detach(), rtol=1e-4, atol=1e-4)
    assert_close(xn.grad, x.grad, rtol=1e-4, atol=1e-4)
    assert_close(wn.grad, w.grad, rtol=1e-4, atol=1e-4)
    y = torch_npu.npu_dtype_cast(xn, torch.float16)
    assert y.requires_grad and y.grad_fn is not None


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
