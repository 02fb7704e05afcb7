import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestRsqrt(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.rsqrt(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.rsqrt(input1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_out(self, input1, out):
        torch.rsqrt(input1, out=out)
        output = out.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1):
        torch.rsqrt_(input1)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def test_rsqrt_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [4, 16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, 0.1, 100)
            cpu_input1 = cpu_input1.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1)
            npu_output = self.npu_op_exec(npu_input1)
            cpu_output = cpu_output.astype(np.float16)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_rsqrt_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [4, 16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, 0.1, 100)
            _, npu_out = create_common_tensor(item, 0.1, 100)
            cpu_output = self.cpu_op_exec(cpu_input1)
            npu_output = self.npu_op_exec(npu_input1)
            self.assertRtolEqual(cpu_output, npu_output)
            npu_output_out = self.npu_op_exec_out(npu_input1, npu_out)
            self.assertRtolEqual(cpu_output, npu_output_out)
            npu_output_inplace = self.npu_op_exec_inplace(npu_input1)
            self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_rsqrt_backward(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 3, [2, 3, 4, 4]], 1, 10)
        cpu_input1.requires_grad = True
        npu_input1.requires_grad = True
        torch.rsqrt(cpu_input1).sum().backward()
        torch.rsqrt(npu_input1).sum().backward()
        self.assertRtolEqual(cpu_input1.grad.numpy(), npu_input1.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
