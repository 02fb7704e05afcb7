import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestIndexSelect(TestCase):
    def cpu_op_exec(self, input1, axis, indices):
        output = torch.index_select(input1, dim=axis, index=indices)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, axis, indices):
        output = torch.index_select(input1, dim=axis, index=indices)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_index_select_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [3, 4, 6, 8]], axis]
            for dtype in [np.float16, np.float32] for i in format_list for axis in [0, 1, 3]
        ] + [[[np.int32, -1, [5, 6]], 1], [[np.float32, 0, [10]], 0]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            size = item[0][2][item[1]]
            cpu_index = torch.from_numpy(np.random.randint(0, size, 4).astype(np.int64))
            cpu_output = self.cpu_op_exec(cpu_input, item[1], cpu_index)
            npu_output = self.npu_op_exec(npu_input, item[1], cpu_index.npu())
            self.assertRtolEqual(cpu_output, npu_output)
            npu_output = self.npu_op_exec(npu_input, item[1], cpu_index.int().npu())
            self.assertRtolEqual(cpu_output, npu_output)

    def test_index_select_backward(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [6, 4]], -10, 10)
        index = torch.tensor([0, 2, 2, 5])
        cpu_input.requires_grad = True
        npu_input.requires_grad = True
        torch.index_select(cpu_input, 0, index).sum().backward()
        torch.index_select(npu_input, 0, index.npu()).sum().backward()
        self.assertRtolEqual(cpu_input.grad.numpy(), npu_input.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
