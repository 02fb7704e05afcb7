import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestSortV2(TestCase):
    def cpu_op_exec(self, input1, dim, descending):
        # torch.sort's values (float16 sorted as float32: the conversion is exact and monotonic)
        output, _ = torch.sort(input1.float(), dim=dim, descending=descending)
        return output.to(input1.dtype)

    def npu_op_exec(self, input1, dim, descending):
        return torch_npu.npu_sort_v2(input1, dim=dim, descending=descending).cpu()

    def test_sort_v2_doc_example(self, device="npu"):
        x = torch.tensor([[-0.0067, 1.7790, 0.5031, -1.7217],
                          [1.1685, -1.0486, -0.2938, 1.3241],
                          [0.1880, -2.7447, 1.3976, 0.7380]])
        expect = torch.tensor([[-1.7217, -0.0067, 0.5029, 1.7793],
                               [-1.0488, -0.2937, 1.1689, 1.3242],
                               [-2.7441, 0.1880, 0.7378, 1.3975]])
        for dtype in (torch.float32, torch.float16):
            output = torch_npu.npu_sort_v2(x.to(dtype).npu()).cpu()
            self.assertRtolEqual(expect.to(dtype), output, prec=1e-3, prec16=1e-3)
            self.assertRtolEqual(self.cpu_op_exec(x.to(dtype), -1, False), output)

    def test_sort_v2_shape_format(self, device="npu"):
        # torch_npu's custom_ops/test_npu_sort_v2.py cases, smaller
        shape_format = [
            [[np.float16, -1, [1, 500]], 0, True],
            [[np.float16, -1, [1, 2, 500]], 1, False],
            [[np.float16, -1, [1, 2896]], 0, False],
            [[np.float16, -1, [1, 4096]], -1, True],
            [[np.float16, -1, [1, 6, 5]], 1, False],
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -100, 100)
            self.assertRtolEqual(self.cpu_op_exec(cpu_input, item[1], item[2]),
                                 self.npu_op_exec(npu_input, item[1], item[2]))

    def test_sort_v2_dims(self, device="npu"):
        for dtype in (np.float32, np.float16):
            cpu_input, npu_input = create_common_tensor([dtype, -1, [3, 5, 16]], -1000, 1000)
            for dim in (0, 1, 2, -1, -2, -3):
                for descending in (False, True):
                    output = self.npu_op_exec(npu_input, dim, descending)
                    self.assertEqual(output.shape, (3, 5, 16))
                    self.assertRtolEqual(self.cpu_op_exec(cpu_input, dim, descending), output)
            # defaults: the last dim, ascending
            self.assertRtolEqual(self.cpu_op_exec(cpu_input, -1, False), torch_npu.npu_sort_v2(npu_input).cpu())

    def test_sort_v2_repeated_values(self, device="npu"):
        x = torch.tensor([3., -1., 3., 0., -1., 2., 2., 2.])
        self.assertRtolEqual(torch.tensor([-1., -1., 0., 2., 2., 2., 3., 3.]), self.npu_op_exec(x.npu(), 0, False))
        self.assertRtolEqual(torch.tensor([3., 3., 2., 2., 2., 0., -1., -1.]), self.npu_op_exec(x.npu(), 0, True))


if __name__ == "__main__":
    run_tests()
