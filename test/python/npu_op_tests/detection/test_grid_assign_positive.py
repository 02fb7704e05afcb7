import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests

# Overlaps of k = 3 gt boxes (rows) with n = 6 anchors (columns); anchor 4 is not responsible.
OVERLAPS = [[0.1, 0.7, 0.7, 0.2, 0.0, 0.3],
            [0.6, 0.2, 0.1, 0.6, 0.6, 0.1],
            [0.05, 0.05, 0.02, 0.01, 0.03, 0.04]]
FLAGS = [1, 1, 1, 1, 0, 1]
ASSIGNED = [-1., 0., -1., 0., -1., 0.]


class TestGridAssignPositive(TestCase):
    def cpu_op_exec(self, assigned_gt_inds, overlaps, box_responsible_flags, max_overlaps, argmax_overlaps,
                    gt_max_overlaps, gt_argmax_overlaps, num_gts, pos_iou_thr, min_pos_iou, gt_max_assign_all):
        """mmdet's GridAssigner, positive part: the responsible anchors over pos_iou_thr take their best gt;
        then each gt i (< num_gts) over min_pos_iou takes its best responsible anchor(s)."""
        out = assigned_gt_inds.clone()
        flags = box_responsible_flags.bool()
        pos = (max_overlaps > pos_iou_thr) & flags
        out[pos] = argmax_overlaps.to(out.dtype)[pos] + 1
        for i in range(min(num_gts, overlaps.size(0))):
            if gt_max_overlaps[i] > min_pos_iou:
                if gt_max_assign_all:
                    out[(overlaps[i] == gt_max_overlaps[i]) & flags] = i + 1
                elif flags[gt_argmax_overlaps[i]]:
                    out[gt_argmax_overlaps[i]] = i + 1
        return out

    def npu_op_exec(self, *args):
        tensors = [a.npu() for a in args[:7]]
        return torch_npu.npu_grid_assign_positive(*tensors, *args[7:]).cpu()

    def grid_inputs(self, dtype, gt_argmax=None):
        overlaps = torch.tensor(OVERLAPS, dtype=dtype)
        max_overlaps, argmax_overlaps = overlaps.max(0)
        gt_max_overlaps = overlaps.max(1).values
        gt_argmax = [1, 0, 0] if gt_argmax is None else gt_argmax
        return [torch.tensor(ASSIGNED, dtype=dtype), overlaps, torch.tensor(FLAGS, dtype=torch.uint8), max_overlaps,
                argmax_overlaps.int(), gt_max_overlaps, torch.tensor(gt_argmax, dtype=torch.int32)]

    def test_npu_grid_assign_positive(self, device="npu"):
        # torch_npu's custom_ops/test_npu_grid_assign_positive.py (random gt_max_overlaps: only step 1 acts).
        for dtype in (torch.float32, torch.float16):
            args = [torch.rand(4).to(dtype), torch.rand(2, 4).to(dtype), torch.tensor([1, 1, 1, 0], dtype=torch.uint8),
                    torch.rand(4).to(dtype), torch.tensor([1, 0, 1, 0], dtype=torch.int32), torch.rand(2).to(dtype),
                    torch.tensor([1, 0], dtype=torch.int32), 128, .5, .0, True]
            output = self.npu_op_exec(*args)
            self.assertEqual(output.dtype, dtype)
            self.assertRtolEqual(self.cpu_op_exec(*args), output)
            pos = (args[3] > .5) & args[2].bool()
            expect = args[0].clone()
            expect[pos] = args[4].to(dtype)[pos] + 1
            self.assertRtolEqual(expect, output)

    def test_npu_grid_assign_positive_gt_max_assign_all(self, device="npu"):
        # step 1 gives anchors 1 and 2 (over 0.65) gt 0; then gt 0 takes anchors 1 and 2 (its 0.7), gt 1 anchors
        # 0 and 3 (its 0.6; anchor 4 is not responsible), gt 2 anchors 0 and 1 (its 0.05), in that order
        for dtype in (torch.float32, torch.float16):
            inputs = self.grid_inputs(dtype)
            for num_gts, min_pos_iou, expect in ((3, 0.04, [3, 3, 1, 2, -1, 0]), (128, 0.04, [3, 3, 1, 2, -1, 0]),
                                                 (2, 0.04, [2, 1, 1, 2, -1, 0]), (3, 0.06, [2, 1, 1, 2, -1, 0]),
                                                 (3, 0.9, [-1, 1, 1, 0, -1, 0])):
                args = inputs + [num_gts, 0.65, min_pos_iou, True]
                output = self.npu_op_exec(*args)
                self.assertRtolEqual(self.cpu_op_exec(*args), output)
                self.assertRtolEqual(torch.tensor(expect, dtype=dtype), output)

    def test_npu_grid_assign_positive_gt_argmax(self, device="npu"):
        # without gt_max_assign_all each gt takes its gt_argmax_overlaps anchor, if responsible
        for dtype in (torch.float32, torch.float16):
            for gt_argmax, num_gts, expect in (([1, 0, 0], 3, [3, 1, 1, 0, -1, 0]), ([1, 0, 0], 2, [2, 1, 1, 0, -1, 0]),
                                               ([2, 4, 1], 3, [-1, 3, 1, 0, -1, 0])):
                args = self.grid_inputs(dtype, gt_argmax) + [num_gts, 0.65, 0.04, False]
                output = self.npu_op_exec(*args)
                self.assertRtolEqual(self.cpu_op_exec(*args), output)
                self.assertRtolEqual(torch.tensor(expect, dtype=dtype), output)

    def test_npu_grid_assign_positive_random(self, device="npu"):
        # gts 0 to 2 have an anchor over pos_iou_thr (step 1), gts 3 and 4 only step 2's best anchors, a tie
        overlaps = torch.rand(5, 40) * 0.5
        overlaps[0, 0], overlaps[1, 5], overlaps[2, 9] = 0.95, 0.97, 0.93
        for i in (3, 4):
            overlaps[i, 2 * i + 20] = overlaps[i].max()
        max_overlaps, argmax_overlaps = overlaps.max(0)
        gt_max_overlaps, gt_argmax_overlaps = overlaps.max(1)
        flags = (torch.rand(40) > 0.3).to(torch.uint8)
        assigned = torch.randint(-1, 1, (40,)).float()
        for gt_max_assign_all in (True, False):
            args = [assigned, overlaps, flags, max_overlaps, argmax_overlaps.int(), gt_max_overlaps,
                    gt_argmax_overlaps.int(), 5, 0.9, 0.1, gt_max_assign_all]
            self.assertRtolEqual(self.cpu_op_exec(*args), self.npu_op_exec(*args))

    def test_npu_grid_assign_positive_checks(self, device="npu"):
        args = self.grid_inputs(torch.float32)
        args[4] = args[4].long()  # int64 argmax_overlaps
        with self.assertRaises(RuntimeError):
            self.npu_op_exec(*args, 3, 0.65, 0.04, True)


if __name__ == "__main__":
    run_tests()
