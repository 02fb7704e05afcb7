import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestLogSoftmax(TestCase):
    def cpu_op_exec(self, input1, dim):
        output = torch.nn.functional.log_softmax(input1, dim=dim)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim):
        output = torch.nn.functional.log_softmax(input1, dim=dim)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, dim):
        input1.requires_grad = True
        output = torch.nn.functional.log_softmax(input1, dim=dim)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def logsoftmax_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -5, 5)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, item[1])
            npu_output = self.npu_op_exec(npu_input1, item[1])
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_logsoftmax_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [[[np.float32, i, [2, 3, 8, 16]], d] for i in format_list for d in [1, -1]]
        shape_format.append([[np.float32, 0, [16, 100]], 1])
        self.logsoftmax_result(shape_format)

    def test_logsoftmax_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [[[np.float16, i, [2, 3, 8, 16]], d] for i in format_list for d in [1, -1]]
        shape_format.append([[np.float16, 0, [16, 100]], 1])
        self.logsoftmax_result(shape_format)

    def test_logsoftmax_backward(self, device="npu"):
        for item, dim in [([np.float32, 0, [4, 10]], 1), ([np.float32, 3, [2, 3, 4, 5]], 1)]:
            cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
            cpu_grad = self.op_backward_exec(cpu_input1, dim)
            npu_grad = self.op_backward_exec(npu_input1, dim)
            self.assertRtolEqual(cpu_grad, npu_grad)


if __name__ == "__main__":
    run_tests()
