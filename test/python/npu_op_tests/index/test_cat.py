import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestCat(TestCase):
    def cpu_op_exec(self, tensors, dim):
        output = torch.cat(tensors, dim)
        output = output.numpy()
        return output

    def npu_op_exec(self, tensors, dim):
        output = torch.cat(tensors, dim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def cat_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -10, 10)
            cpu_input2, npu_input2 = create_common_tensor(item[1], -10, 10)
            cpu_output = self.cpu_op_exec([cpu_input1, cpu_input2], item[2])
            npu_output = self.npu_op_exec([npu_input1, npu_input2], item[2])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_cat_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [2, 3, 4, 5]], [dtype, i, [2, 6, 4, 5]], 1]
            for dtype in [np.float16, np.float32] for i in format_list
        ] + [
            [[dtype, i, [16, 8]], [dtype, i, [16, 24]], -1]
            for dtype in [np.float16, np.float32] for i in format_list
        ] + [
            [[np.float32, 0, [3, 4]], [np.float32, 29, [5, 4]], 0],
            [[np.int32, -1, [3, 4]], [np.int32, -1, [3, 2]], 1],
        ]
        self.cat_result(shape_format)

    def test_cat_many_and_empty(self, device="npu"):
        cpu_tensors, npu_tensors = [], []
        for i in range(5):
            cpu_t, npu_t = create_common_tensor([np.float32, 0, [i + 1, 6]], -10, 10)
            cpu_tensors.append(cpu_t)
            npu_tensors.append(npu_t)
        cpu_tensors.append(torch.empty(0, 6))
        npu_tensors.append(torch.empty(0, 6).npu())
        self.assertRtolEqual(self.cpu_op_exec(cpu_tensors, 0), self.npu_op_exec(npu_tensors, 0))

    def test_cat_backward(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [2, 3]], -10, 10)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [2, 5]], -10, 10)
        for t in (cpu_input1, cpu_input2, npu_input1, npu_input2):
            t.requires_grad = True
        weight = torch.arange(16.0).reshape(2, 8)
        (torch.cat([cpu_input1, cpu_input2], 1) * weight).sum().backward()
        (torch.cat([npu_input1, npu_input2], 1) * weight.npu()).sum().backward()
        self.assertRtolEqual(cpu_input1.grad.numpy(), npu_input1.grad.cpu().numpy())
        self.assertRtolEqual(cpu_input2.grad.numpy(), npu_input2.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
