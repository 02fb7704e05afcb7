import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestHardtanh(TestCase):
    def cpu_op_exec(self, input1, min_val, max_val):
        output = torch.nn.functional.hardtanh(input1, min_val, max_val)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, min_val, max_val):
        output = torch.nn.functional.hardtanh(input1, min_val, max_val)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, min_val, max_val):
        torch.nn.functional.hardtanh_(input1, min_val, max_val)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, min_val, max_val):
        input1.requires_grad = True
        output = torch.nn.functional.hardtanh(input1, min_val, max_val)
        output.backward(torch.ones_like(output))
        return input1.grad.cpu().numpy()

    def hardtanh_result(self, shape_format):
        for item in shape_format:
            for min_val, max_val in [(-1.0, 1.0), (-2.0, 0.5), (0.0, 6.0)]:
                cpu_input1, npu_input1 = create_common_tensor(item, -8, 8)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                cpu_output = self.cpu_op_exec(cpu_input1, min_val, max_val)
                npu_output = self.npu_op_exec(npu_input1, min_val, max_val)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

                npu_output_inplace = self.npu_op_exec_inplace(npu_input1, min_val, max_val)
                self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_hardtanh_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.hardtanh_result(shape_format)

    def test_hardtanh_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.hardtanh_result(shape_format)

    def test_relu6(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 3, [2, 3, 8, 8]], -10, 10)
        cpu_output = torch.nn.functional.relu6(cpu_input1).numpy()
        npu_output = torch.nn.functional.relu6(npu_input1).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)

    def test_hardtanh_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float32, 29, [16, 16]],
                     [np.float16, 0, [4, 32]], [np.float16, 3, [2, 3, 8, 8]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -3, 3)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_grad = self.op_backward_exec(cpu_input1, -1.0, 1.0)
            npu_grad = self.op_backward_exec(npu_input1, -1.0, 1.0)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
