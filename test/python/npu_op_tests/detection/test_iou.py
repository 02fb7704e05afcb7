import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestIou(TestCase):
    def cpu_op_exec(self, bboxes, gtboxes, mode):
        lt = torch.max(bboxes[None, :, :2], gtboxes[:, None, :2])
        rb = torch.min(bboxes[None, :, 2:], gtboxes[:, None, 2:])
        inter = (rb - lt).clamp(min=0).prod(2)
        area_b = (bboxes[:, 2:] - bboxes[:, :2]).prod(1)
        area_g = (gtboxes[:, 2:] - gtboxes[:, :2]).prod(1)
        denom = area_g[:, None] + area_b[None] - inter if mode == 0 else area_g[:, None].expand_as(inter)
        return torch.where(denom > 0, inter / denom, torch.zeros_like(inter))

    def test_iou_doc_example(self, device="npu"):
        bboxes = torch.tensor([[0, 0, 10, 10], [10, 10, 20, 20], [32, 32, 38, 42]], dtype=torch.float16).npu()
        gtboxes = torch.tensor([[0, 0, 10, 20], [0, 10, 10, 10], [10, 10, 20, 20]], dtype=torch.float16).npu()
        expect = torch.tensor([[0.4985, 0.0000, 0.0000], [0.0000, 0.0000, 0.0000], [0.0000, 0.9961, 0.0000]],
                              dtype=torch.float16)
        self.assertRtolEqual(expect, torch_npu.npu_iou(bboxes, gtboxes, 0).cpu(), prec16=1e-2)
        self.assertRtolEqual(expect, torch_npu.npu_ptiou(bboxes, gtboxes, 0).cpu(), prec16=1e-2)

    def test_iou_and_iof_random(self, device="npu"):
        for mode in (0, 1):
            xy = torch.rand(12, 2) * 50
            bboxes = torch.cat([xy, xy + torch.rand(12, 2) * 20], 1)
            xy = torch.rand(5, 2) * 50
            gtboxes = torch.cat([xy, xy + torch.rand(5, 2) * 20], 1)
            self.assertRtolEqual(self.cpu_op_exec(bboxes, gtboxes, mode),
                                 torch_npu.npu_iou(bboxes.npu(), gtboxes.npu(), mode).cpu())

    def test_iou_rejects_an_unknown_mode(self, device="npu"):
        with self.assertRaisesRegex(RuntimeError, "npu_iou: mode must be 0 \\(iou\\) or 1 \\(iof\\), got 2"):
            torch_npu.npu_iou(torch.rand(2, 4).npu(), torch.rand(2, 4).npu(), 2)


if __name__ == "__main__":
    run_tests()
