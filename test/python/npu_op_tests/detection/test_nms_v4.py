import torch
import torch_npu
import torchvision

from torch_npu.testing.testcase import TestCase, run_tests


class TestNmsV4(TestCase):
    def test_nms_v4_float32(self, device="npu"):
        boxes = torch.zeros(100, 4).uniform_(0, 100)
        boxes = torch.cat([boxes[:, :2].min(boxes[:, 2:]), boxes[:, :2].max(boxes[:, 2:])], 1)
        scores = torch.zeros(100).uniform_(0, 1)
        max_output_size = 20
        iou_threshold = torch.tensor(0.5)
        scores_threshold = torch.tensor(0.3)
        selected, valid = torch_npu.npu_nms_v4(boxes.npu(), scores.npu(), max_output_size, iou_threshold.npu(),
                                               scores_threshold.npu())
        self.assertEqual(selected.shape, torch.Size([20]))
        self.assertEqual(selected.dtype, torch.int32)
        above = (scores > 0.3).nonzero().flatten()
        expect = above[torchvision.ops.nms(boxes[above], scores[above], 0.5)][:max_output_size]
        self.assertEqual(int(valid), expect.numel())
        self.assertRtolEqual(expect.int(), selected.cpu()[:expect.numel()])


if __name__ == "__main__":
    run_tests()
