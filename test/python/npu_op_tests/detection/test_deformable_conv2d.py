import torch
import torch_npu
import torchvision

from torch_npu.testing.testcase import TestCase, run_tests


def to_torchvision_layout(offset, groups, kk):
    """torch_npu's [x block, y block, mask block] offsets as torchvision's interleaved (dy, dx) and its mask."""
    n, _, ho, wo = offset.shape
    xs = offset[:, :groups * kk].reshape(n, groups, kk, 1, ho, wo)
    ys = offset[:, groups * kk:2 * groups * kk].reshape(n, groups, kk, 1, ho, wo)
    return torch.cat([ys, xs], 3).reshape(n, 2 * groups * kk, ho, wo), offset[:, 2 * groups * kk:]


class TestDeformableConv2d(TestCase):
    def test_deformable_conv2d_forward_and_backward_match_torchvision(self, device="npu"):
        torch.manual_seed(0)
        for groups, dg in ((1, 1), (2, 2)):
            x = torch.rand(2, 4, 9, 8) * 4
            weight = torch.rand(6, 4 // groups, 3, 3) - 0.5
            offset = torch.rand(2, 3 * dg * 9, 9, 8) * 3 - 1.5
            bias = torch.rand(6)
            xn, wn, on, bn = (t.npu().requires_grad_() for t in (x, weight, offset, bias))
            out, patches = torch_npu.npu_deformable_conv2d(xn, wn, on, bn, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1],
                                                           groups=groups, deformable_groups=dg)
            self.assertEqual(patches.shape, torch.Size([2, 4, 27, 24]))
            xc, wc, oc, bc = (t.clone().requires_grad_() for t in (x, weight, offset, bias))
            tv_offset, tv_mask = to_torchvision_layout(oc, dg, 9)
            ref = torchvision.ops.deform_conv2d(xc, tv_offset, wc, bc, padding=1, mask=tv_mask)
            self.assertRtolEqual(ref.detach(), out.detach().cpu(), prec=1e-4)
            g = torch.randn_like(ref)
            out.backward(g.npu())
            ref.backward(g)
            for a, b in ((xn, xc), (wn, wc), (on, oc), (bn, bc)):
                self.assertRtolEqual(b.grad, a.grad.cpu(), prec=1e-3)

    def test_unmodulated_without_bias_and_strided(self, device="npu"):
        torch.manual_seed(1)
        x, weight = torch.rand(1, 3, 10, 9), torch.rand(4, 3, 3, 3) - 0.5
        offset = torch.rand(1, 2 * 9, 5, 5) * 2 - 1  # stride 2: a 5 x 5 output
        out, _ = torch_npu.npu_deformable_conv2d(x.npu(), weight.npu(), offset.npu(), None, [3, 3], [1, 1, 2, 2],
                                                 [1, 1, 1, 1], modulated=False)
        tv_offset, _ = to_torchvision_layout(offset, 1, 9)
        ref = torchvision.ops.deform_conv2d(x, tv_offset, weight, stride=2, padding=1)
        self.assertRtolEqual(ref, out.cpu(), prec=1e-4)

    def test_deformable_conv2d_rejects_a_wrong_offset(self, device="npu"):
        with self.assertRaisesRegex(RuntimeError, "npu_deformable_conv2d: offset must be"):
            torch_npu.npu_deformable_conv2d(torch.rand(1, 2, 5, 5).npu(), torch.rand(2, 2, 3, 3).npu(),
                                            torch.rand(1, 18, 5, 5).npu(), None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1])


if __name__ == "__main__":
    run_tests()
