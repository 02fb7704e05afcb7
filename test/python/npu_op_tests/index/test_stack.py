import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestStack(TestCase):
    def cpu_op_exec(self, input1, input2, dim):
        output = torch.stack((input1, input2), dim)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2, dim):
        output = torch.stack((input1, input2), dim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_out(self, input1, input2, dim, out):
        torch.stack((input1, input2), dim, out=out)
        return out.to("cpu").numpy()

    def stack_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -100, 100)
            cpu_input2, npu_input2 = create_common_tensor(item[0], -100, 100)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2, item[1])
            npu_output = self.npu_op_exec(npu_input1, npu_input2, item[1])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_stack_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 4, 5]], d] for i in format_list for d in [0, 2, 4]
        ] + [[[np.float16, 0, [16]], 1]]
        self.stack_result(shape_format)

    def test_stack_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 4, 5]], d] for i in format_list for d in [0, 1, -1]
        ] + [[[np.float32, 29, [16, 32]], 1], [[np.int32, -1, [4, 5]], 0]]
        self.stack_result(shape_format)

    def test_stack_out(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [3, 4]], -10, 10)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [3, 4]], -10, 10)
        npu_out = torch.empty(0).npu()
        self.assertRtolEqual(self.cpu_op_exec(cpu_input1, cpu_input2, 1),
                             self.npu_op_exec_out(npu_input1, npu_input2, 1, npu_out))


if __name__ == "__main__":
    run_tests()
