import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestScatter(TestCase):
    def cpu_op_exec(self, input1, dim, index, src):
        output = torch.scatter(input1, dim, index, src)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim, index, src):
        output = torch.scatter(input1, dim, index.to("npu"), src)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def unique_index(self, shape, dim):
        # A random permutation along `dim`, so no position is written twice.
        index = np.argsort(np.random.rand(*shape), axis=dim)
        return torch.from_numpy(index.astype(np.int64))

    def test_scatter_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [4, 6]], dim] for dtype in [np.float16, np.float32] for i in format_list for dim in [0, 1]
        ] + [[[np.float32, 0, [3, 4, 5]], 2], [[np.int32, -1, [5, 5]], 1]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            cpu_src, npu_src = create_common_tensor(item[0], -10, 10)
            dim = item[1]
            index = self.unique_index(item[0][2], dim)
            cpu_output = self.cpu_op_exec(cpu_input, dim, index, cpu_src)
            npu_output = self.npu_op_exec(npu_input, dim, index, npu_src)
            self.assertRtolEqual(cpu_output, npu_output)
            cpu_output = self.cpu_op_exec(cpu_input, dim, index, 1.5)
            npu_output = self.npu_op_exec(npu_input, dim, index, 1.5)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_scatter_inplace_and_add(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [3, 5]], -10, 10)
        cpu_src, npu_src = create_common_tensor([np.float32, 0, [3, 5]], -10, 10)
        index = torch.tensor([[0, 1, 2, 0, 0], [2, 0, 0, 1, 2]])
        cpu_input.scatter_(0, index, cpu_src)
        npu_input.scatter_(0, index.npu(), npu_src)
        self.assertRtolEqual(cpu_input.numpy(), npu_input.cpu().numpy())
        cpu_output = torch.scatter_add(cpu_input, 0, index, cpu_src).numpy()
        npu_output = torch.scatter_add(npu_input, 0, index.npu(), npu_src).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
