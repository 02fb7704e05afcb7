import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
# test/python's shared reference (on sys.path through test/python/conftest.py)
from ps_roi_reference import ps_roi_pooling_backward_reference, ps_roi_pooling_reference

# torch_npu's test's rois, [batch 2, 5, 1 roi each]: (batch index, x1, y1, x2, y2) per column.
UPSTREAM_ROIS = [[[0], [3], [2], [9], [9]], [[1], [1], [4], [9], [9]]]


def random_rois(batch, rois_num, size, seed):
    """[batch, 5, rois_num] rois with corners on a half-pixel grid in [-4, size + 4) (so C's round, halves
    away from zero, matters), some of them reversed (x2 < x1: the 0.1 minimum) or off the map."""
    g = torch.Generator().manual_seed(seed)
    index = torch.randint(batch, (batch, 1, rois_num), generator=g).float()
    x1y1 = torch.randint(-8, 2 * size + 8, (batch, 2, rois_num), generator=g).float() / 2
    x2y2 = x1y1 + torch.randint(-4, size, (batch, 2, rois_num), generator=g).float() / 2
    return torch.cat([index, x1y1, x2y2], 1)


class TestPsRoiPooling(TestCase):
    def cpu_op_exec(self, x, rois, spatial_scale, group_size, output_dim):
        """The reference in float32 on the inputs as the kernel reads them (x and rois in x's dtype)."""
        rois = rois.to(x.dtype)
        return ps_roi_pooling_reference(x, rois, spatial_scale, group_size, output_dim).to(x.dtype)

    def npu_op_exec(self, x, rois, spatial_scale, group_size, output_dim):
        return torch_npu.npu_ps_roi_pooling(x.npu(), rois.npu(), spatial_scale, group_size, output_dim).cpu()

    def check_forward(self, x, rois, spatial_scale, group_size, output_dim):
        expect = self.cpu_op_exec(x, rois, spatial_scale, group_size, output_dim)
        output = self.npu_op_exec(x, rois, spatial_scale, group_size, output_dim)
        self.assertEqual(output.shape, (rois.size(0) * rois.size(2), output_dim, group_size, group_size))
        self.assertEqual(output.dtype, x.dtype)
        self.assertRtolEqual(expect, output, prec16=1e-2)
        return output

    def test_npu_ps_roi_pooling_upstream_rois(self, device="npu"):
        # torch_npu's test on a smaller map: (2, 961, 127, 127) there.
        rois = torch.tensor(UPSTREAM_ROIS, dtype=torch.float32)
        for dtype in (torch.float32, torch.float16):
            x = torch.empty(2, 961, 40, 40).uniform_(0.1, 1).to(dtype)
            output = self.check_forward(x, rois, 0.25, 31, 1)
            self.assertTrue((output != 0).any())

    def test_npu_ps_roi_pooling_random_rois(self, device="npu"):
        for seed, (batch, rois_num, group_size, output_dim, height, width, scale) in enumerate([
                (2, 4, 3, 2, 12, 10, 0.25), (1, 6, 7, 1, 9, 14, 0.5), (3, 2, 2, 3, 5, 5, 1.0)]):
            x = torch.randn(batch, output_dim * group_size ** 2, height, width)
            rois = random_rois(batch, rois_num, int(max(height, width) / scale), seed)
            for dtype in (torch.float32, torch.float16):
                self.check_forward(x.to(dtype), rois, scale, group_size, output_dim)

    def test_npu_ps_roi_pooling_float32_bin_edges(self, device="npu"):
        # The kernel places the bins in float32: these rois have bin edges that float64 would move by a
        # pixel (at the scale 0.1, not a float32; and at 0.5, where the last bin of roi x1 = 1, x2 = 29 ends
        # at 7 * (14.5 / 7) + 0.5, 15 in float32 but just over it in float64).
        rois = torch.tensor([[[0, 0, 0, 0], [2, 4, 8, 12], [4, 3, 6, 9], [9, 27, 39, 23], [12, 23, 11, 39]]],
                            dtype=torch.float32)
        self.check_forward(torch.randn(1, 9, 8, 8), rois, 0.1, 3, 1)
        rois = torch.tensor([[[0], [1], [1], [29], [29]]], dtype=torch.float32)
        self.check_forward(torch.randn(1, 49, 16, 16), rois, 0.5, 7, 1)

    def test_npu_ps_roi_pooling_doc_example(self, device="npu"):
        # The doc example with in-range batch indices (the doc's 6 is outside a batch of 2): on a 1 x 1 map
        # every bin starts at or past row / column 1, so every bin is empty.
        roi = torch.tensor([[[1], [2], [3], [4], [5]], [[0], [7], [8], [9], [10]]], dtype=torch.float16)
        x = torch.arange(1, 17, dtype=torch.float16).reshape(2, 8, 1, 1)
        output = torch_npu.npu_ps_roi_pooling(x.npu(), roi.npu(), 0.5, 2, 2).cpu()
        self.assertRtolEqual(torch.zeros(2, 2, 2, 2, dtype=torch.float16), output)
        # the same rois on a 6 x 6 map have bins to read
        x = torch.rand(2, 8, 6, 6).half()
        self.check_forward(x, roi, 0.5, 2, 2)

    def test_npu_ps_roi_pooling_through_torch_ops(self, device="npu"):
        x, rois = torch.randn(2, 2 * 3 * 3, 8, 8), random_rois(2, 3, 32, 5)
        output = torch.ops.npu.npu_ps_roi_pooling(x.npu(), rois.npu(), 0.25, 3, 2).cpu()
        self.assertRtolEqual(self.cpu_op_exec(x, rois, 0.25, 3, 2), output)

    def test_npu_ps_roi_pooling_no_rois(self, device="npu"):
        x, rois = torch.randn(2, 2 * 3 * 3, 8, 8), torch.zeros(2, 5, 0)
        self.assertEqual(self.npu_op_exec(x, rois, 0.25, 3, 2).shape, (0, 2, 3, 3))
        grad = torch_npu.npu_ps_roi_pooling_backward(torch.zeros(0, 2, 3, 3).npu(), rois.npu(), 0.25, 3, 2, [8, 8])
        self.assertRtolEqual(torch.zeros(2, 18, 8, 8), grad.cpu())

    def test_npu_ps_roi_pooling_autograd(self, device="npu"):
        for dtype in (torch.float32, torch.float16):
            for seed, (rois, group_size, output_dim, size) in enumerate([
                    (torch.tensor(UPSTREAM_ROIS, dtype=torch.float32), 31, 1, (40, 40)),
                    (random_rois(2, 5, 48, 7), 3, 2, (12, 11))]):
                x = torch.rand(2, output_dim * group_size ** 2, *size).to(dtype)
                grad = torch.randn(rois.size(0) * rois.size(2), output_dim, group_size, group_size,
                                   generator=torch.Generator().manual_seed(seed)).to(dtype)
                xn = x.npu().requires_grad_()
                output = torch_npu.npu_ps_roi_pooling(xn, rois.npu(), 0.25, group_size, output_dim)
                output.backward(grad.npu())
                self.assertRtolEqual(self.cpu_op_exec(x, rois, 0.25, group_size, output_dim),
                                     output.detach().cpu(), prec16=1e-2)
                expect = ps_roi_pooling_backward_reference(grad, rois.to(dtype), 0.25, group_size, output_dim, size)
                self.assertEqual(xn.grad.dtype, dtype)
                self.assertRtolEqual(expect.to(dtype), xn.grad.cpu(), prec16=1e-2)

    def test_npu_ps_roi_pooling_backward(self, device="npu"):
        rois = random_rois(2, 4, 40, 11)
        for dtype in (torch.float32, torch.float16):
            grad = torch.randn(8, 2, 3, 3).to(dtype)
            output = torch_npu.npu_ps_roi_pooling_backward(grad.npu(), rois.npu(), 0.25, 3, 2, [10, 9]).cpu()
            self.assertEqual(output.shape, (2, 18, 10, 9))
            self.assertEqual(output.dtype, dtype)
            expect = ps_roi_pooling_backward_reference(grad, rois.to(dtype), 0.25, 3, 2, (10, 9))
            self.assertRtolEqual(expect.to(dtype), output, prec16=1e-2)
        # the adjoint of the forward: <y(x), g> == <x, dx(g)>
        x = torch.randn(2, 18, 10, 9)
        y = self.npu_op_exec(x, rois, 0.25, 3, 2)
        dx = torch_npu.npu_ps_roi_pooling_backward(grad.float().npu(), rois.npu(), 0.25, 3, 2, [10, 9]).cpu()
        self.assertRtolEqual((y * grad.float()).sum(), (x * dx).sum(), prec=1e-4)

    def test_npu_ps_roi_pooling_errors(self, device="npu"):
        x, rois = torch.randn(2, 2 * 3 * 3, 8, 8).npu(), random_rois(2, 3, 32, 13).npu()
        with self.assertRaisesRegex(RuntimeError, r"rois must be \[batch, 5, rois_num\]"):
            torch_npu.npu_ps_roi_pooling(x, rois.transpose(2, 1).reshape(-1, 5), 0.25, 3, 2)
        with self.assertRaisesRegex(RuntimeError, r"rois must be \[batch, 5, rois_num\]"):
            torch_npu.npu_ps_roi_pooling(x, rois[:, 1:], 0.25, 3, 2)
        with self.assertRaisesRegex(RuntimeError, r"channels must be output_dim \* group_size\^2"):
            torch_npu.npu_ps_roi_pooling(x[:, :17], rois, 0.25, 3, 2)
        with self.assertRaisesRegex(RuntimeError, r"channels must be output_dim \* group_size\^2"):
            torch_npu.npu_ps_roi_pooling(x, rois, 0.25, 3, 1)
        with self.assertRaises(RuntimeError):  # rois' batch must be self's
            torch_npu.npu_ps_roi_pooling(x, rois[:1], 0.25, 3, 2)
        with self.assertRaises(RuntimeError):  # output_grad must be [batch * rois_num, output_dim, G, G]
            torch_npu.npu_ps_roi_pooling_backward(torch.zeros(6, 2, 3, 2).npu(), rois, 0.25, 3, 2, [8, 8])
        with self.assertRaises(RuntimeError):  # input_size must be [H, W]
            torch_npu.npu_ps_roi_pooling_backward(torch.zeros(6, 2, 3, 3).npu(), rois, 0.25, 3, 2, [8])


if __name__ == "__main__":
    run_tests()
