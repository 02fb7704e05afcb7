import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestLeakyRelu(TestCase):
    def cpu_op_exec(self, input1, negative_slope):
        output = torch.nn.functional.leaky_relu(input1, negative_slope)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, negative_slope):
        output = torch.nn.functional.leaky_relu(input1, negative_slope)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, negative_slope):
        torch.nn.functional.leaky_relu_(input1, negative_slope)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, negative_slope):
        input1.requires_grad = True
        output = torch.nn.functional.leaky_relu(input1, negative_slope)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def leaky_relu_result(self, shape_format):
        for item in shape_format:
            for negative_slope in [0.01, 0.2]:
                cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                cpu_output = self.cpu_op_exec(cpu_input1, negative_slope)
                npu_output = self.npu_op_exec(npu_input1, negative_slope)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

                npu_output_inplace = self.npu_op_exec_inplace(npu_input1, negative_slope)
                self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_leaky_relu_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.leaky_relu_result(shape_format)

    def test_leaky_relu_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.leaky_relu_result(shape_format)

    def test_leaky_relu_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float32, 29, [16, 16]],
                     [np.float16, 0, [4, 32]], [np.float16, 3, [2, 3, 8, 8]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_grad = self.op_backward_exec(cpu_input1, 0.1)
            npu_grad = self.op_backward_exec(npu_input1, 0.1)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
