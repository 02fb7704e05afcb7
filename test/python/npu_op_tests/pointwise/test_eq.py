import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestEq(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = torch.eq(input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = torch.eq(input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_eq_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        shape_format = [
            [dtype, i, j] for dtype in [np.float16, np.float32] for i in format_list for j in shape_list
        ] + [[np.int32, -1, [7, 7]]]
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -3, 3)
            cpu_input2 = cpu_input1.clone()
            cpu_input2[..., ::2] += 1
            npu_input2 = cpu_input2.npu()
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_compare_ops_with_scalar(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [10, 10]], -3, 3)
        for op in [torch.eq, torch.ne, torch.lt, torch.le, torch.gt, torch.ge]:
            self.assertRtolEqual(op(cpu_input1, 1).numpy(), op(npu_input1, 1).cpu().numpy())
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [10, 10]], -3, 3)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [10]], -3, 3)
        for op in [torch.lt, torch.ge]:
            self.assertRtolEqual(op(cpu_input1, cpu_input2).numpy(), op(npu_input1, npu_input2).cpu().numpy())


if __name__ == "__main__":
    run_tests()
