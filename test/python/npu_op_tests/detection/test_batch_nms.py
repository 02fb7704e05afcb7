import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestBatchNms(TestCase):
    def test_batch_nms_shape_format(self, device="npu"):
        boxes = torch.randn(8, 4, 1, 4).npu()
        scores = torch.randn(8, 4, 1).npu()
        boxes_fp16 = boxes.half()
        scores_fp16 = scores.half()
        nmsed_boxes, nmsed_scores, nmsed_classes, nmsed_num = torch_npu.npu_batch_nms(boxes, scores, 0.3, 0.5, 4, 4)
        boxes1, scores1, classes1, num1 = torch_npu.npu_batch_nms(boxes_fp16, scores_fp16, 0.3, 0.5, 4, 4)
        expedt_nmsed_classes = torch.zeros((8, 4), dtype=torch.float32)
        self.assertRtolEqual(expedt_nmsed_classes, nmsed_classes.cpu())
        self.assertRtolEqual(expedt_nmsed_classes.half(), classes1.cpu())
        self.assertEqual(nmsed_boxes.shape, torch.Size([8, 4, 4]))
        self.assertEqual(nmsed_num.dtype, torch.int32)
        # every kept score is above the threshold, sorted descending, and the tail is zero
        for b in range(8):
            n = int(nmsed_num[b])
            kept = nmsed_scores[b].cpu()
            self.assertTrue(bool((kept[:n] > 0.3).all()))
            self.assertTrue(bool((kept[:n].sort(descending=True)[0] == kept[:n]).all()))
            self.assertTrue(bool((kept[n:] == 0).all()))

    def test_batch_nms_rejects_bad_boxes(self, device="npu"):
        with self.assertRaisesRegex(RuntimeError, "npu_batch_nms: boxes must be"):
            torch_npu.npu_batch_nms(torch.randn(2, 4, 4).npu(), torch.randn(2, 4, 1).npu(), 0.3, 0.5, 4, 4)


if __name__ == "__main__":
    run_tests()
