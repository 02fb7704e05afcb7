import math

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests

ONLY_SUPPORTED = "only trans=True, is_cross=False, mode=0"


def generate_diou_data(n, m, dtype=np.float32):
    """torch_npu's test data, (4, n) and (4, m) (x, y, w, h): coordinate row i is
    i // 2 + (-1) ** (i // 2) * 0.5 * rand, so centres in [0, 0.5] and sizes in [0.5, 1]."""
    def boxes(k):
        rows = [i // 2 + math.pow(-1, i // 2) * 0.5 * np.random.rand(1, k).astype(np.float32) for i in range(4)]
        return torch.from_numpy(np.concatenate(rows).astype(dtype))
    return boxes(n), boxes(m)


def to_xyxy(boxes):
    x, y, w, h = boxes
    return torch.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2])


class TestDiou(TestCase):
    def cpu_op_exec(self, box1, box2, trans=True, is_cross=False, eps=1e-9):
        """DIoU = IoU - rho^2 / c^2 of box1 (4, n) and box2 (4, m): (1, n) for box1[:, i] with box2[:, i],
        or with is_cross (m, n), [j, i] for box1[:, i] with box2[:, j]; differentiable."""
        if trans:
            box1, box2 = to_xyxy(box1), to_xyxy(box2)
        b1_x1, b1_y1, b1_x2, b1_y2 = (c[None, :] for c in box1)
        b2_x1, b2_y1, b2_x2, b2_y2 = (c[:, None] if is_cross else c[None, :] for c in box2)
        cw = torch.max(b1_x2, b2_x2) - torch.min(b1_x1, b2_x1)
        ch = torch.max(b1_y2, b2_y2) - torch.min(b1_y1, b2_y1)
        c2 = cw ** 2 + ch ** 2 + eps
        rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2) ** 2 + (b2_y1 + b2_y2 - b1_y1 - b1_y2) ** 2) / 4
        inter = (torch.min(b1_x2, b2_x2) - torch.max(b1_x1, b2_x1)).clamp(0) * \
            (torch.min(b1_y2, b2_y2) - torch.max(b1_y1, b2_y1)).clamp(0)
        w1, h1 = b1_x2 - b1_x1, b1_y2 - b1_y1 + eps
        w2, h2 = b2_x2 - b2_x1, b2_y2 - b2_y1 + eps
        union = w1 * h1 + w2 * h2 - inter + eps
        return inter / union - rho2 / c2

    def cpu_grads(self, box1, box2, grad):
        """Autograd of cpu_op_exec (trans=True, in float64), in box1's dtype."""
        box1 = box1.double().requires_grad_()
        box2 = box2.double().requires_grad_()
        self.cpu_op_exec(box1, box2).backward(grad.double())
        return box1.grad.to(grad.dtype), box2.grad.to(grad.dtype)

    def npu_op_exec(self, box1, box2, grad=None):
        box1 = box1.npu().requires_grad_(grad is not None)
        box2 = box2.npu().requires_grad_(grad is not None)
        output = torch_npu.npu_diou(box1, box2, True, False, 0)
        if grad is None:
            return output.detach().cpu()
        output.backward(grad.npu())
        return output.detach().cpu(), box1.grad.cpu(), box2.grad.cpu()

    def test_npu_diou_shape_format(self, device="npu"):
        for dtype in (np.float32, np.float16):
            for n in (10, 12, 100):
                box1, box2 = generate_diou_data(n, n, dtype)
                expect = self.cpu_op_exec(box1.double(), box2.double()).to(box1.dtype)
                output = self.npu_op_exec(box1, box2)
                self.assertEqual(output.shape, (1, n))
                self.assertRtolEqual(expect, output, prec16=1e-2)

    def test_npu_diou_xyxy(self, device="npu"):
        box1, box2 = (to_xyxy(b) for b in generate_diou_data(16, 16))
        expect = self.cpu_op_exec(box1.double(), box2.double(), trans=False).float()
        output = torch_npu.npu_diou(box1.npu(), box2.npu(), trans=False, is_cross=False, mode=0)
        self.assertRtolEqual(expect, output.cpu())

    def test_npu_diou_is_cross(self, device="npu"):
        for trans in (True, False):
            box1, box2 = generate_diou_data(7, 5)
            if not trans:
                box1, box2 = to_xyxy(box1), to_xyxy(box2)
            expect = self.cpu_op_exec(box1.double(), box2.double(), trans, is_cross=True).float()
            output = torch_npu.npu_diou(box1.npu(), box2.npu(), trans, True, 0).cpu()
            self.assertEqual(output.shape, (5, 7))
            self.assertRtolEqual(expect, output)
            # row j pairs every box with ground truth j
            self.assertRtolEqual(self.cpu_op_exec(box1.double(), box2[:, 3:4].expand(4, 7).double(), trans).float(),
                                 output[3:4])

    def test_npu_diou_backward_shape_format(self, device="npu"):
        # torch_npu's test_diou_backward.py: one box pair of its seeded data, against the CPU autograd.
        np.random.seed(1234)
        box1, box2 = generate_diou_data(1, 1)
        expect1, expect2 = self.cpu_grads(box1, box2, torch.ones(1, 1))
        _, grad1, grad2 = self.npu_op_exec(box1, box2, torch.ones(1, 1))
        self.assertRtolEqual(expect1, grad1)
        self.assertRtolEqual(expect2, grad2)

    def test_npu_diou_backward_random(self, device="npu"):
        for dtype, n in ((torch.float32, 10), (torch.float32, 33), (torch.float16, 10)):
            box1, box2 = generate_diou_data(n, n)
            box1, box2 = box1.to(dtype), box2.to(dtype)
            grad = torch.rand(1, n).to(dtype)
            expect1, expect2 = self.cpu_grads(box1, box2, grad)
            _, grad1, grad2 = self.npu_op_exec(box1, box2, grad)
            self.assertRtolEqual(expect1, grad1, prec16=1e-2)
            self.assertRtolEqual(expect2, grad2, prec16=1e-2)
            grad1, grad2 = torch_npu.npu_diou_backward(grad.npu(), box1.npu(), box2.npu(), True, False, 0)
            self.assertRtolEqual(expect1, grad1.cpu(), prec16=1e-2)
            self.assertRtolEqual(expect2, grad2.cpu(), prec16=1e-2)

    def test_npu_diou_backward_only_supports_trans_not_cross_iou(self, device="npu"):
        box1, box2 = generate_diou_data(6, 6)
        for trans, is_cross in ((False, False), (True, True)):
            npu_box1 = box1.npu().requires_grad_()
            output = torch_npu.npu_diou(npu_box1, box2.npu(), trans, is_cross, 0)  # the forward works
            with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
                output.sum().backward()
        for trans, is_cross, mode in ((False, False, 0), (True, True, 0), (True, False, 1)):
            with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
                torch_npu.npu_diou_backward(torch.ones(1, 6).npu(), box1.npu(), box2.npu(), trans, is_cross, mode)

    def test_npu_diou_rejects_iof(self, device="npu"):
        box1, box2 = generate_diou_data(6, 6)
        with self.assertRaisesRegex(RuntimeError, "mode"):
            torch_npu.npu_diou(box1.npu(), box2.npu(), True, False, 1)


if __name__ == "__main__":
    run_tests()
