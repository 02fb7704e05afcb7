import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestGather(TestCase):
    def cpu_op_exec(self, input1, dim, index):
        output = torch.gather(input1, dim, index)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim, index):
        index = index.to("npu")
        output = torch.gather(input1, dim, index)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def test_gather_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [4, 6, 8]], dim]
            for dtype in [np.float16, np.float32] for i in format_list for dim in [0, 1, 2]
        ] + [[[np.int32, -1, [5, 7]], 1]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            dim = item[1]
            index_shape = list(item[0][2])
            index_shape[dim] = 3
            index = torch.from_numpy(np.random.randint(0, item[0][2][dim], index_shape).astype(np.int64))
            cpu_output = self.cpu_op_exec(cpu_input, dim, index)
            npu_output = self.npu_op_exec(npu_input, dim, index)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_gather_backward(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 5]], -10, 10)
        index = torch.tensor([[0, 0, 1], [4, 2, 2], [3, 3, 3], [1, 0, 4]])
        cpu_input.requires_grad = True
        npu_input.requires_grad = True
        torch.gather(cpu_input, 1, index).sum().backward()
        torch.gather(npu_input, 1, index.npu()).sum().backward()
        self.assertRtolEqual(cpu_input.grad.numpy(), npu_input.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
