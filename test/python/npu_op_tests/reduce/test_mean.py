import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestMean(TestCase):
    def cpu_op_exec(self, input1, dim, keepdim):
        output = torch.mean(input1, dim, keepdim=keepdim)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim, keepdim):
        output = torch.mean(input1, dim, keepdim=keepdim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def mean_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -10, 10)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            for keepdim in [True, False]:
                cpu_output = self.cpu_op_exec(cpu_input1, item[1], keepdim)
                npu_output = self.npu_op_exec(npu_input1, item[1], keepdim)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

    def test_mean_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 16, 16]], dim] for i in format_list for dim in [[1], [2, 3], [0, 1, 2, 3]]
        ]
        self.mean_result(shape_format)

    def test_mean_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 16, 16]], dim] for i in format_list for dim in [[1], [2, 3], [-1]]
        ] + [[[np.float32, 0, [64, 32]], [0]], [[np.float32, 29, [64, 32]], [1]]]
        self.mean_result(shape_format)

    def test_mean_all(self, device="npu"):
        for item in [[np.float32, 0, [16, 32]], [np.float32, 3, [2, 3, 8, 8]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            self.assertRtolEqual(torch.mean(cpu_input1).numpy(), torch.mean(npu_input1).cpu().numpy())

    def test_mean_backward(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 6]], -10, 10)
        cpu_input1.requires_grad = True
        npu_input1.requires_grad = True
        torch.mean(cpu_input1, 1).sum().backward()
        torch.mean(npu_input1, 1).sum().backward()
        self.assertRtolEqual(cpu_input1.grad.numpy(), npu_input1.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
