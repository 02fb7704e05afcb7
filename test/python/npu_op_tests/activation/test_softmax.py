import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestSoftmax(TestCase):
    def cpu_op_exec(self, input1, dim):
        output = torch.nn.functional.softmax(input1, dim=dim)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim):
        output = torch.nn.functional.softmax(input1, dim=dim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, dim):
        input1.requires_grad = True
        output = torch.nn.functional.softmax(input1, dim=dim)
        weight = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(weight.to(output.dtype).to(output.device))
        return input1.grad.cpu().numpy()

    def softmax_result(self, shape_format):
        for item in shape_format:
            dim = item[1]
            cpu_input1, npu_input1 = create_common_tensor(item[0], -5, 5)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, dim)
            npu_output = self.npu_op_exec(npu_input1, dim)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_softmax_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 16, 16]], d] for i in format_list for d in [0, 1, -1]
        ] + [[[np.float16, 0, [8, 32]], -1]]
        self.softmax_result(shape_format)

    def test_softmax_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 16, 16]], d] for i in format_list for d in [0, 1, -1]
        ] + [[[np.float32, 0, [8, 32]], -1]]
        self.softmax_result(shape_format)

    def test_softmax_backward(self, device="npu"):
        for item, dim in [([np.float32, 0, [4, 10]], 1), ([np.float32, 3, [2, 3, 4, 5]], 1),
                          ([np.float16, 0, [4, 10]], -1)]:
            cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_grad = self.op_backward_exec(cpu_input1, dim)
            npu_grad = self.op_backward_exec(npu_input1, dim)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
