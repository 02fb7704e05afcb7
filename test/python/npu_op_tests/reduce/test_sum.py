import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestSum(TestCase):
    def cpu_op_exec(self, input1):
        output = input1.sum()
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = input1.sum()
        output = output.to("cpu")
        output = output.numpy()
        return output

    def cpu_op_dim_exec(self, input1, dim, keepdim):
        output = torch.sum(input1, dim, keepdim=keepdim)
        output = output.numpy()
        return output

    def npu_op_dim_exec(self, input1, dim, keepdim):
        output = torch.sum(input1, dim, keepdim=keepdim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def sum_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -1, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1)
            npu_output = self.npu_op_exec(npu_input1)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            for keepdim in [True, False]:
                cpu_output = self.cpu_op_dim_exec(cpu_input1, item[1], keepdim)
                npu_output = self.npu_op_dim_exec(npu_input1, item[1], keepdim)
                self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)

    def test_sum_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 16, 16]], dim] for i in format_list for dim in [[1], [2, 3]]
        ] + [[[np.float16, 0, [64]], [0]]]
        self.sum_result(shape_format)

    def test_sum_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 16, 16]], dim] for i in format_list for dim in [[1], [2, 3], [0, 3]]
        ] + [[[np.float32, 0, [64]], [0]], [[np.float32, 29, [32, 48]], [0]]]
        self.sum_result(shape_format)

    def test_sum_int_and_dtype(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [8, 8]], -10, 10)
        cpu_output = torch.sum(cpu_input1, 1)
        npu_output = torch.sum(npu_input1, 1)
        self.assertEqual(cpu_output.dtype, npu_output.dtype)
        self.assertRtolEqual(cpu_output.numpy(), npu_output.cpu().numpy())
        cpu_input1, npu_input1 = create_common_tensor([np.float16, 0, [8, 8]], -1, 1)
        cpu_output = torch.sum(cpu_input1.float(), 0, dtype=torch.float32)
        npu_output = torch.sum(npu_input1, 0, dtype=torch.float32)
        self.assertRtolEqual(cpu_output.numpy(), npu_output.cpu().numpy())


if __name__ == "__main__":
    run_tests()
