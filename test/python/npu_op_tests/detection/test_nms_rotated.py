import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
# test/python's shared reference (on sys.path through test/python/conftest.py)
from rotated_box_reference import nms_rotated_reference

# torch_npu's test_npu_nms_rotated.py: 20 (x1, y1, x2, y2, angle) boxes, run with mode 1
UPSTREAM_DETS = [[1.0382e+03, 3.1657e+02, 1.1556e+03, 4.4303e+02, 2.3674e+00],
                 [1.1503e+03, 3.0598e+02, 1.2602e+03, 4.3456e+02, 3.2729e-01],
                 [1.1508e+03, 3.0652e+02, 1.2607e+03, 4.3472e+02, 5.1713e-01],
                 [1.1518e+03, 3.0781e+02, 1.2622e+03, 4.3448e+02, 3.9718e-01],
                 [1.1748e+03, 3.0202e+02, 1.2859e+03, 4.3915e+02, 1.8112e+00],
                 [1.1711e+03, 3.0480e+02, 1.2868e+03, 4.3551e+02, 2.1171e+00],
                 [1.1673e+03, 3.0675e+02, 1.2889e+03, 4.3194e+02, 2.5968e+00],
                 [1.2741e+03, 3.0181e+02, 1.3823e+03, 4.3036e+02, 2.0379e+00],
                 [1.2741e+03, 3.0286e+02, 1.3836e+03, 4.2940e+02, 2.2072e+00],
                 [1.2733e+03, 3.0382e+02, 1.3855e+03, 4.2846e+02, 2.0921e+00],
                 [1.2935e+03, 3.0517e+02, 1.3961e+03, 4.3137e+02, 2.9583e+00],
                 [1.4076e+03, 3.2173e+02, 1.4930e+03, 4.2714e+02, 2.6099e+00],
                 [1.4097e+03, 3.2496e+02, 1.4934e+03, 4.2651e+02, 3.0967e+00],
                 [1.4097e+03, 3.2569e+02, 1.4935e+03, 4.2632e+02, 2.5553e+00],
                 [1.0279e+03, 3.1883e+02, 1.1412e+03, 4.4646e+02, 1.2030e+00],
                 [1.0275e+03, 3.1776e+02, 1.1408e+03, 4.4641e+02, 1.2732e+00],
                 [1.0289e+03, 3.1694e+02, 1.1407e+03, 4.4510e+02, 9.4897e-01],
                 [1.0372e+03, 3.1233e+02, 1.1477e+03, 4.4521e+02, 1.4125e+00],
                 [1.0370e+03, 3.1564e+02, 1.1487e+03, 4.4317e+02, 1.6109e+00],
                 [1.0367e+03, 3.1682e+02, 1.1510e+03, 4.4020e+02, 1.4112e+00]]
UPSTREAM_SCORES = [0.9910, 0.9854, 0.9972, 0.9930, 0.4282, 0.5092, 0.6532, 0.9965, 0.9989, 0.9976,
                   0.3144, 0.9874, 0.9980, 0.9967, 0.9698, 0.9824, 0.9474, 0.9856, 0.9964, 0.9926]


def random_boxes(num, seed, span=30.0):
    """[num, 5] (cx, cy, w, h, angle) boxes crowded into a span x span square, and [num] distinct scores."""
    g = torch.Generator().manual_seed(seed)
    centre = torch.rand(num, 2, generator=g) * span
    size = torch.rand(num, 2, generator=g) * 12 + 2
    angle = torch.rand(num, 1, generator=g) * 360 - 180
    scores = (torch.randperm(num, generator=g).float() + 1) / (num + 1)
    return torch.cat([centre, size, angle], 1), scores


class TestNmsRotated(TestCase):
    def npu_op_exec(self, dets, scores, iou_threshold, scores_threshold=0.0, max_output_size=-1, mode=0):
        selected, num = torch_npu.npu_nms_rotated(dets.npu(), scores.npu(), iou_threshold, scores_threshold,
                                                  max_output_size, mode)
        self.assertEqual(selected.dtype, torch.int32)
        self.assertEqual(num.dtype, torch.int32)
        self.assertEqual(num.shape, torch.Size([1]))
        self.assertEqual(selected.shape, torch.Size([int(num.cpu()[0])]))
        return selected.cpu(), num.cpu()

    def check(self, expect, dets, scores, iou_threshold, scores_threshold=0.0, max_output_size=-1, mode=0):
        selected, num = self.npu_op_exec(dets, scores, iou_threshold, scores_threshold, max_output_size, mode)
        self.assertRtolEqual(torch.tensor(expect, dtype=torch.int32), selected)
        self.assertRtolEqual(torch.tensor([len(expect)], dtype=torch.int32), num)

    def test_nms_rotated_upstream(self, device="npu"):
        det, score = torch.tensor(UPSTREAM_DETS), torch.tensor(UPSTREAM_SCORES)
        output1, output2 = torch_npu.npu_nms_rotated(det.npu(), score.npu(), 0.2, 0, -1, 1)
        expect_output1 = torch.tensor([8, 12, 2, 18], dtype=torch.int32)
        expect_output2 = torch.tensor([4], dtype=torch.int32)
        self.assertRtolEqual(expect_output1, output1.cpu())
        self.assertRtolEqual(expect_output2, output2.cpu())
        self.assertEqual(nms_rotated_reference(det, score, 0.2, 0, -1, 1), [8, 12, 2, 18])

    def test_nms_rotated_modes(self, device="npu"):
        det, score = torch.tensor(UPSTREAM_DETS), torch.tensor(UPSTREAM_SCORES)
        # mode 0 reads (cx, cy, w, h, angle): the same boxes in that form keep the same ones
        centre_form = torch.cat([(det[:, :2] + det[:, 2:4]) / 2, det[:, 2:4] - det[:, :2], det[:, 4:]], 1)
        self.check([8, 12, 2, 18], centre_form, score, 0.2, mode=0)
        # while the corners read as centres and sizes are huge boxes that all overlap
        self.assertEqual(nms_rotated_reference(det, score, 0.2, 0, -1, 0), [8])
        self.check([8], det, score, 0.2, mode=0)

    def test_nms_rotated_max_output_size(self, device="npu"):
        det, score = torch.tensor(UPSTREAM_DETS), torch.tensor(UPSTREAM_SCORES)
        self.check([8], det, score, 0.2, max_output_size=1, mode=1)
        self.check([8, 12], det, score, 0.2, max_output_size=2, mode=1)
        self.check([8, 12, 2, 18], det, score, 0.2, max_output_size=4, mode=1)
        self.check([8, 12, 2, 18], det, score, 0.2, max_output_size=20, mode=1)

    def test_nms_rotated_thresholds(self, device="npu"):
        det, score = torch.tensor(UPSTREAM_DETS), torch.tensor(UPSTREAM_SCORES)
        # only scores above scores_threshold take part: 2 (0.9972) stays at 0.997, and a score equal to the
        # threshold is dropped
        self.check([8, 12, 2], det, score, 0.2, 0.997, mode=1)
        self.check([8, 12], det, score, 0.2, float(score[2]), mode=1)
        self.check([], det, score, 0.2, 0.999, mode=1)
        # a higher iou_threshold suppresses less
        self.assertEqual(nms_rotated_reference(det, score, 0.7, 0, -1, 1), [8, 12, 2, 18, 6])
        self.check([8, 12, 2, 18, 6], det, score, 0.7, mode=1)

    def test_nms_rotated_random(self, device="npu"):
        for seed, (num, iou_threshold) in enumerate([(12, 0.3), (24, 0.1), (30, 0.5)]):
            dets, scores = random_boxes(num, seed)
            for dtype in (torch.float32, torch.float16):
                d, s = dets.to(dtype), scores.to(dtype)
                expect = nms_rotated_reference(d, s, iou_threshold)
                self.assertGreater(len(expect), 1)
                self.assertLess(len(expect), num)
                self.check(expect, d, s, iou_threshold)
                self.check(expect[:3], d, s, iou_threshold, max_output_size=3)

    def test_nms_rotated_identical_boxes(self, device="npu"):
        # copies of one box (in either form): only the best scoring one is kept
        dets = torch.tensor([[10., 20., 30., 40., 25.]]).repeat(5, 1)
        scores = torch.tensor([0.2, 0.9, 0.5, 0.95, 0.1])
        for mode in (0, 1):
            self.check([3], dets, scores, 0.5, mode=mode)

    def test_nms_rotated_empty(self, device="npu"):
        selected, num = self.npu_op_exec(torch.zeros(0, 5), torch.zeros(0), 0.2, 0, -1, 1)
        self.assertEqual(selected.numel(), 0)
        self.assertRtolEqual(torch.tensor([0], dtype=torch.int32), num)

    def test_nms_rotated_errors(self, device="npu"):
        det, score = torch.tensor(UPSTREAM_DETS).npu(), torch.tensor(UPSTREAM_SCORES).npu()
        with self.assertRaisesRegex(RuntimeError, r"npu_nms_rotated: mode must be 0 \(x, y, w, h, angle\) or 1"):
            torch_npu.npu_nms_rotated(det, score, 0.2, 0, -1, 2)
        with self.assertRaisesRegex(RuntimeError, r"npu_nms_rotated: self must be \[N, 5\]"):
            torch_npu.npu_nms_rotated(det[:, :4], score, 0.2)
        with self.assertRaisesRegex(RuntimeError, r"npu_nms_rotated: scores must be \[N\]"):
            torch_npu.npu_nms_rotated(det, score[:5], 0.2)


if __name__ == "__main__":
    run_tests()
