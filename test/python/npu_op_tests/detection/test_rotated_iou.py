import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
# test/python's shared reference (on sys.path through test/python/conftest.py)
from rotated_box_reference import corners_form, random_boxes, rotated_iou_reference, upstream_random_boxes

# torch_npu's expected IoU of its seed-1234 boxes (fp32; its fp16 test checks fp16 boxes against the same numbers)
UPSTREAM_IOU = [[[0., 0.00045966, 0.], [0., 0., 0.]],
                [[0., 0., 0.], [0., 0., 0.]],
                [[0., 0., 0.], [0.00600622, 0.10504241, 0.]],
                [[0., 0., 0.], [0., 0., 0.]]]


class TestRotatedIou(TestCase):
    def cpu_op_exec(self, boxes, query_boxes, trans=False, mode=0):
        """The exact IoU / IoF of the inputs as the kernel reads them, rounded as it rounds them (float32,
        then the input dtype)."""
        return rotated_iou_reference(boxes, query_boxes, trans, mode).float().to(boxes.dtype)

    def npu_op_exec(self, boxes, query_boxes, trans=False, mode=0, is_cross=True, v_threshold=0.0, e_threshold=0.0):
        output = torch_npu.npu_rotated_iou(boxes.npu(), query_boxes.npu(), trans, mode, is_cross, v_threshold,
                                           e_threshold)
        self.assertEqual(output.dtype, boxes.dtype)
        self.assertEqual(output.shape, (boxes.size(0), boxes.size(1), query_boxes.size(1)))
        return output.cpu()

    def upstream_data(self, dtype):
        np.random.seed(1234)
        boxes = upstream_random_boxes([4, 2, 5], 20, 60, dtype)
        query_boxes = upstream_random_boxes([4, 3, 5], 20, 60, dtype)
        return torch.from_numpy(boxes), torch.from_numpy(query_boxes)

    def test_rotated_iou_upstream_fp32(self, device="npu"):
        boxes, query_boxes = self.upstream_data(np.float32)
        self.assertRtolEqual(torch.tensor(UPSTREAM_IOU, dtype=torch.float32), self.npu_op_exec(boxes, query_boxes))

    def test_rotated_iou_upstream_fp16(self, device="npu"):
        # torch_npu compares the IoU of the fp16 boxes with the fp32 boxes' numbers: they agree within the
        # absolute 1e-3 (0.1044 there against 0.1050), which is all this checks; the reference is closer.
        boxes, query_boxes = self.upstream_data(np.float16)
        output = self.npu_op_exec(boxes, query_boxes)
        self.assertRtolEqual(torch.tensor(UPSTREAM_IOU, dtype=torch.float16), output)
        self.assertRtolEqual(self.cpu_op_exec(boxes, query_boxes), output)

    def test_rotated_iou_and_iof_random(self, device="npu"):
        for seed, (batch, num, query_num) in enumerate([(2, 6, 5), (1, 9, 7), (3, 4, 1)]):
            boxes, query_boxes = random_boxes(batch, num, 2 * seed), random_boxes(batch, query_num, 2 * seed + 1)
            for dtype in (torch.float32, torch.float16):
                b, q = boxes.to(dtype), query_boxes.to(dtype)
                for mode in (0, 1):
                    expect = self.cpu_op_exec(b, q, mode=mode)
                    self.assertTrue((expect > 0).any())
                    self.assertRtolEqual(expect, self.npu_op_exec(b, q, mode=mode), prec16=1e-2)

    def test_rotated_iou_trans(self, device="npu"):
        # trans=True reads (x1, y1, x2, y2, angle); the box turns about its centre.
        boxes, query_boxes = random_boxes(2, 5, 10), random_boxes(2, 4, 11)
        x1y1x2y2, query_x1y1x2y2 = corners_form(boxes), corners_form(query_boxes)
        for mode in (0, 1):
            output = self.npu_op_exec(x1y1x2y2, query_x1y1x2y2, True, mode)
            self.assertRtolEqual(self.cpu_op_exec(x1y1x2y2, query_x1y1x2y2, True, mode), output)
            self.assertRtolEqual(self.npu_op_exec(boxes, query_boxes, False, mode), output, prec=1e-3)
            half = self.npu_op_exec(x1y1x2y2.half(), query_x1y1x2y2.half(), True, mode)
            self.assertRtolEqual(self.cpu_op_exec(x1y1x2y2.half(), query_x1y1x2y2.half(), True, mode), half,
                                 prec16=1e-2)

    def test_rotated_iou_from_the_overlaps(self, device="npu"):
        # IoU = overlap / (area1 + area2 - overlap), IoF = overlap / area1, with npu_rotated_overlaps' overlaps.
        boxes, query_boxes = random_boxes(2, 7, 30), random_boxes(2, 6, 31)
        inter = torch_npu.npu_rotated_overlaps(boxes.npu(), query_boxes.npu(), False).cpu()
        area1 = boxes[..., 2:4].prod(-1)[:, :, None]
        area2 = query_boxes[..., 2:4].prod(-1)[:, None, :]
        self.assertRtolEqual(inter / (area1 + area2 - inter), self.npu_op_exec(boxes, query_boxes, mode=0))
        self.assertRtolEqual(inter / area1, self.npu_op_exec(boxes, query_boxes, mode=1))

    def test_rotated_iou_exact_values(self, device="npu"):
        boxes = torch.tensor([[[0., 0., 4., 2., 0.], [10., 10., 2., 2., 30.]]])
        query_boxes = torch.tensor([[[0., 0., 4., 2., 90.], [10., 10., 4., 4., 30.], [10., 10., 2., 2., 210.]]])
        # crossed 4 x 2 boxes share 2 x 2; a 2 x 2 box inside a 4 x 4 one at the same angle; a box and itself
        # turned 180 degrees
        iou = torch.tensor([[[4. / 12., 0., 0.], [0., 4. / 16., 1.]]])
        iof = torch.tensor([[[4. / 8., 0., 0.], [0., 1., 1.]]])
        for dtype in (torch.float32, torch.float16):
            b, q = boxes.to(dtype), query_boxes.to(dtype)
            self.assertRtolEqual(iou.to(dtype), self.npu_op_exec(b, q, mode=0))
            self.assertRtolEqual(iof.to(dtype), self.npu_op_exec(b, q, mode=1))
            # iof divides by self's box: the other way round the nested pair gives 1/4
            self.assertRtolEqual(torch.tensor(0.25, dtype=dtype), self.npu_op_exec(q, b, mode=1)[0, 1, 1])

    def test_rotated_iou_zero_area_boxes(self, device="npu"):
        # A point box (w = h = 0) and a flat one overlap nothing: IoU and IoF 0 (not NaN where the
        # denominator is 0), whichever side the box is on.
        boxes = torch.tensor([[[0., 0., 4., 2., 30.], [0., 0., 0., 0., 0.], [0., 0., 0., 3., 10.]]])
        for mode in (0, 1):
            self.assertRtolEqual(torch.zeros(1, 2, 3), self.npu_op_exec(boxes[:, 1:], boxes, mode=mode))
            self.assertRtolEqual(torch.zeros(1, 3, 2), self.npu_op_exec(boxes, boxes[:, 1:], mode=mode))

    def test_rotated_iou_thresholds_are_accepted(self, device="npu"):
        boxes, query_boxes = random_boxes(1, 5, 40), random_boxes(1, 4, 41)
        self.assertRtolEqual(self.cpu_op_exec(boxes, query_boxes),
                             self.npu_op_exec(boxes, query_boxes, v_threshold=1e-6, e_threshold=1e-6))

    def test_rotated_iou_empty(self, device="npu"):
        for shape_one, shape_two in (([2, 0, 5], [2, 3, 5]), ([2, 3, 5], [2, 0, 5])):
            self.assertEqual(self.npu_op_exec(torch.rand(shape_one), torch.rand(shape_two)).numel(), 0)

    def test_rotated_iou_errors(self, device="npu"):
        boxes, query_boxes = random_boxes(2, 3, 50).npu(), random_boxes(2, 4, 51).npu()
        with self.assertRaisesRegex(RuntimeError, "is_cross=False is not supported"):
            torch_npu.npu_rotated_iou(boxes, query_boxes, False, 0, False, 0.0, 0.0)
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_iou: mode must be 0 \(iou\) or 1 \(iof\), got 2"):
            torch_npu.npu_rotated_iou(boxes, query_boxes, False, 2, True, 0.0, 0.0)
        with self.assertRaisesRegex(RuntimeError, "mode must be 0"):
            torch_npu.npu_rotated_iou(boxes, query_boxes, False, -1)
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_iou: self must be \[B, N, 5\]"):
            torch_npu.npu_rotated_iou(boxes[..., :4], query_boxes)
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_iou: query_boxes must be \[B, N, 5\]"):
            torch_npu.npu_rotated_iou(boxes, query_boxes[0])
        with self.assertRaisesRegex(RuntimeError, "must have one batch size"):
            torch_npu.npu_rotated_iou(boxes, query_boxes[:1])


if __name__ == "__main__":
    run_tests()
