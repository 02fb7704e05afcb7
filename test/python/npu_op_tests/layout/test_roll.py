import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestRoll(TestCase):
    def cpu_op_exec(self, input1, shifts, dims):
        output = torch.roll(input1, shifts, dims)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, shifts, dims):
        output = torch.roll(input1, shifts, dims)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, shifts, dims):
        input1.requires_grad = True
        output = torch.roll(input1, shifts, dims)
        weight = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(weight.to(output.dtype).to(output.device))
        return input1.grad.cpu().numpy()

    def roll_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -10, 10)
            shifts, dims = item[1], item[2]
            cpu_output = self.cpu_op_exec(cpu_input1, shifts, dims)
            npu_output = self.npu_op_exec(npu_input1, shifts, dims)
            self.assertRtolEqual(cpu_output, npu_output)

    def roll_cases(self, dtype):
        format_list = [0, 3, 29]
        shift_dims = [(3, -1), (1, 1), (-20, 3), ((1, -2), (0, 2)), (7, None), (0, 0)]
        return [[[dtype, i, [2, 3, 8, 16]], s, d] for i in format_list for s, d in shift_dims]

    def test_roll_shape_format_fp16(self, device="npu"):
        self.roll_result(self.roll_cases(np.float16))

    def test_roll_shape_format_fp32(self, device="npu"):
        shape_format = self.roll_cases(np.float32)
        shape_format += [[[np.float32, 0, [64]], 5, 0], [[np.float32, 0, [16, 32]], (3, 33), (0, 1)]]
        self.roll_result(shape_format)

    def test_roll_int32(self, device="npu"):
        shape_format = [[[np.int32, -1, [4, 5, 6]], 2, 1], [[np.int32, -1, [4, 5, 6]], -3, None]]
        self.roll_result(shape_format)

    def test_roll_backward(self, device="npu"):
        for item, shifts, dims in [([np.float32, 0, [4, 10]], 3, 1), ([np.float32, 3, [2, 3, 4, 5]], (1, 2), (1, 3)),
                                   ([np.float16, 0, [4, 10]], 5, None)]:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            cpu_grad = self.op_backward_exec(cpu_input1, shifts, dims)
            npu_grad = self.op_backward_exec(npu_input1, shifts, dims)
            self.assertRtolEqual(cpu_grad, npu_grad)


if __name__ == "__main__":
    run_tests()
