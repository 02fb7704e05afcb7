import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestTranspose(TestCase):
    def cpu_op_exec(self, input1, dim0, dim1):
        output = torch.transpose(input1, dim0, dim1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim0, dim1):
        output = torch.transpose(input1, dim0, dim1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_contiguous(self, input1, dim0, dim1):
        output = input1.transpose(dim0, dim1).contiguous()
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_transpose_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [2, 3, 16, 16]], d0, d1]
            for dtype in [np.float16, np.float32] for i in format_list for d0, d1 in [(0, 1), (1, 3), (-1, -2)]
        ] + [[[np.float32, 29, [32, 16]], 0, 1], [[np.int32, -1, [5, 6, 7]], 0, 2]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input, item[1], item[2])
            npu_output = self.npu_op_exec(npu_input, item[1], item[2])
            self.assertRtolEqual(cpu_output, npu_output)
            npu_output = self.npu_op_exec_contiguous(npu_input, item[1], item[2])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_transpose_then_compute(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 6, 8]], -10, 10)
        cpu_output = (cpu_input.transpose(0, 2) * 2 + 1).numpy()
        npu_output = (npu_input.transpose(0, 2) * 2 + 1).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
