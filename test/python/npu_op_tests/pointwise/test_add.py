import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor, test_2args_broadcast


class TestAdd(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = torch.add(input1, input2, alpha=1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = torch.add(input1, input2, alpha=1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def cpu_op_exec_alpha(self, input1, input2, alpha):
        output = torch.add(input1, input2, alpha=alpha)
        return output.numpy()

    def npu_op_exec_alpha(self, input1, input2, alpha):
        output = torch.add(input1, input2, alpha=alpha)
        return output.to("cpu").numpy()

    def npu_op_exec_inplace(self, input1, input2):
        input1.add_(input2)
        return input1.to("cpu").numpy()

    def add_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, 0, 100)
            cpu_input2, npu_input2 = create_common_tensor(item, 0, 100)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

            cpu_output_alpha = self.cpu_op_exec_alpha(cpu_input1, cpu_input2, 0.5)
            npu_output_alpha = self.npu_op_exec_alpha(npu_input1, npu_input2, 0.5)
            cpu_output_alpha = cpu_output_alpha.astype(npu_output_alpha.dtype)
            self.assertRtolEqual(cpu_output_alpha, npu_output_alpha)

            npu_output_inplace = self.npu_op_exec_inplace(npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_add_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [32, 16], [4, 16, 16], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.add_result(shape_format)

    def test_add_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [32, 16], [4, 16, 16], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.add_result(shape_format)

    def test_add_int32(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [10, 10]], -100, 100)
        cpu_input2, npu_input2 = create_common_tensor([np.int32, -1, [10, 10]], -100, 100)
        self.assertRtolEqual(self.cpu_op_exec(cpu_input1, cpu_input2), self.npu_op_exec(npu_input1, npu_input2))

    def test_add_scalar(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [3, 4, 5]], -10, 10)
        self.assertRtolEqual((cpu_input + 2.5).numpy(), (npu_input + 2.5).cpu().numpy())
        self.assertRtolEqual(torch.add(cpu_input, 3, alpha=2).numpy(),
                             torch.add(npu_input, 3, alpha=2).cpu().numpy())

    def test_add_broadcast(self, device="npu"):
        for cpu_output, npu_output in test_2args_broadcast(torch.add):
            self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
