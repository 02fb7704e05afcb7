import torch
import numpy as np
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor, test_2args_broadcast


class TestLt(TestCase):
    """torch.lt, with its siblings torch.gt and torch.ne."""

    def cpu_op_exec(self, op, input1, input2):
        output = op(input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, op, input1, input2):
        output = op(input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_out(self, op, input1, input2):
        output = torch.empty(input1.shape, dtype=torch.bool).npu()
        op(input1, input2, out=output)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, name, input1, input2):
        getattr(input1, name + "_")(input2)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def compare_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -3, 3)
            cpu_input2 = cpu_input1.clone()
            # equal elements every third position so that ties are exercised
            cpu_input2[..., 1::3] -= 1
            cpu_input2[..., 2::3] += 1
            npu_input2 = torch_npu.npu_format_cast(cpu_input2.npu(), item[1]) if item[1] != -1 else cpu_input2.npu()
            for op in [torch.lt, torch.gt, torch.ne]:
                cpu_output = self.cpu_op_exec(op, cpu_input1, cpu_input2)
                npu_output = self.npu_op_exec(op, npu_input1, npu_input2)
                self.assertRtolEqual(cpu_output, npu_output)

                npu_output_out = self.npu_op_exec_out(op, npu_input1, npu_input2)
                self.assertRtolEqual(cpu_output, npu_output_out)

                cpu_output_scalar = self.cpu_op_exec(op, cpu_input1, 0.5)
                npu_output_scalar = self.npu_op_exec(op, npu_input1, 0.5)
                self.assertRtolEqual(cpu_output_scalar, npu_output_scalar)

    def test_lt_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.compare_result(shape_format)

    def test_lt_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.compare_result(shape_format)

    def test_lt_shape_format_int32(self, device="npu"):
        shape_format = [[np.int32, -1, j] for j in [[64], [7, 7], [2, 3, 4, 5]]]
        self.compare_result(shape_format)

    def test_lt_inplace(self, device="npu"):
        for name in ["lt", "gt", "ne"]:
            cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [8, 16]], -3, 3)
            cpu_input2 = cpu_input1.clone()
            cpu_input2[:, ::2] += 1
            npu_input2 = cpu_input2.npu()
            cpu_output = getattr(cpu_input1.clone(), name + "_")(cpu_input2).numpy()
            npu_output = self.npu_op_exec_inplace(name, npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_lt_broadcast(self, device="npu"):
        for op in [torch.lt, torch.gt, torch.ne]:
            for cpu_output, npu_output in test_2args_broadcast(op):
                self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
