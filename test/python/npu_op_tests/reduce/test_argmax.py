import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestArgmax(TestCase):
    def cpu_op_exec(self, input1, dim=None, keepdim=False):
        output = torch.argmax(input1, dim=dim, keepdim=keepdim)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim=None, keepdim=False):
        output = torch.argmax(input1, dim=dim, keepdim=keepdim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_argmax_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [
            [dtype, i, j] for dtype in [np.float16, np.float32] for i in format_list for j in shape_list
        ]
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -100, 100)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            self.assertRtolEqual(self.cpu_op_exec(cpu_input1), self.npu_op_exec(npu_input1))
            for dim in range(cpu_input1.dim()):
                for keepdim in [True, False]:
                    cpu_output = self.cpu_op_exec(cpu_input1, dim, keepdim)
                    npu_output = self.npu_op_exec(npu_input1, dim, keepdim)
                    self.assertRtolEqual(cpu_output, npu_output)

    def test_argmin_int32(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.int32, -1, [10, 12]], -1000, 1000)
        self.assertRtolEqual(torch.argmin(cpu_input1, 1).numpy(), torch.argmin(npu_input1, 1).cpu().numpy())


if __name__ == "__main__":
    run_tests()
