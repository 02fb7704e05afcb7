import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestSoftplus(TestCase):
    def cpu_op_exec(self, input1, beta, threshold):
        output = torch.nn.functional.softplus(input1, beta=beta, threshold=threshold)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, beta, threshold):
        output = torch.nn.functional.softplus(input1, beta=beta, threshold=threshold)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, beta, threshold):
        input1.requires_grad = True
        output = torch.nn.functional.softplus(input1, beta=beta, threshold=threshold)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def softplus_result(self, shape_format):
        for item in shape_format:
            for beta, threshold in [(1, 20), (2, 5), (0.5, 2)]:
                cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                cpu_output = self.cpu_op_exec(cpu_input1, beta, threshold)
                npu_output = self.npu_op_exec(npu_input1, beta, threshold)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

    def test_softplus_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.softplus_result(shape_format)

    def test_softplus_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.softplus_result(shape_format)

    def test_softplus_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float32, 29, [16, 16]],
                     [np.float16, 0, [4, 32]], [np.float16, 3, [2, 3, 8, 8]]]:
            for beta, threshold in [(1, 20), (2, 5)]:
                cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                cpu_grad = self.op_backward_exec(cpu_input1, beta, threshold)
                npu_grad = self.op_backward_exec(npu_input1, beta, threshold)
                self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
