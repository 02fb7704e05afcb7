import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestPow(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = torch.pow(input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = torch.pow(input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def pow_result_scalar(self, shape_format, exponents):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, 0, 4)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            for exponent in exponents:
                cpu_output = self.cpu_op_exec(cpu_input1, exponent)
                npu_output = self.npu_op_exec(npu_input1, exponent)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

    def test_pow_tensor_scalar_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.pow_result_scalar(shape_format, [2, 3, 0.5, -1, 2.5])

    def test_pow_tensor_scalar_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.pow_result_scalar(shape_format, [2, 3, 0.5])

    def test_pow_tensor_tensor(self, device="npu"):
        for item in [[np.float32, 0, [4, 16]], [np.float32, 3, [2, 3, 4, 4]], [np.float16, 29, [16, 16]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, 0.1, 3)
            cpu_input2, npu_input2 = create_common_tensor(item, -2, 2)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)

    def test_pow_scalar_tensor(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [8, 8]], -3, 3)
        self.assertRtolEqual(self.cpu_op_exec(2.0, cpu_input1), self.npu_op_exec(2.0, npu_input1))

    def test_pow_int(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [6, 6]], -5, 5)
        self.assertRtolEqual(self.cpu_op_exec(cpu_input1, 3), self.npu_op_exec(npu_input1, 3))


if __name__ == "__main__":
    run_tests()
