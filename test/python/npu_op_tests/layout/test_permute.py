import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestPermute(TestCase):
    def cpu_op_exec(self, input1, dims):
        output = input1.permute(dims).contiguous()
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dims):
        output = input1.permute(dims).contiguous()
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_permute_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [2, 3, 8, 16]], dims]
            for dtype in [np.float16, np.float32] for i in format_list
            for dims in [(0, 2, 3, 1), (3, 2, 1, 0), (1, 0, 2, 3)]
        ] + [[[np.float32, 0, [4, 5, 6]], (2, 0, 1)], [[np.int32, -1, [4, 5]], (1, 0)]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input, item[1])
            npu_output = self.npu_op_exec(npu_input, item[1])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_permute_backward(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [2, 3, 4]], -10, 10)
        cpu_input.requires_grad = True
        npu_input.requires_grad = True
        weight = torch.arange(24.0).reshape(4, 2, 3)
        (cpu_input.permute(2, 0, 1) * weight).sum().backward()
        (npu_input.permute(2, 0, 1) * weight.npu()).sum().backward()
        self.assertRtolEqual(cpu_input.grad.numpy(), npu_input.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
