import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestFlip(TestCase):
    def cpu_op_exec(self, input1, dims):
        output = torch.flip(input1, dims)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dims):
        output = torch.flip(input1, dims)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, dims):
        input1.requires_grad = True
        output = torch.flip(input1, dims)
        weight = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(weight.to(output.dtype).to(output.device))
        return input1.grad.cpu().numpy()

    def flip_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input1, item[1])
            npu_output = self.npu_op_exec(npu_input1, item[1])
            self.assertRtolEqual(cpu_output, npu_output)

    def test_flip_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        dims_list = [[0], [1], [-1], [2, 3], [0, 1, 2, 3]]
        shape_format = [[[np.float16, i, [2, 3, 8, 16]], d] for i in format_list for d in dims_list]
        self.flip_result(shape_format)

    def test_flip_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        dims_list = [[0], [1], [-1], [2, 3], [0, 1, 2, 3]]
        shape_format = [[[np.float32, i, [2, 3, 8, 16]], d] for i in format_list for d in dims_list]
        shape_format += [[[np.float32, 0, [64]], [0]], [[np.float32, 0, [16, 32]], [0, 1]]]
        self.flip_result(shape_format)

    def test_flip_int32(self, device="npu"):
        shape_format = [[[np.int32, -1, [4, 5, 6]], [0, 2]], [[np.int32, -1, [10]], [0]]]
        self.flip_result(shape_format)

    def test_flip_backward(self, device="npu"):
        for item, dims in [([np.float32, 0, [4, 10]], [1]), ([np.float32, 3, [2, 3, 4, 5]], [1, 3]),
                           ([np.float16, 0, [4, 10]], [0, 1])]:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            cpu_grad = self.op_backward_exec(cpu_input1, dims)
            npu_grad = self.op_backward_exec(npu_input1, dims)
            self.assertRtolEqual(cpu_grad, npu_grad)


if __name__ == "__main__":
    run_tests()
