import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestMaxPool2d(TestCase):
    def cpu_op_exec(self, input1, kernel_size, stride, padding, ceil_mode):
        input1.requires_grad = True
        output = torch.nn.functional.max_pool2d(input1, kernel_size, stride, padding, ceil_mode=ceil_mode)
        output.backward(torch.ones_like(output))
        return output.detach().numpy(), input1.grad.numpy()

    def npu_op_exec(self, input1, kernel_size, stride, padding, ceil_mode):
        input1.requires_grad = True
        output = torch.nn.functional.max_pool2d(input1, kernel_size, stride, padding, ceil_mode=ceil_mode)
        output.backward(torch.ones_like(output))
        output = output.detach().to("cpu")
        return output.numpy(), input1.grad.to("cpu").numpy()

    def max_pool2d_result(self, shape_format):
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -100, 100)
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
            kernel_size, stride, padding, ceil_mode = item[1:]
            cpu_output, cpu_grad = self.cpu_op_exec(cpu_input, kernel_size, stride, padding, ceil_mode)
            npu_output, npu_grad = self.npu_op_exec(npu_input, kernel_size, stride, padding, ceil_mode)
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_max_pool2d_shape_format_fp16(self, device="npu"):
        format_list = [0, 3]
        shape_format = [
            [[np.float16, i, [2, 16, 14, 14]], 3, 2, 1, False] for i in format_list
        ] + [[[np.float16, 3, [1, 8, 9, 9]], 2, 2, 0, True]]
        self.max_pool2d_result(shape_format)

    def test_max_pool2d_shape_format_fp32(self, device="npu"):
        format_list = [0, 3]
        shape_format = [
            [[np.float32, i, [2, 16, 14, 14]], 3, 2, 1, False] for i in format_list
        ] + [[[np.float32, 0, [1, 8, 9, 9]], 2, 2, 0, True], [[np.float32, 0, [1, 3, 8, 8]], 2, 1, 0, False]]
        self.max_pool2d_result(shape_format)

    def test_max_pool2d_with_indices(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [1, 4, 8, 8]], -100, 100)
        cpu_output, cpu_indices = torch.nn.functional.max_pool2d(cpu_input, 2, 2, return_indices=True)
        npu_output, npu_indices = torch.nn.functional.max_pool2d(npu_input, 2, 2, return_indices=True)
        self.assertRtolEqual(cpu_output.numpy(), npu_output.cpu().numpy())
        self.assertRtolEqual(cpu_indices.numpy(), npu_indices.cpu().numpy())


if __name__ == "__main__":
    run_tests()
