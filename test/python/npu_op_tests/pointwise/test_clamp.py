import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestClamp(TestCase):
    def cpu_op_exec(self, input1, min_val, max_val):
        output = torch.clamp(input1, min_val, max_val)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, min_val, max_val):
        output = torch.clamp(input1, min_val, max_val)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, min_val, max_val):
        input1.clamp_(min_val, max_val)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def clamp_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -100, 100)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            for min_val, max_val in [(1, 3), (-50.5, None), (None, 20), (-10, 10)]:
                cpu_output = self.cpu_op_exec(cpu_input1, min_val, max_val)
                npu_output = self.npu_op_exec(npu_input1, min_val, max_val)
                self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            npu_output = self.npu_op_exec_inplace(npu_input1, -10, 10)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)

    def test_clamp_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        self.clamp_result([[np.float16, i, j] for i in format_list for j in shape_list])

    def test_clamp_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        self.clamp_result([[np.float32, i, j] for i in format_list for j in shape_list])

    def test_clamp_int32(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [8, 8]], -100, 100)
        self.assertRtolEqual(self.cpu_op_exec(cpu_input1, -5, 7), self.npu_op_exec(npu_input1, -5, 7))

    def test_clamp_tensor_bounds(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 5]], -10, 10)
        cpu_min, npu_min = create_common_tensor([np.float32, 0, [4, 5]], -5, 0)
        cpu_max, npu_max = create_common_tensor([np.float32, 0, [5]], 0, 5)
        self.assertRtolEqual(self.cpu_op_exec(cpu_input1, cpu_min, cpu_max),
                             self.npu_op_exec(npu_input1, npu_min, npu_max))


if __name__ == "__main__":
    run_tests()
