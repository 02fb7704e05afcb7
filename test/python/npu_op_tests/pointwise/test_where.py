import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestWhere(TestCase):
    def cpu_op_exec(self, condition, input1, input2):
        output = torch.where(condition, input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, condition, input1, input2):
        output = torch.where(condition, input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_where_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        shape_format = [
            [dtype, i, j] for dtype in [np.float16, np.float32] for i in format_list for j in shape_list
        ]
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            cpu_input2, npu_input2 = create_common_tensor(item, -10, 10)
            cpu_condition = cpu_input1 > 0
            npu_condition = npu_input1 > 0
            cpu_output = self.cpu_op_exec(cpu_condition, cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_condition, npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_where_broadcast_and_scalar(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 5]], -10, 10)
        cpu_condition = torch.tensor([True, False, True, False, False])
        cpu_output = self.cpu_op_exec(cpu_condition, cpu_input1, torch.tensor(0.0))
        npu_output = self.npu_op_exec(cpu_condition.npu(), npu_input1, torch.tensor(0.0).npu())
        self.assertRtolEqual(cpu_output, npu_output)

    def test_where_nonzero(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [6, 7]], -10, 10)
        cpu_output = torch.where(cpu_input1 > 3)
        npu_output = torch.where(npu_input1 > 3)
        self.assertEqual(len(cpu_output), len(npu_output))
        for cpu_index, npu_index in zip(cpu_output, npu_output):
            self.assertRtolEqual(cpu_index.numpy(), npu_index.cpu().numpy())


if __name__ == "__main__":
    run_tests()
