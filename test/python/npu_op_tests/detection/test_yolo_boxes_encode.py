import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestYoloBoxesEncode(TestCase):
    def cpu_op_exec(self, anchor_boxes, gt_bboxes, stride, eps=1e-6):
        """mmdet's YOLOBBoxCoder.encode: (tx, ty, tw, th) per pair of (x1, y1, x2, y2) boxes."""
        anchor_boxes, gt_bboxes, stride = anchor_boxes.double(), gt_bboxes.double(), stride.double()
        x_center_gt = (gt_bboxes[..., 0] + gt_bboxes[..., 2]) * 0.5
        y_center_gt = (gt_bboxes[..., 1] + gt_bboxes[..., 3]) * 0.5
        w_gt = gt_bboxes[..., 2] - gt_bboxes[..., 0]
        h_gt = gt_bboxes[..., 3] - gt_bboxes[..., 1]
        x_center = (anchor_boxes[..., 0] + anchor_boxes[..., 2]) * 0.5
        y_center = (anchor_boxes[..., 1] + anchor_boxes[..., 3]) * 0.5
        w = anchor_boxes[..., 2] - anchor_boxes[..., 0]
        h = anchor_boxes[..., 3] - anchor_boxes[..., 1]
        w_target = torch.log((w_gt / w).clamp(min=eps))
        h_target = torch.log((h_gt / h).clamp(min=eps))
        x_center_target = ((x_center_gt - x_center) / stride + 0.5).clamp(eps, 1 - eps)
        y_center_target = ((y_center_gt - y_center) / stride + 0.5).clamp(eps, 1 - eps)
        return torch.stack([x_center_target, y_center_target, w_target, h_target], dim=-1)

    def random_boxes(self, n, scale):
        xy = torch.rand(n, 2) * scale
        return torch.cat([xy, xy + torch.rand(n, 2) * scale + 1], 1)

    def test_yolo_boxes_encode(self, device="npu"):
        # torch_npu's test_yolo_boxes_encode.py, with its expected values.
        torch.manual_seed(1234)
        anchor_boxes_tensor = torch.rand((2, 4), dtype=torch.float32).to("npu")
        gt_bboxes_tensor = torch.rand((2, 4), dtype=torch.float32).to("npu")
        stride_tensor = torch.tensor([2, 2], dtype=torch.int32).to("npu")
        expect_cpu = torch.tensor([[0.7921727, 0.5314963, -0.74224466, -13.815511],
                                   [0.7360072, 0.58343244, 4.3334002, -0.51378196]], dtype=torch.float32)
        npu_output = torch_npu.npu_yolo_boxes_encode(anchor_boxes_tensor, gt_bboxes_tensor, stride_tensor, False)
        self.assertRtolEqual(expect_cpu, npu_output.cpu())

    def test_yolo_boxes_encode_random(self, device="npu"):
        anchors, gt = self.random_boxes(64, 32), self.random_boxes(64, 32)
        stride = torch.tensor([8, 16, 32, 64], dtype=torch.int32).repeat(16)
        expect = self.cpu_op_exec(anchors, gt, stride)
        for performance_mode in (False, True):
            output = torch_npu.npu_yolo_boxes_encode(anchors.npu(), gt.npu(), stride.npu(), performance_mode)
            self.assertEqual(output.shape, (64, 4))
            self.assertRtolEqual(expect.float(), output.cpu(), prec=1e-3 if performance_mode else 1e-4)
        # float16 boxes give float16 deltas
        anchors, gt = anchors.half(), gt.half()
        output = torch_npu.npu_yolo_boxes_encode(anchors.npu(), gt.npu(), stride.npu())
        self.assertRtolEqual(self.cpu_op_exec(anchors, gt, stride).half(), output.cpu(), prec16=1e-2)

    def test_yolo_boxes_encode_checks(self, device="npu"):
        anchors, gt = self.random_boxes(4, 8).npu(), self.random_boxes(4, 8).npu()
        stride = torch.full((4,), 8, dtype=torch.int32)
        with self.assertRaises(RuntimeError):
            torch_npu.npu_yolo_boxes_encode(anchors, gt, stride.long().npu())  # int64 strides
        with self.assertRaises(RuntimeError):
            torch_npu.npu_yolo_boxes_encode(anchors, gt, stride[:3].npu())  # a stride per box
        with self.assertRaises(RuntimeError):
            torch_npu.npu_yolo_boxes_encode(anchors, gt[:3], stride.npu())  # as many boxes


if __name__ == "__main__":
    run_tests()
