import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestView(TestCase):
    def cpu_op_exec(self, input1, size):
        output = input1.view(size)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, size):
        output = input1.view(size)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_view_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [2, 3, 4, 8]], size]
            for dtype in [np.float16, np.float32] for i in format_list
            for size in [(6, 32), (-1,), (2, 3, 32), (2, -1, 8, 2)]
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input, item[1])
            npu_output = self.npu_op_exec(npu_input, item[1])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_reshape_noncontiguous(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 6, 8]], -10, 10)
        cpu_output = cpu_input.transpose(0, 1).reshape(6, 32).numpy()
        npu_output = npu_input.transpose(0, 1).reshape(6, 32).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)

    def test_view_shares_storage(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 6]], -10, 10)
        cpu_view = cpu_input.view(24)
        npu_view = npu_input.view(24)
        cpu_view[3] = 100.0
        npu_view[3] = 100.0
        self.assertRtolEqual(cpu_input.numpy(), npu_input.cpu().numpy())
        self.assertRtolEqual(cpu_input.flatten().numpy(), npu_input.flatten().cpu().numpy())
        self.assertRtolEqual(cpu_input.unsqueeze(1).squeeze().numpy(), npu_input.unsqueeze(1).squeeze().cpu().numpy())


if __name__ == "__main__":
    run_tests()
