import math

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests

ONLY_SUPPORTED = "only trans=True, is_cross=False, mode=0"


def generate_ciou_data(n, m, dtype=np.float32):
    """torch_npu's test data: (4, n) and (4, m) boxes (x, y, w, h), every coordinate 20 * rand."""
    data_bboxes = 20 * np.random.rand(4, n).astype(np.float32)
    data_gtboxes = 20 * np.random.rand(4, m).astype(np.float32)
    return torch.from_numpy(data_bboxes.astype(dtype)), torch.from_numpy(data_gtboxes.astype(dtype))


def to_xyxy(boxes):
    x, y, w, h = boxes
    return torch.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2])


class TestCiou(TestCase):
    def cpu_op_exec(self, box1, box2, trans=True, is_cross=False, eps=1e-9):
        """CIoU = IoU - (rho^2 / c^2 + alpha v) of box1 (4, n) and box2 (4, m): (1, n) for box1[:, i] with
        box2[:, i], or with is_cross (m, n), [j, i] for box1[:, i] with box2[:, j]; differentiable, alpha a
        constant (as in torch_npu's test reference)."""
        if trans:
            box1, box2 = to_xyxy(box1), to_xyxy(box2)
        b1_x1, b1_y1, b1_x2, b1_y2 = (c[None, :] for c in box1)
        b2_x1, b2_y1, b2_x2, b2_y2 = (c[:, None] if is_cross else c[None, :] for c in box2)
        inter = (torch.min(b1_x2, b2_x2) - torch.max(b1_x1, b2_x1)).clamp(0) * \
            (torch.min(b1_y2, b2_y2) - torch.max(b1_y1, b2_y1)).clamp(0)
        w1, h1 = b1_x2 - b1_x1, b1_y2 - b1_y1 + eps
        w2, h2 = b2_x2 - b2_x1, b2_y2 - b2_y1 + eps
        union = w1 * h1 + w2 * h2 - inter + eps
        iou = inter / union
        cw = torch.max(b1_x2, b2_x2) - torch.min(b1_x1, b2_x1)
        ch = torch.max(b1_y2, b2_y2) - torch.min(b1_y1, b2_y1)
        c2 = cw ** 2 + ch ** 2 + eps
        rho2 = ((b2_x1 + b2_x2 - b1_x1 - b1_x2) ** 2 + (b2_y1 + b2_y2 - b1_y1 - b1_y2) ** 2) / 4
        v = (4 / math.pi ** 2) * torch.pow(torch.atan(w2 / h2) - torch.atan(w1 / h1), 2)
        with torch.no_grad():
            alpha = v / ((1 + eps) - iou + v)
        return iou - (rho2 / c2 + v * alpha)

    def cpu_grads(self, box1, box2, grad):
        """Autograd of cpu_op_exec (trans=True, in float64), in box1's dtype."""
        box1 = box1.double().requires_grad_()
        box2 = box2.double().requires_grad_()
        self.cpu_op_exec(box1, box2).backward(grad.double())
        return box1.grad.to(grad.dtype), box2.grad.to(grad.dtype)

    def test_npu_ciou_shape_format(self, device="npu"):
        for dtype, n in ((np.float32, 6), (np.float32, 12), (np.float32, 100), (np.float16, 12)):
            box1, box2 = generate_ciou_data(n, n, dtype)
            expect = self.cpu_op_exec(box1.double(), box2.double()).to(box1.dtype)
            for atan_sub_flag in (True, False):
                output = torch_npu.npu_ciou(box1.npu(), box2.npu(), True, False, 0, atan_sub_flag).cpu()
                self.assertEqual(output.shape, (1, n))
                self.assertRtolEqual(expect, output, prec16=1e-2)

    def test_npu_ciou_custom_ops_case(self, device="npu"):
        # torch_npu's custom_ops/test_npu_ciou.py: coordinates uniform in [0, 10), keyword arguments.
        prediction = torch.rand(4, 32, dtype=torch.float32).uniform_(0, 10)
        gtbox = torch.rand(4, 32, dtype=torch.float32).uniform_(0, 10)
        expect = self.cpu_op_exec(prediction.double(), gtbox.double()).float()
        output = torch_npu.npu_ciou(prediction.npu(), gtbox.npu(), trans=True, is_cross=False, mode=0)
        self.assertRtolEqual(expect, output.cpu())

    def test_npu_ciou_is_cross(self, device="npu"):
        box1, box2 = generate_ciou_data(7, 5)
        expect = self.cpu_op_exec(box1.double(), box2.double(), True, is_cross=True).float()
        # is_cross defaults to True
        output = torch_npu.npu_ciou(box1.npu(), box2.npu(), True).cpu()
        self.assertEqual(output.shape, (5, 7))
        self.assertRtolEqual(expect, output)
        box1, box2 = to_xyxy(box1), to_xyxy(box2)
        expect = self.cpu_op_exec(box1.double(), box2.double(), False, is_cross=True).float()
        self.assertRtolEqual(expect, torch_npu.npu_ciou(box1.npu(), box2.npu(), False, True, 0, True).cpu())
        box1 = box1[:, :5].contiguous()
        expect = self.cpu_op_exec(box1.double(), box2.double(), False).float()
        self.assertRtolEqual(expect, torch_npu.npu_ciou(box1.npu(), box2.npu(), False, False).cpu())

    def test_npu_ciou_backward_shape_format(self, device="npu"):
        # torch_npu's test_ciou_backward.py: against the CPU autograd, alpha a constant.
        for n in (6, 32):
            box1, box2 = generate_ciou_data(n, n)
            grad = torch.rand(1, n)
            expect1, expect2 = self.cpu_grads(box1, box2, grad)
            npu_box1, npu_box2 = box1.npu().requires_grad_(), box2.npu().requires_grad_()
            output = torch_npu.npu_ciou(npu_box1, npu_box2, True, False, 0, True)
            output.backward(grad.npu())
            self.assertRtolEqual(self.cpu_op_exec(box1.double(), box2.double()).float(), output.detach().cpu())
            self.assertRtolEqual(expect1, npu_box1.grad.cpu())
            self.assertRtolEqual(expect2, npu_box2.grad.cpu())

    def test_npu_ciou_backward_only_supports_trans_not_cross_iou(self, device="npu"):
        box1, box2 = generate_ciou_data(6, 6)
        for trans, is_cross in ((False, False), (True, True)):
            npu_box1 = box1.npu().requires_grad_()
            output = torch_npu.npu_ciou(npu_box1, box2.npu(), trans, is_cross, 0, True)  # the forward works
            with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
                output.sum().backward()
        atan_sub = torch.zeros(1, 6).npu()
        for trans, is_cross, mode in ((False, False, 0), (True, True, 0), (True, False, 1)):
            with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
                torch_npu.npu_ciou_backward(torch.ones(1, 6).npu(), box1.npu(), box2.npu(), atan_sub, trans,
                                            is_cross, mode)

    def test_npu_ciou_rejects_iof(self, device="npu"):
        box1, box2 = generate_ciou_data(6, 6)
        with self.assertRaisesRegex(RuntimeError, "mode"):
            torch_npu.npu_ciou(box1.npu(), box2.npu(), True, False, 1, True)


if __name__ == "__main__":
    run_tests()
