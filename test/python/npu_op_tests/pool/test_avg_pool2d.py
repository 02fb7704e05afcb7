import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestAvgPool2d(TestCase):
    def cpu_op_exec(self, input1, kernel_size, stride, padding, ceil_mode, count_include_pad):
        input1.requires_grad = True
        output = torch.nn.functional.avg_pool2d(input1, kernel_size, stride, padding, ceil_mode, count_include_pad)
        output.backward(torch.ones_like(output))
        return output.detach().numpy(), input1.grad.numpy()

    def npu_op_exec(self, input1, kernel_size, stride, padding, ceil_mode, count_include_pad):
        input1.requires_grad = True
        output = torch.nn.functional.avg_pool2d(input1, kernel_size, stride, padding, ceil_mode, count_include_pad)
        output.backward(torch.ones_like(output))
        output = output.detach().to("cpu")
        return output.numpy(), input1.grad.to("cpu").numpy()

    def avg_pool2d_result(self, shape_format):
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -10, 10)
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
            cpu_output, cpu_grad = self.cpu_op_exec(cpu_input, *item[1:])
            npu_output, npu_grad = self.npu_op_exec(npu_input, *item[1:])
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_avg_pool2d_shape_format_fp16(self, device="npu"):
        format_list = [0, 3]
        shape_format = [
            [[np.float16, i, [2, 16, 12, 12]], 3, 2, 1, False, True] for i in format_list
        ] + [[[np.float16, 3, [1, 8, 8, 8]], 2, 2, 0, False, True]]
        self.avg_pool2d_result(shape_format)

    def test_avg_pool2d_shape_format_fp32(self, device="npu"):
        format_list = [0, 3]
        shape_format = [
            [[np.float32, i, [2, 16, 12, 12]], 3, 2, 1, False, True] for i in format_list
        ] + [
            [[np.float32, 0, [1, 8, 9, 9]], 2, 2, 0, True, True],
            [[np.float32, 0, [1, 4, 7, 7]], 3, 1, 1, False, False],
        ]
        self.avg_pool2d_result(shape_format)

    def test_adaptive_avg_pool2d(self, device="npu"):
        for item in [[np.float32, 0, [2, 8, 7, 7]], [np.float32, 3, [2, 16, 4, 4]]]:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            cpu_output = torch.nn.functional.adaptive_avg_pool2d(cpu_input, 1).numpy()
            npu_output = torch.nn.functional.adaptive_avg_pool2d(npu_input, 1).cpu().numpy()
            self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
