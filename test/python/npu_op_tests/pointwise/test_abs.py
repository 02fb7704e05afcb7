import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestAbs(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.abs(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.abs(input1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_abs_shape_format_fp16(self, device="npu"):
        format_list = [0, 3]
        shape_list = [[5], [5, 10], [1, 3, 2], [12, 15, 15, 20]]
        shape_format = [
            [np.float16, i, j] for i in format_list for j in shape_list
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            cpu_input = cpu_input.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input)
            npu_output = self.npu_op_exec(npu_input)
            cpu_output = cpu_output.astype(np.float16)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_abs_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[5], [5, 10], [1, 3, 2], [12, 15, 15, 20]]
        shape_format = [
            [np.float32, i, j] for i in format_list for j in shape_list
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input)
            npu_output = self.npu_op_exec(npu_input)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_abs_out(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 6]], -10, 10)
        npu_out = torch.empty(0, device=npu_input.device)
        torch.abs(npu_input, out=npu_out)
        self.assertRtolEqual(torch.abs(cpu_input).numpy(), npu_out.cpu().numpy())

    def test_abs_int32(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.int32, -1, [8, 8]], -100, 100)
        self.assertRtolEqual(torch.abs(cpu_input).numpy(), torch.abs(npu_input).cpu().numpy())


if __name__ == "__main__":
    run_tests()
