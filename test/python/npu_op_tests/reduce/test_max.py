import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestMax(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.max(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.max(input1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def cpu_op_dim_exec(self, input1, dim, keepdim):
        output, indices = torch.max(input1, dim, keepdim)
        return output.numpy(), indices.int().numpy()

    def npu_op_dim_exec(self, input1, dim, keepdim):
        output, indices = torch.max(input1, dim, keepdim)
        return output.to("cpu").numpy(), indices.int().to("cpu").numpy()

    def cpu_op_other_exec(self, input1, input2):
        return torch.max(input1, input2).numpy()

    def npu_op_other_exec(self, input1, input2):
        return torch.max(input1, input2).to("cpu").numpy()

    def max_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -100, 100)
            cpu_input2, npu_input2 = create_common_tensor(item, -100, 100)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1)
            npu_output = self.npu_op_exec(npu_input1)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            for keepdim in [True, False]:
                cpu_output, cpu_indices = self.cpu_op_dim_exec(cpu_input1, -1, keepdim)
                npu_output, npu_indices = self.npu_op_dim_exec(npu_input1, -1, keepdim)
                self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
                self.assertRtolEqual(cpu_indices, npu_indices)
            cpu_output = self.cpu_op_other_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_other_exec(npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)

    def test_max_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        self.max_result([[np.float16, i, j] for i in format_list for j in shape_list])

    def test_max_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        self.max_result([[np.float32, i, j] for i in format_list for j in shape_list])

    def test_max_int32(self, device="npu"):
        self.max_result([[np.int32, -1, [7, 9]]])

    def test_max_dim_backward(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 10]], -100, 100)
        cpu_input1.requires_grad = True
        npu_input1.requires_grad = True
        torch.max(cpu_input1, 1)[0].sum().backward()
        torch.max(npu_input1, 1)[0].sum().backward()
        self.assertRtolEqual(cpu_input1.grad.numpy(), npu_input1.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
