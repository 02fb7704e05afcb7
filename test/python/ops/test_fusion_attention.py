"""torch_npu.npu_fusion_attention as torch_npu users call it: one fused
FlashAttentionScore op forward, one FlashAttentionScoreGrad backward, autograd
through .backward(), dropout from the device generator (the math for every
layout and dtype is checked against the CPU in
test/cpp/fused/test_fusion_attention_ops.cpp)."""
import math

import pytest
import torch

import torch_npu
from conftest import assert_close


def composition(q, k, v, heads, scale, mask=None, dropout_factor=None):
    """softmax(q k^T * scale, masked) (times the dropout factors) v for BSH tensors, on the CPU."""
    b, s, h = q.shape
    qh, kh, vh = (t.reshape(b, -1, heads, h // heads).transpose(1, 2) for t in (q, k, v))
    scores = qh @ kh.transpose(-1, -2) * scale
    if mask is not None:
        scores = scores.masked_fill(mask, float("-inf"))
    probs = scores.softmax(-1)
    if dropout_factor is not None:
        probs = probs * dropout_factor
    return (probs @ vh).transpose(1, 2).reshape(b, s, h)


def leaves(*tensors, device=None):
    return [t.detach().clone().to(device or t.device).requires_grad_() for t in tensors]


def test_is_a_torch_npu_function_with_torch_npus_results(npu):
    assert "npu_fusion_attention" in torch_npu.__all__ and "npu_fusion_attention_grad" in torch_npu.__all__
    assert "npu::npu_fusion_attention" in torch.npu.get_supported_ops()
    q = torch.randn(2, 6, 32, device=npu)
    out, softmax_max, softmax_sum, softmax_out, seed, offset, numels = torch_npu.npu_fusion_attention(
        q, q, q, 2, "BSH", scale=0.25)
    assert out.shape == q.shape and out.dtype == q.dtype
    assert softmax_max.shape == softmax_sum.shape == (2, 2, 6, 8) and softmax_max.dtype == torch.float32
    assert softmax_out.numel() == 0
    assert (seed, offset, numels) == (0, 0, 0)


def test_backward_matches_the_composition_and_runs_one_fused_op_each_way(npu):
    b, s, heads, d = 2, 16, 4, 16
    q, k, v = (torch.randn(b, s, heads * d) for _ in range(3))
    mask = torch.ones(s, s, dtype=torch.bool).triu(1)  # causal: True = masked out
    dy = torch.randn(b, s, heads * d)
    qc, kc, vc = leaves(q, k, v)
    composition(qc, kc, vc, heads, 1 / math.sqrt(d), mask).backward(dy)
    qn, kn, vn = leaves(q, k, v, device=npu)
    mask_n, dy_n = mask.to(npu), dy.to(npu)
    with torch.npu.op_records() as forward:
        out = torch_npu.npu_fusion_attention(qn, kn, vn, heads, "BSH", atten_mask=mask_n, scale=1 / math.sqrt(d))[0]
    with torch.npu.op_records() as backward:
        out.backward(dy_n)
    assert [r.op_type for r in forward.records] == ["FlashAttentionScore"]
    assert [r.op_type for r in backward.records] == ["FlashAttentionScoreGrad"]
    assert forward.records[0].core_type == backward.records[0].core_type == "ai_core"
    assert forward.records[0].cube_ratio > 0 and forward.records[0].vector_ratio > 0
    assert_close(out, composition(q, k, v, heads, 1 / math.sqrt(d), mask), rtol=1e-4, atol=1e-5)
    for got, want in ((qn.grad, qc.grad), (kn.grad, kc.grad), (vn.grad, vc.grad)):
        assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_the_band_is_the_causal_mask_with_next_tockens_zero(npu):
    q, k, v = (torch.randn(1, 12, 2, 16, device=npu) for _ in range(3))
    causal = torch.ones(12, 12, dtype=torch.bool, device=npu).triu(1)
    by_band = torch_npu.npu_fusion_attention(q, k, v, 2, "BSND", next_tockens=0)[0]
    by_mask = torch_npu.npu_fusion_attention(q, k, v, 2, "BSND", atten_mask=causal)[0]
    assert torch.equal(by_band.cpu(), by_mask.cpu())


def test_dropout_is_reproducible_and_its_gradient_uses_the_same_mask(npu):
    b, s, heads, d, keep = 1, 12, 2, 16, 0.75
    q, k, v, dy = (torch.randn(b, s, heads * d) for _ in range(4))
    torch.npu.manual_seed(7)
    qn, kn, vn = leaves(q, k, v, device=npu)
    out, _, _, _, seed, offset, numels = torch_npu.npu_fusion_attention(qn, kn, vn, heads, "BSH", keep_prob=keep)
    out.backward(dy.to(npu))
    assert seed == 7 and numels == b * heads * s * s
    torch.npu.manual_seed(7)
    again = torch_npu.npu_fusion_attention(q.to(npu), k.to(npu), v.to(npu), heads, "BSH", keep_prob=keep)[0]
    assert torch.equal(again.cpu(), out.detach().cpu())
    # The mask is the device's Bernoulli(keep_prob) stream at (seed, offset).
    state = torch.tensor(list(seed.to_bytes(8, "little") + offset.to_bytes(8, "little")), dtype=torch.uint8)
    torch.npu.set_rng_state(state)
    kept = torch.empty(b, heads, s, s, device=npu).bernoulli_(keep).cpu()
    assert 0.5 < kept.mean().item() < 0.95
    qc, kc, vc = leaves(q, k, v)
    expected = composition(qc, kc, vc, heads, 1.0, dropout_factor=kept / keep)
    expected.backward(dy)
    assert_close(out, expected.detach(), rtol=1e-4, atol=1e-5)
    for got, want in ((qn.grad, qc.grad), (kn.grad, kc.grad), (vn.grad, vc.grad)):
        assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_fused_costs_less_simulated_time_than_the_unfused_ops(npu):
    b, heads, s, d = 2, 8, 256, 64
    q, k, v = (torch.randn(b, heads, s, d, device=npu, dtype=torch.float16) for _ in range(3))
    with torch.npu.op_records() as fused:
        torch_npu.npu_fusion_attention(q, k, v, heads, "BNSD", scale=0.125)
    with torch.npu.op_records() as unfused:
        ((q @ k.transpose(-1, -2)) * 0.125).softmax(-1) @ v
    fused_us = sum(r.duration_us for r in fused.records)
    unfused_us = sum(r.duration_us for r in unfused.records)
    assert fused_us < unfused_us
    assert sum(r.bytes for r in fused.records) * 4 < sum(r.bytes for r in unfused.records)


def test_bad_arguments_say_what_is_wrong(npu):
    q = torch.randn(2, 4, 32, device=npu)
    with pytest.raises(RuntimeError, match="input_layout must be one of BSH, SBH, BNSD, BSND, got 'BHS'"):
        torch_npu.npu_fusion_attention(q, q, q, 2, "BHS")
    with pytest.raises(RuntimeError, match="head_num 3 does not divide the hidden size 32"):
        torch_npu.npu_fusion_attention(q, q, q, 3, "BSH")
    with pytest.raises(RuntimeError, match="query must be 3-D for input_layout BSH"):
        torch_npu.npu_fusion_attention(q[0], q, q, 2, "BSH")
    with pytest.raises(RuntimeError, match="query, key and value must have one dtype"):
        torch_npu.npu_fusion_attention(q, q.half(), q, 2, "BSH")
    with pytest.raises(RuntimeError, match="key is on cpu but query is on npu:0"):
        torch_npu.npu_fusion_attention(q, q.cpu(), q, 2, "BSH")
    with pytest.raises(RuntimeError, match="sparse_mode 3 is not supported"):
        torch_npu.npu_fusion_attention(q, q, q, 2, "BSH", sparse_mode=3)
