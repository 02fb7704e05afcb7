import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor, test_2args_broadcast


class TestDiv(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = torch.div(input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = torch.div(input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def div_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -100, 100)
            cpu_input2, npu_input2 = create_common_tensor(item, 1, 100)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_div_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 48], [4, 16, 16], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.div_result(shape_format)

    def test_div_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 48], [4, 16, 16], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.div_result(shape_format)

    def test_div_rounding_mode(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [8, 8]], -100, 100)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [8, 8]], 1, 10)
        for mode in ["trunc", "floor"]:
            cpu_output = torch.div(cpu_input1, cpu_input2, rounding_mode=mode).numpy()
            npu_output = torch.div(npu_input1, npu_input2, rounding_mode=mode).cpu().numpy()
            self.assertRtolEqual(cpu_output, npu_output)

    def test_div_int_true_division(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [6, 6]], -50, 50)
        cpu_input2, npu_input2 = create_common_tensor([np.int32, -1, [6, 6]], 1, 9)
        self.assertRtolEqual(self.cpu_op_exec(cpu_input1, cpu_input2), self.npu_op_exec(npu_input1, npu_input2))

    def test_div_broadcast(self, device="npu"):
        for cpu_output, npu_output in test_2args_broadcast(torch.div):
            self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
