import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestRelu(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.relu(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.relu(input1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def cpu_op_backward_exec(self, input1):
        input1.requires_grad = True
        output = torch.relu(input1)
        output.backward(torch.ones_like(output))
        return output.detach().numpy(), input1.grad.numpy()

    def npu_op_backward_exec(self, input1):
        input1.requires_grad = True
        output = torch.relu(input1)
        output.backward(torch.ones_like(output))
        return output.detach().cpu().numpy(), input1.grad.cpu().numpy()

    def test_relu_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[16], [16, 32], [4, 16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input)
            npu_output = self.npu_op_exec(npu_input)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_relu_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[16], [16, 32], [4, 16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            cpu_input = cpu_input.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input).astype(np.float16)
            npu_output = self.npu_op_exec(npu_input)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_relu_backward(self, device="npu"):
        shape_format = [[np.float32, 0, [4, 6]], [np.float32, 3, [2, 3, 4, 5]], [np.float16, 29, [16, 16]]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
            cpu_output, cpu_grad = self.cpu_op_backward_exec(cpu_input)
            npu_output, npu_grad = self.npu_op_backward_exec(npu_input)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_relu_inplace(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [8, 8]], -10, 10)
        cpu_input.relu_()
        npu_input.relu_()
        self.assertRtolEqual(cpu_input.numpy(), npu_input.cpu().numpy())


if __name__ == "__main__":
    run_tests()
