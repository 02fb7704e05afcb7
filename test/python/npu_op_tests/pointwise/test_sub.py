import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor, test_2args_broadcast


class TestSub(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = input1 - input2
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = input1 - input2
        output = output.to("cpu")
        output = output.numpy()
        return output

    def cpu_op_exec_alpha(self, input1, input2):
        return torch.sub(input1, input2, alpha=2).numpy()

    def npu_op_exec_alpha(self, input1, input2):
        return torch.sub(input1, input2, alpha=2).to("cpu").numpy()

    def sub_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -100, 100)
            cpu_input2, npu_input2 = create_common_tensor(item, -100, 100)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            cpu_output = self.cpu_op_exec_alpha(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec_alpha(npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)

    def test_sub_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[32], [16, 32], [4, 16, 32], [2, 4, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.sub_result(shape_format)

    def test_sub_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[32], [16, 32], [4, 16, 32], [2, 4, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.sub_result(shape_format)

    def test_sub_scalar_and_int(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.int32, -1, [5, 7]], -50, 50)
        self.assertRtolEqual((cpu_input - 3).numpy(), (npu_input - 3).cpu().numpy())
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [5, 7]], -50, 50)
        self.assertRtolEqual((1.5 - cpu_input).numpy(), (1.5 - npu_input).cpu().numpy())

    def test_sub_broadcast(self, device="npu"):
        for cpu_output, npu_output in test_2args_broadcast(torch.sub):
            self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
