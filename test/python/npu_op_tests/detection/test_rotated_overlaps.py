import math

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
# test/python's shared reference (on sys.path through test/python/conftest.py)
from rotated_box_reference import corners_form, random_boxes, rotated_overlaps_reference, upstream_random_boxes


class TestRotatedOverlaps(TestCase):
    def cpu_op_exec(self, boxes, query_boxes, trans=False):
        """The exact overlaps of the inputs as the kernel reads them, rounded as it rounds them (float32, then
        the input dtype)."""
        return rotated_overlaps_reference(boxes, query_boxes, trans).float().to(boxes.dtype)

    def npu_op_exec(self, boxes, query_boxes, trans=False):
        output = torch_npu.npu_rotated_overlaps(boxes.npu(), query_boxes.npu(), trans)
        self.assertEqual(output.dtype, boxes.dtype)
        self.assertEqual(output.shape, (boxes.size(0), boxes.size(1), query_boxes.size(1)))
        return output.cpu()

    def upstream_data(self, shape_one, shape_two, dtype):
        np.random.seed(1234)
        boxes = upstream_random_boxes(shape_one, 30, 60, dtype)
        query_boxes = upstream_random_boxes(shape_two, 30, 60, dtype)
        return torch.from_numpy(boxes), torch.from_numpy(query_boxes)

    def test_rotated_overlaps_upstream_fp32(self, device="npu"):
        boxes, query_boxes = self.upstream_data([1, 3, 5], [1, 2, 5], np.float32)
        expect = torch.tensor([[[0., 10.289731], [0., 0.], [0., 0.]]], dtype=torch.float32)
        self.assertRtolEqual(expect, self.npu_op_exec(boxes, query_boxes), prec=0.00005)

    def test_rotated_overlaps_upstream_fp16(self, device="npu"):
        boxes, query_boxes = self.upstream_data([1, 3, 5], [1, 4, 5], np.float16)
        expect = torch.tensor([[[0., 13.27, 1.022, 0.], [0., 0., 54.12, 0.], [0., 0., 0., 19.17]]],
                              dtype=torch.float16)
        self.assertRtolEqual(expect, self.npu_op_exec(boxes, query_boxes))

    def test_rotated_overlaps_random(self, device="npu"):
        for seed, (batch, num, query_num) in enumerate([(2, 6, 5), (1, 9, 7), (3, 4, 1)]):
            boxes, query_boxes = random_boxes(batch, num, 2 * seed), random_boxes(batch, query_num, 2 * seed + 1)
            for dtype in (torch.float32, torch.float16):
                b, q = boxes.to(dtype), query_boxes.to(dtype)
                expect = self.cpu_op_exec(b, q)
                self.assertTrue((expect > 0).any())
                self.assertRtolEqual(expect, self.npu_op_exec(b, q), prec16=1e-2)

    def test_rotated_overlaps_trans(self, device="npu"):
        # trans=True reads (x1, y1, x2, y2, angle); the box turns about its centre.
        boxes, query_boxes = random_boxes(2, 5, 10), random_boxes(2, 4, 11)
        x1y1x2y2, query_x1y1x2y2 = corners_form(boxes), corners_form(query_boxes)
        output = self.npu_op_exec(x1y1x2y2, query_x1y1x2y2, True)
        self.assertRtolEqual(self.cpu_op_exec(x1y1x2y2, query_x1y1x2y2, True), output)
        self.assertRtolEqual(self.npu_op_exec(boxes, query_boxes), output, prec=1e-3)
        half = self.npu_op_exec(x1y1x2y2.half(), query_x1y1x2y2.half(), True)
        self.assertRtolEqual(self.cpu_op_exec(x1y1x2y2.half(), query_x1y1x2y2.half(), True), half, prec16=1e-2)

    def test_rotated_overlaps_exact_areas(self, device="npu"):
        boxes = torch.tensor([[[0., 0., 2., 2., 0.], [0., 0., 4., 2., 0.], [5., 5., 3., 4., 30.]]])
        query_boxes = torch.tensor([[[0., 0., 2., 2., 45.], [0., 0., 4., 2., 90.], [5., 5., 4., 3., -60.],
                                     [20., 0., 1., 1., 0.]]])
        expect = torch.tensor([[[8 * (math.sqrt(2) - 1), 4., 0., 0.],  # a square and itself turned 45: an octagon
                                [4 - 2 * (math.sqrt(2) - 1) ** 2, 4., 0., 0.],  # the diamond less its two tips
                                [0., 0., 12., 0.]]])  # 3 x 4 at 30 degrees is 4 x 3 at -60
        output = self.npu_op_exec(boxes, query_boxes)
        self.assertRtolEqual(expect, output)
        # a box overlaps itself by its whole area, at any angle (and at the angle + 180)
        box = torch.tensor([[[49.0558, 48.6634, 5., 7., 3.]]])
        self.assertRtolEqual(torch.tensor([[[35.]]]), self.npu_op_exec(box, box))
        turned = box.clone()
        turned[..., 4] += 180
        self.assertRtolEqual(torch.tensor([[[35.]]]), self.npu_op_exec(box, turned))

    def test_rotated_overlaps_zero_area_boxes(self, device="npu"):
        # A point box (w = h = 0) and a flat one overlap nothing, whichever side the box is on.
        boxes = torch.tensor([[[0., 0., 4., 2., 30.], [0., 0., 0., 0., 0.], [0., 0., 0., 3., 10.]]])
        self.assertRtolEqual(torch.zeros(1, 2, 3), self.npu_op_exec(boxes[:, 1:], boxes))
        self.assertRtolEqual(torch.zeros(1, 3, 2), self.npu_op_exec(boxes, boxes[:, 1:]))

    def test_rotated_overlaps_angle_is_counter_clockwise_degrees(self, device="npu"):
        # A 10 x 1 bar turned +45 degrees runs along y = x (through the unit square at (3, 3)); at -45 along y = -x.
        bars = torch.tensor([[[0., 0., 10., 1., 45.], [0., 0., 10., 1., -45.], [0., 0., 10., 1., 0.785398]]])
        square = torch.tensor([[[3., 3., 1., 1., 0.]]])
        output = self.npu_op_exec(bars, square)
        self.assertRtolEqual(self.cpu_op_exec(bars, square), output)
        self.assertGreater(float(output[0, 0, 0]), 0.9)
        self.assertEqual(float(output[0, 1, 0]), 0.)
        self.assertEqual(float(output[0, 2, 0]), 0.)  # pi / 4 read as degrees: nearly flat

    def test_rotated_overlaps_empty(self, device="npu"):
        for shape_one, shape_two in (([2, 0, 5], [2, 3, 5]), ([2, 3, 5], [2, 0, 5]), ([0, 3, 5], [0, 2, 5])):
            output = self.npu_op_exec(torch.rand(shape_one), torch.rand(shape_two))
            self.assertEqual(output.numel(), 0)

    def test_rotated_overlaps_errors(self, device="npu"):
        boxes, query_boxes = random_boxes(2, 3, 20).npu(), random_boxes(2, 4, 21).npu()
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_overlaps: self must be \[B, N, 5\]"):
            torch_npu.npu_rotated_overlaps(boxes[..., :4], query_boxes)
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_overlaps: self must be \[B, N, 5\]"):
            torch_npu.npu_rotated_overlaps(boxes[0], query_boxes)
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_overlaps: query_boxes must be \[B, N, 5\]"):
            torch_npu.npu_rotated_overlaps(boxes, query_boxes.transpose(1, 2))
        with self.assertRaisesRegex(RuntimeError, "must have one batch size"):
            torch_npu.npu_rotated_overlaps(boxes, query_boxes[:1])


if __name__ == "__main__":
    run_tests()
