import math

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests

ONLY_SUPPORTED = "only trans=True, is_cross=False, mode=0"


def generate_giou_data(n, m, dtype=np.float32):
    """torch_npu's test data, (4, n) and (4, m) (x, y, w, h): coordinate row i is
    i // 2 + (-1) ** (i // 2) * 0.5 * rand, so centres in [0, 0.5] and sizes in [0.5, 1]."""
    def boxes(k):
        rows = [i // 2 + math.pow(-1, i // 2) * 0.5 * np.random.rand(1, k).astype(np.float32) for i in range(4)]
        return torch.from_numpy(np.concatenate(rows).astype(dtype))
    return boxes(n), boxes(m)


class TestGiou(TestCase):
    def cpu_op_exec(self, box1, box2):
        """GIoU of box1[:, i] and box2[:, i], both (x, y, w, h), as (n, 1); differentiable."""
        b1_x1, b1_x2 = box1[0] - box1[2] / 2, box1[0] + box1[2] / 2
        b1_y1, b1_y2 = box1[1] - box1[3] / 2, box1[1] + box1[3] / 2
        b2_x1, b2_x2 = box2[0] - box2[2] / 2, box2[0] + box2[2] / 2
        b2_y1, b2_y2 = box2[1] - box2[3] / 2, box2[1] + box2[3] / 2
        inter = (torch.min(b1_x2, b2_x2) - torch.max(b1_x1, b2_x1)).clamp(0) * \
            (torch.min(b1_y2, b2_y2) - torch.max(b1_y1, b2_y1)).clamp(0)
        union = (b1_x2 - b1_x1) * (b1_y2 - b1_y1) + (b2_x2 - b2_x1) * (b2_y2 - b2_y1) - inter + 1e-16
        c_area = (torch.max(b1_x2, b2_x2) - torch.min(b1_x1, b2_x1)) * \
            (torch.max(b1_y2, b2_y2) - torch.min(b1_y1, b2_y1))
        return (inter / union - (c_area - union) / c_area).reshape(-1, 1)

    def cpu_grads(self, box1, box2, grad):
        """Autograd of cpu_op_exec (in float64), in box1's dtype."""
        box1 = box1.double().requires_grad_()
        box2 = box2.double().requires_grad_()
        self.cpu_op_exec(box1, box2).backward(grad.double())
        return box1.grad.to(grad.dtype), box2.grad.to(grad.dtype)

    def npu_op_exec(self, box1, box2, grad=None):
        box1 = box1.npu().requires_grad_(grad is not None)
        box2 = box2.npu().requires_grad_(grad is not None)
        output = torch_npu.npu_giou(box1, box2, True, False, 0)
        if grad is None:
            return output.detach().cpu()
        output.backward(grad.npu())
        return output.detach().cpu(), box1.grad.cpu(), box2.grad.cpu()

    def test_npu_giou_shape_format(self, device="npu"):
        for dtype in (np.float32, np.float16):
            for n in (10, 12, 100):
                box1, box2 = generate_giou_data(n, n, dtype)
                expect = self.cpu_op_exec(box1.double(), box2.double()).to(box1.dtype)
                output = self.npu_op_exec(box1, box2)
                self.assertEqual(output.shape, (n, 1))
                self.assertRtolEqual(expect, output, prec16=1e-2)

    def test_npu_giou_doc_example(self, device="npu"):
        box1 = torch.rand(4, 10).uniform_(0, 1).half()
        output = torch_npu.npu_giou(box1.npu(), box1.npu(), trans=True, is_cross=False, mode=0)
        self.assertRtolEqual(torch.ones(10, 1, dtype=torch.float16), output.cpu())

    def test_npu_giou_backward_shape_format(self, device="npu"):
        # torch_npu's test_giou_backward.py, with its expected gradients.
        np.random.seed(1234)
        box1, box2 = generate_giou_data(1, 1)
        _, grad1, grad2 = self.npu_op_exec(box1, box2, torch.ones(1, 1))
        expected_cpu_grad1 = np.array([[1.0218241], [-1.4181931], [0.18631615], [0.1747725]], dtype=np.float32)
        expected_cpu_grad2 = np.array([[-1.0218241], [1.4181931], [0.17999186], [0.23653218]], dtype=np.float32)
        self.assertRtolEqual(expected_cpu_grad1, grad1.numpy())
        self.assertRtolEqual(expected_cpu_grad2, grad2.numpy())

    def test_npu_giou_backward_random(self, device="npu"):
        for dtype, n in ((torch.float32, 10), (torch.float32, 33), (torch.float16, 10)):
            box1, box2 = generate_giou_data(n, n)
            box1, box2 = box1.to(dtype), box2.to(dtype)
            grad = torch.rand(n, 1).to(dtype)
            expect1, expect2 = self.cpu_grads(box1, box2, grad)
            _, grad1, grad2 = self.npu_op_exec(box1, box2, grad)
            self.assertRtolEqual(expect1, grad1, prec16=1e-2)
            self.assertRtolEqual(expect2, grad2, prec16=1e-2)
            # the backward operator called directly
            grad1, grad2 = torch_npu.npu_giou_backward(grad.npu(), box1.npu(), box2.npu(), True, False, 0)
            self.assertRtolEqual(expect1, grad1.cpu(), prec16=1e-2)
            self.assertRtolEqual(expect2, grad2.cpu(), prec16=1e-2)

    def test_npu_giou_only_supports_trans_not_cross_iou(self, device="npu"):
        box1, box2 = (b.npu() for b in generate_giou_data(6, 6))
        for trans, is_cross, mode in ((False, False, 0), (True, True, 0), (False, True, 0)):
            with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
                torch_npu.npu_giou(box1, box2, trans, is_cross, mode)
        with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
            torch_npu.npu_giou(box1, box2)  # the defaults: trans=False
        with self.assertRaisesRegex(RuntimeError, "mode"):
            torch_npu.npu_giou(box1, box2, True, False, 1)
        with self.assertRaisesRegex(RuntimeError, ONLY_SUPPORTED):
            torch_npu.npu_giou_backward(torch.ones(6, 1).npu(), box1, box2, False, False, 0)


if __name__ == "__main__":
    run_tests()
