import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestAnchorResponseFlags(TestCase):
    def cpu_op_exec(self, gt_bboxes, featmap_size, strides, num_base_anchors):
        """mmdet's YOLOAnchorGenerator.single_level_responsible_flags: 1 for the anchors of the cells that
        hold a gt box's centre."""
        gt_bboxes = gt_bboxes.float()
        feat_h, feat_w = featmap_size
        gt_bboxes_cx = (gt_bboxes[:, 0] + gt_bboxes[:, 2]) * 0.5
        gt_bboxes_cy = (gt_bboxes[:, 1] + gt_bboxes[:, 3]) * 0.5
        gt_bboxes_grid_x = torch.floor(gt_bboxes_cx / strides[0]).int()
        gt_bboxes_grid_y = torch.floor(gt_bboxes_cy / strides[1]).int()
        gt_bboxes_grid_idx = (gt_bboxes_grid_y * feat_w + gt_bboxes_grid_x).long()
        responsible_grid = torch.zeros(feat_h * feat_w, dtype=torch.uint8)
        responsible_grid[gt_bboxes_grid_idx] = 1
        return responsible_grid[:, None].expand(feat_h * feat_w, num_base_anchors).contiguous().view(-1)

    def npu_op_exec(self, input_npu, featmap_size, strides, num_base_anchors):
        return torch_npu.npu_anchor_response_flags(input_npu, featmap_size, strides, num_base_anchors).cpu()

    def test_npu_anchor_response_flags(self, device="npu"):
        shape_format = [
            [[np.float32, -1, [100, 4]], [60, 60], [2, 2], 9],
            [[np.float16, -1, [200, 4]], [10, 10], [32, 32], 3],
            [[np.float16, -1, [500, 4]], [32, 32], [16, 16], 5],
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], 0, 100)
            expect = self.cpu_op_exec(cpu_input, *item[1:])
            output = self.npu_op_exec(npu_input, *item[1:])
            self.assertEqual(output.dtype, torch.uint8)
            self.assertRtolEqual(expect, output)

    def test_npu_anchor_response_flags_rectangular(self, device="npu"):
        # feat_h != feat_w and stride_x != stride_y: the cell index is gy * feat_w + gx
        gt_bboxes = torch.tensor([[0., 0., 7., 3.], [40., 10., 50., 22.], [70., 35., 79., 39.]])
        output = self.npu_op_exec(gt_bboxes.npu(), [5, 10], [8, 8], 2)
        self.assertRtolEqual(self.cpu_op_exec(gt_bboxes, [5, 10], [8, 8], 2), output)
        self.assertEqual(output.nonzero().flatten().tolist(), [0, 1, 2 * 25, 2 * 25 + 1, 2 * 49, 2 * 49 + 1])
        output = self.npu_op_exec(gt_bboxes.npu(), [10, 5], [16, 4], 1)
        self.assertRtolEqual(self.cpu_op_exec(gt_bboxes, [10, 5], [16, 4], 1), output)

    def test_npu_anchor_response_flags_doc_example(self, device="npu"):
        x = torch.rand(100, 4).npu()
        self.assertEqual(torch_npu.npu_anchor_response_flags(x, [60, 60], [2, 2], 9).shape, (32400,))

    def test_npu_anchor_response_flags_checks(self, device="npu"):
        with self.assertRaises(RuntimeError):
            torch_npu.npu_anchor_response_flags(torch.rand(3, 5).npu(), [4, 4], [8, 8], 3)


if __name__ == "__main__":
    run_tests()
