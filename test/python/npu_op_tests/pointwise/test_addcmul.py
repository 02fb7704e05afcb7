import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestAddcmul(TestCase):
    def cpu_op_exec(self, input1, input2, input3, value):
        output = torch.addcmul(input1, input2, input3, value=value)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2, input3, value):
        output = torch.addcmul(input1, input2, input3, value=value)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, input2, input3, value):
        input1.addcmul_(input2, input3, value=value)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, input2, input3, value):
        for t in (input1, input2, input3):
            t.requires_grad = True
        output = torch.addcmul(input1, input2, input3, value=value)
        output.backward(torch.ones_like(output))
        return [t.grad.cpu().numpy() for t in (input1, input2, input3)]

    def addcmul_result(self, shape_format):
        for item in shape_format:
            for value in [1, 0.5, -2]:
                cpu_input1, npu_input1 = create_common_tensor(item, -2, 2)
                cpu_input2, npu_input2 = create_common_tensor(item, -2, 2)
                cpu_input3, npu_input3 = create_common_tensor(item, -2, 2)
                if cpu_input1.dtype == torch.float16:
                    cpu_input1 = cpu_input1.to(torch.float32)
                    cpu_input2 = cpu_input2.to(torch.float32)
                    cpu_input3 = cpu_input3.to(torch.float32)
                cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2, cpu_input3, value)
                npu_output = self.npu_op_exec(npu_input1, npu_input2, npu_input3, value)
                cpu_output = cpu_output.astype(npu_output.dtype)
                self.assertRtolEqual(cpu_output, npu_output)

                npu_output_inplace = self.npu_op_exec_inplace(npu_input1, npu_input2, npu_input3, value)
                self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_addcmul_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.addcmul_result(shape_format)

    def test_addcmul_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.addcmul_result(shape_format)

    def test_addcmul_broadcast(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [4, 1, 16]], -2, 2)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [8, 1]], -2, 2)
        cpu_input3, npu_input3 = create_common_tensor([np.float32, 0, [16]], -2, 2)
        cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2, cpu_input3, 0.5)
        npu_output = self.npu_op_exec(npu_input1, npu_input2, npu_input3, 0.5)
        self.assertRtolEqual(cpu_output, npu_output)

    def test_addcmul_backward(self, device="npu"):
        for item in [[np.float32, 0, [4, 32]], [np.float32, 3, [2, 3, 8, 8]], [np.float16, 0, [4, 32]]]:
            cpu_input1, npu_input1 = create_common_tensor(item, -2, 2)
            cpu_input2, npu_input2 = create_common_tensor(item, -2, 2)
            cpu_input3, npu_input3 = create_common_tensor(item, -2, 2)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
                cpu_input3 = cpu_input3.to(torch.float32)
            cpu_grads = self.op_backward_exec(cpu_input1, cpu_input2, cpu_input3, 0.5)
            npu_grads = self.op_backward_exec(npu_input1, npu_input2, npu_input3, 0.5)
            for cpu_grad, npu_grad in zip(cpu_grads, npu_grads):
                self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
