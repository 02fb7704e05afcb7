import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestCumsum(TestCase):
    def cpu_op_exec(self, input1, dim):
        output = torch.cumsum(input1, dim)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim):
        output = torch.cumsum(input1, dim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_out(self, input1, dim, out):
        torch.cumsum(input1, dim, out=out)
        return out.to("cpu").numpy()

    def test_cumsum_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 4, 8, 16]], dim] for i in format_list for dim in [0, 1, 3]
        ] + [[[np.float32, 0, [100]], 0]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -1, 1)
            cpu_output = self.cpu_op_exec(cpu_input, item[1])
            npu_output = self.npu_op_exec(npu_input, item[1])
            self.assertRtolEqual(cpu_output, npu_output)
            _, npu_out = create_common_tensor(item[0], -1, 1)
            npu_output = self.npu_op_exec_out(npu_input, item[1], npu_out)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_cumsum_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [[[np.float16, i, [2, 4, 8, 16]], dim] for i in format_list for dim in [1, -1]]
        for item in shape_format:
            # Non-negative inputs keep the running sums away from cancellation.
            cpu_input, npu_input = create_common_tensor(item[0], 0, 1)
            cpu_output = self.cpu_op_exec(cpu_input.to(torch.float32), item[1]).astype(np.float16)
            npu_output = self.npu_op_exec(npu_input, item[1])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_cumsum_int_and_dtype(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.int32, -1, [5, 8]], -10, 10)
        cpu_output = torch.cumsum(cpu_input, 1)
        npu_output = torch.cumsum(npu_input, 1)
        self.assertEqual(cpu_output.dtype, npu_output.dtype)
        self.assertRtolEqual(cpu_output.numpy(), npu_output.cpu().numpy())
        cpu_output = torch.cumsum(cpu_input, 0, dtype=torch.float32)
        npu_output = torch.cumsum(npu_input, 0, dtype=torch.float32)
        self.assertRtolEqual(cpu_output.numpy(), npu_output.cpu().numpy())

    def test_cumsum_backward(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 6]], -1, 1)
        cpu_input.requires_grad = True
        npu_input.requires_grad = True
        weight = torch.arange(24.0).reshape(4, 6)
        (torch.cumsum(cpu_input, 1) * weight).sum().backward()
        (torch.cumsum(npu_input, 1) * weight.npu()).sum().backward()
        self.assertRtolEqual(cpu_input.grad.numpy(), npu_input.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
