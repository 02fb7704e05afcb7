"""torchvision.ops on the NPU: the Python functions and modules detection
models call (nms, batched_nms, roi_align, roi_pool, ps_roi_align, ps_roi_pool,
deform_conv2d, MultiScaleRoIAlign), forward and backward, against the CPU, with
no host fallback (Note [torchvision operators on the NPU])."""
import pytest
import torch
from torchvision import ops

from conftest import run_python


def _no_host_fallback(fn):
    with torch.npu.op_records() as rec:
        out = fn()
    fallbacks = [r.op_type for r in rec.records if r.core_type == "host_fallback"]
    assert not fallbacks, fallbacks
    return out


def _boxes(n, size=64.0, seed=0):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * size
    wh = torch.rand(n, 2, generator=g) * size / 2
    return torch.cat([xy, xy + wh], 1)


def _rois(k, batch, size, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.cat([torch.randint(batch, (k, 1), generator=g).float(), _boxes(k, size, seed)], 1)


@pytest.mark.parametrize("n", [0, 1, 200])
def test_nms_and_batched_nms(n):
    boxes, scores = _boxes(n), torch.rand(n)
    idxs = torch.randint(3, (n,))
    keep = _no_host_fallback(lambda: ops.nms(boxes.npu(), scores.npu(), 0.5))
    assert keep.device.type == "npu" and keep.dtype == torch.int64
    assert torch.equal(keep.cpu(), ops.nms(boxes, scores, 0.5))
    keep = _no_host_fallback(lambda: ops.batched_nms(boxes.npu(), scores.npu(), idxs.npu(), 0.4))
    assert torch.equal(keep.cpu(), ops.batched_nms(boxes, scores, idxs, 0.4))


def test_nms_rejects_bad_boxes():
    with pytest.raises(RuntimeError, match="nms: boxes must be \\[N, 4\\]"):
        torch.ops.torchvision.nms(torch.rand(3, 5).npu(), torch.rand(3).npu(), 0.5)
    with pytest.raises(RuntimeError, match="nms: scores must be \\[N\\]"):
        torch.ops.torchvision.nms(torch.rand(3, 4).npu(), torch.rand(2).npu(), 0.5)


@pytest.mark.parametrize("aligned", [False, True])
def test_roi_align_forward_and_backward(aligned):
    x = torch.randn(2, 4, 12, 10)
    rois = _rois(6, 2, 40)
    xn = x.npu().requires_grad_()
    xc = x.clone().requires_grad_()
    out = _no_host_fallback(lambda: ops.roi_align(xn, rois.npu(), (3, 3), 0.25, 2, aligned))
    ref = ops.roi_align(xc, rois, (3, 3), 0.25, 2, aligned)
    torch.testing.assert_close(out.cpu(), ref, rtol=1e-4, atol=1e-5)
    g = torch.randn_like(ref)
    _no_host_fallback(lambda: out.backward(g.npu()))
    ref.backward(g)
    torch.testing.assert_close(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-5)
    # List-of-boxes form (one tensor per image), as MultiScaleRoIAlign passes.
    boxes = [_boxes(3, 40, 5), _boxes(2, 40, 6)]
    torch.testing.assert_close(ops.roi_align(x.npu(), [b.npu() for b in boxes], 2, 0.25, -1, aligned).cpu(),
                               ops.roi_align(x, boxes, 2, 0.25, -1, aligned), rtol=1e-4, atol=1e-5)


def test_roi_pool_forward_and_backward():
    x = torch.randn(2, 3, 12, 10)
    rois = _rois(7, 2, 40)
    xn = x.npu().requires_grad_()
    xc = x.clone().requires_grad_()
    out = _no_host_fallback(lambda: ops.roi_pool(xn, rois.npu(), (2, 3), 0.25))
    ref = ops.roi_pool(xc, rois, (2, 3), 0.25)
    torch.testing.assert_close(out.cpu(), ref)
    out.sum().backward()
    ref.sum().backward()
    torch.testing.assert_close(xn.grad.cpu(), xc.grad)


def test_ps_roi_align_and_ps_roi_pool_forward_and_backward():
    # Boxes stay off the map's last row and column: there torchvision's CPU forward of ps_roi_pool
    # clips bins to H - 1 (its backward and CUDA kernel to H), see Note [Position-sensitive bins].
    x = torch.randn(2, 2 * 3 * 3, 14, 13)
    rois = _rois(5, 2, 28)
    for fn in (ops.ps_roi_align, ops.ps_roi_pool):
        xn = x.npu().requires_grad_()
        xc = x.clone().requires_grad_()
        args = ((3, 3), 0.25, 2) if fn is ops.ps_roi_align else ((3, 3), 0.25)
        out = _no_host_fallback(lambda: fn(xn, rois.npu(), *args))
        ref = fn(xc, rois, *args)
        torch.testing.assert_close(out.cpu(), ref, rtol=1e-4, atol=1e-5)
        g = torch.randn_like(ref)
        out.backward(g.npu())
        ref.backward(g)
        torch.testing.assert_close(xn.grad.cpu(), xc.grad, rtol=1e-4, atol=1e-5)
    with pytest.raises(RuntimeError, match="ps_roi_pool: the input's 5 channels must be a multiple"):
        ops.ps_roi_pool(torch.randn(1, 5, 4, 4).npu(), rois[:1].npu(), 2, 1.0)


@pytest.mark.parametrize("use_mask", [False, True])
def test_deform_conv2d_forward_and_backward(use_mask):
    torch.manual_seed(0)
    x = torch.randn(2, 4, 9, 8)
    weight = torch.randn(6, 2, 3, 3)
    offset = torch.randn(2, 2 * 2 * 9, 5, 8) * 1.5
    mask = torch.rand(2, 2 * 9, 5, 8) if use_mask else None
    bias = torch.randn(6)
    cpu_in = [t.clone().requires_grad_() if t is not None else None for t in (x, weight, offset, mask, bias)]
    npu_in = [t.npu().requires_grad_() if t is not None else None for t in (x, weight, offset, mask, bias)]

    def run(inputs):
        xi, w, o, m, b = inputs
        return ops.deform_conv2d(xi, o, w, b, stride=(2, 1), padding=(1, 1), dilation=(1, 1), mask=m)

    out = _no_host_fallback(lambda: run(npu_in))
    ref = run(cpu_in)
    torch.testing.assert_close(out.cpu(), ref, rtol=1e-4, atol=1e-4)
    g = torch.randn_like(ref)
    out.backward(g.npu())
    ref.backward(g)
    for a, b in zip(npu_in, cpu_in):
        if a is not None:
            torch.testing.assert_close(a.grad.cpu(), b.grad, rtol=1e-3, atol=1e-3)


def test_deform_conv2d_module_and_multiscale_roi_align():
    torch.manual_seed(0)
    layer = ops.DeformConv2d(4, 5, 3, padding=1)
    x, offset = torch.randn(1, 4, 6, 6), torch.randn(1, 18, 6, 6)
    torch.testing.assert_close(layer.npu()(x.npu(), offset.npu()).cpu(), layer.cpu()(x, offset), rtol=1e-4,
                               atol=1e-4)
    pooler = ops.MultiScaleRoIAlign(["p2", "p3"], 7, 2)
    feats = {"p2": torch.randn(1, 8, 32, 32), "p3": torch.randn(1, 8, 16, 16)}
    boxes = [_boxes(6, 100, 3)]
    out = _no_host_fallback(lambda: pooler({k: v.npu() for k, v in feats.items()}, [b.npu() for b in boxes],
                                           [(128, 128)]))
    torch.testing.assert_close(out.cpu(), pooler(feats, boxes, [(128, 128)]), rtol=1e-4, atol=1e-5)


def test_torch_npu_imports_without_torchvision():
    result = run_python("""
        import sys
        sys.modules["torchvision"] = None  # any import of torchvision fails
        import torch, torch_npu
        x = torch.ones(2).npu()
        print("ok", (x + 1).cpu().tolist())
    """)
    assert result.returncode == 0, result.stderr
    assert "ok [2.0, 2.0]" in result.stdout


def test_torchvision_imported_first_also_finds_the_npu_kernels():
    result = run_python("""
        import torchvision, torch
        import torch_npu
        b = torch.tensor([[0., 0., 4., 4.], [0., 0., 4., 5.]])
        print(torchvision.ops.nms(b.npu(), torch.tensor([1., 2.]).npu(), 0.5).cpu().tolist())
    """)
    assert result.returncode == 0, result.stderr
    assert "[1]" in result.stdout
