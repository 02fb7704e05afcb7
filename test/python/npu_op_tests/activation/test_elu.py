import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestElu(TestCase):
    def cpu_op_exec(self, input1, alpha):
        output = torch.nn.functional.elu(input1, alpha=alpha)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, alpha):
        output = torch.nn.functional.elu(input1, alpha=alpha)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, alpha):
        torch.nn.functional.elu_(input1, alpha=alpha)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, alpha):
        input1.requires_grad = True
        output = torch.nn.functional.elu(input1, alpha=alpha)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def elu_result(self, shape_format):
        for item in shape_format:
            for alpha in [1.0, 0.5, 2.0]:
                cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                cpu_output = self.cpu_op_exec(cpu_input1, alpha)
                npu_output = self.npu_op_exec(npu_input1, alpha)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

                npu_output_inplace = self.npu_op_exec_inplace(npu_input1, alpha)
                self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_elu_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.elu_result(shape_format)

    def test_elu_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.elu_result(shape_format)

    def test_elu_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float32, 29, [16, 16]],
                     [np.float16, 0, [4, 32]], [np.float16, 3, [2, 3, 8, 8]]]:
            for alpha in [1.0, 1.5]:
                cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                cpu_grad = self.op_backward_exec(cpu_input1, alpha)
                npu_grad = self.op_backward_exec(npu_input1, alpha)
                self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
