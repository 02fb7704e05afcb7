import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestTanh(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.tanh(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.tanh(input1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1):
        input1.requires_grad = True
        output = torch.tanh(input1)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def test_tanh_common_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [8, 64], [2, 8, 64], [2, 3, 16, 16]]
        shape_format = [
            [dtype, i, j] for dtype in [np.float16, np.float32] for i in format_list for j in shape_list
        ]
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -1, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1)
            npu_output = self.npu_op_exec(npu_input1)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_tanh_inplace(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [8, 8]], -3, 3)
        cpu_input1.tanh_()
        npu_input1.tanh_()
        self.assertRtolEqual(cpu_input1.numpy(), npu_input1.cpu().numpy())

    def test_tanh_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 16]], [np.float32, 3, [2, 3, 4, 4]], [np.float16, 0, [16, 16]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -2, 2)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_grad = self.op_backward_exec(cpu_input1)
            npu_grad = self.op_backward_exec(npu_input1)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
