import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
# test/python's shared reference (on sys.path through test/python/conftest.py)
from rotated_box_reference import rotated_box_decode_reference, rotated_box_encode_reference


def random_boxes(batch, num, seed, low=-80.0, high=80.0):
    """[batch, 5, num] boxes, rows (x1, y1, x2, y2, angle in degrees), angles in [low, high)."""
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(batch, 2, num, generator=g) * 50
    wh = torch.rand(batch, 2, num, generator=g) * 20 + 1
    angle = torch.rand(batch, 1, num, generator=g) * (high - low) + low
    return torch.cat([xy, xy + wh, angle], 1)


class TestRotatedBoxCoding(TestCase):
    def npu_encode(self, anchors, gt_bboxes, weight):
        output = torch_npu.npu_rotated_box_encode(anchors.npu(), gt_bboxes.npu(), weight.npu())
        self.assertEqual(output.dtype, anchors.dtype)
        self.assertEqual(output.shape, anchors.shape)
        return output.cpu()

    def npu_decode(self, anchors, deltas, weight):
        output = torch_npu.npu_rotated_box_decode(anchors.npu(), deltas.npu(), weight.npu())
        self.assertEqual(output.dtype, anchors.dtype)
        self.assertEqual(output.shape, anchors.shape)
        return output.cpu()

    def test_rotated_box_encode_upstream_fp32(self, device="npu"):
        anchor_boxes = torch.tensor([[[44.2877], [9.1412], [88.7575], [25.8879], [64.8047]]])
        gt_bboxes = torch.tensor([[[39.1763], [0.9838], [78.1028], [29.5997], [51.5907]]])
        weight = torch.tensor([1., 1., 1., 1., 1.])
        expect = torch.tensor([[[-0.1773], [-0.1327], [-0.1331], [0.5358], [-0.8643]]])
        # torch_npu's numbers have four digits
        self.assertRtolEqual(expect, self.npu_encode(anchor_boxes, gt_bboxes, weight), prec=1e-3)

    def test_rotated_box_encode_upstream_fp16(self, device="npu"):
        anchor_boxes = torch.tensor([[[30.69], [32.6], [45.94], [59.88], [-44.53]]], dtype=torch.float16)
        gt_bboxes = torch.tensor([[[30.44], [18.72], [33.22], [45.56], [8.5]]], dtype=torch.float16)
        weight = torch.tensor([1., 1., 1., 1., 1.], dtype=torch.float16)
        expect = torch.tensor([[[-0.4253], [-0.5166], [-1.702], [-0.0162], [1.133]]], dtype=torch.float16)
        self.assertRtolEqual(expect, self.npu_encode(anchor_boxes, gt_bboxes, weight), prec16=1e-2)

    def test_rotated_box_decode_upstream_fp32(self, device="npu"):
        anchor_boxes = torch.tensor([[[32.1855], [41.9922], [64.1435], [62.5325], [34.607]]])
        deltas = torch.tensor([[[1.8725], [-1.8915], [0.2395], [-0.4622], [-34.6539]]])
        weight = torch.tensor([1., 1., 1., 1., 1.])
        expect = torch.tensor([[[87.70366], [6.9412346], [128.31055], [19.879467], [-88.313515]]])
        # torch_npu's hardware numbers: the exact decode is within 1.3e-5 of them (relative)
        self.assertRtolEqual(expect, self.npu_decode(anchor_boxes, deltas, weight), prec=1e-4)

    def test_rotated_box_decode_upstream_fp16(self, device="npu"):
        anchor_boxes = torch.tensor([[[4.137], [33.72], [29.4], [54.06], [41.28]]], dtype=torch.float16)
        deltas = torch.tensor([[[0.0244], [-1.992], [0.2109], [0.315], [-37.25]]], dtype=torch.float16)
        weight = torch.tensor([1., 1., 1., 1., 1.], dtype=torch.float16)
        expect = torch.tensor([[[1.786], [-10.58], [33.], [17.3], [-88.44]]], dtype=torch.float16)
        self.assertRtolEqual(expect, self.npu_decode(anchor_boxes, deltas, weight), prec16=1e-2)

    def test_rotated_box_coding_random(self, device="npu"):
        weight = torch.tensor([1., 2., 1., 0.5, 1.])
        for seed, (batch, num) in enumerate([(1, 7), (2, 5), (3, 1)]):
            anchors, gt_bboxes = random_boxes(batch, num, 2 * seed), random_boxes(batch, num, 2 * seed + 1)
            deltas = torch.randn(batch, 5, num, generator=torch.Generator().manual_seed(seed)) * 0.3
            for dtype in (torch.float32, torch.float16):
                a, g, d = anchors.to(dtype), gt_bboxes.to(dtype), deltas.to(dtype)
                self.assertRtolEqual(rotated_box_encode_reference(a, g, weight).float().to(dtype),
                                     self.npu_encode(a, g, weight), prec16=1e-2)
                self.assertRtolEqual(rotated_box_decode_reference(a, d, weight).float().to(dtype),
                                     self.npu_decode(a, d, weight), prec16=1e-2)

    def test_rotated_box_coding_round_trip(self, device="npu"):
        ones = torch.ones(5)
        anchors, gt_bboxes = random_boxes(2, 6, 10), random_boxes(2, 6, 11)
        for weight in (ones, torch.tensor([10., 10., 5., 5., 2.])):
            deltas = torch_npu.npu_rotated_box_encode(anchors.npu(), gt_bboxes.npu(), weight.npu())
            decoded = torch_npu.npu_rotated_box_decode(anchors.npu(), deltas, weight.npu()).cpu()
            self.assertRtolEqual(gt_bboxes, decoded, prec=1e-4)
        # decoded angles come back in (-90, 90): a box at 120 degrees is the same box at -60
        gt_turned = gt_bboxes.clone()
        gt_turned[:, 4] = torch.tensor([120., -135., 95., -100., 179., 60.])
        deltas = torch_npu.npu_rotated_box_encode(anchors.npu(), gt_turned.npu(), ones.npu())
        decoded = torch_npu.npu_rotated_box_decode(anchors.npu(), deltas, ones.npu()).cpu()
        expect = gt_turned.clone()
        expect[:, 4] = torch.tensor([-60., 45., -85., 80., -1., 60.])
        self.assertRtolEqual(expect, decoded, prec=1e-4)

    def test_rotated_box_coding_weights(self, device="npu"):
        # the encode scales each delta by its weight; the decode divides by it first
        anchors, gt_bboxes = random_boxes(2, 4, 20), random_boxes(2, 4, 21)
        ones, weight = torch.ones(5), torch.tensor([0.1, 0.2, 3., 4., -0.5])
        plain = self.npu_encode(anchors, gt_bboxes, ones)
        self.assertRtolEqual(plain * weight.reshape(1, 5, 1), self.npu_encode(anchors, gt_bboxes, weight))
        self.assertRtolEqual(self.npu_decode(anchors, plain, ones),
                             self.npu_decode(anchors, plain * weight.reshape(1, 5, 1), weight), prec=1e-4)
        # the weight may be given on the CPU (the op reads its five values on the host)
        output = torch_npu.npu_rotated_box_encode(anchors.npu(), gt_bboxes.npu(), weight).cpu()
        self.assertRtolEqual(plain * weight.reshape(1, 5, 1), output)

    def test_rotated_box_coding_zero_boxes(self, device="npu"):
        for op in (torch_npu.npu_rotated_box_encode, torch_npu.npu_rotated_box_decode):
            output = op(torch.zeros(2, 5, 0).npu(), torch.zeros(2, 5, 0).npu(), torch.ones(5).npu())
            self.assertEqual(output.shape, (2, 5, 0))

    def test_rotated_box_coding_errors(self, device="npu"):
        anchors, other, ones = random_boxes(2, 3, 30).npu(), random_boxes(2, 3, 31).npu(), torch.ones(5).npu()
        with self.assertRaisesRegex(RuntimeError, "npu_rotated_box_encode: weight must hold 5 values"):
            torch_npu.npu_rotated_box_encode(anchors, other, torch.ones(4).npu())
        with self.assertRaisesRegex(RuntimeError, "npu_rotated_box_decode: weight must hold 5 values"):
            torch_npu.npu_rotated_box_decode(anchors, other, torch.ones(6).npu())
        with self.assertRaisesRegex(RuntimeError, r"npu_rotated_box_encode: self must be \[B, 5, N\]"):
            torch_npu.npu_rotated_box_encode(anchors.transpose(1, 2), other.transpose(1, 2), ones)
        with self.assertRaisesRegex(RuntimeError, "npu_rotated_box_encode: gt_bboxes must have self's shape"):
            torch_npu.npu_rotated_box_encode(anchors, other[:, :, :2], ones)
        with self.assertRaisesRegex(RuntimeError, "npu_rotated_box_decode: deltas must have self's shape"):
            torch_npu.npu_rotated_box_decode(anchors, other[:1], ones)


if __name__ == "__main__":
    run_tests()
