import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestGelu(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.nn.functional.gelu(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.nn.functional.gelu(input1)
        output = output.cpu()
        output = output.numpy()
        return output

    def cpu_op_backward_exec(self, input1):
        input1.requires_grad = True
        output = torch.nn.functional.gelu(input1)
        output.backward(torch.ones_like(output))
        return input1.grad.numpy()

    def npu_op_backward_exec(self, input1):
        input1.requires_grad = True
        output = torch.nn.functional.gelu(input1)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def test_gelu_float32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        for item in [[np.float32, i, j] for i in format_list for j in shape_list]:
            cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
            cpu_output = self.cpu_op_exec(cpu_input1)
            npu_output = self.npu_op_exec(npu_input1)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_gelu_float16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        for item in [[np.float16, i, j] for i in format_list for j in shape_list]:
            cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
            cpu_input1 = cpu_input1.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1).astype(np.float16)
            npu_output = self.npu_op_exec(npu_input1)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_gelu_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float16, 0, [4, 32]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_grad = self.cpu_op_backward_exec(cpu_input1)
            npu_grad = self.npu_op_backward_exec(npu_input1)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
