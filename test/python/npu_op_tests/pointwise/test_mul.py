import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor, test_2args_broadcast


class TestMul(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = torch.mul(input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = torch.mul(input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_out(self, input1, input2, out):
        torch.mul(input1, input2, out=out)
        return out.to("cpu").numpy()

    def mul_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item, -10, 10)
            cpu_input2, npu_input2 = create_common_tensor(item, -10, 10)
            _, npu_out = create_common_tensor(item, -1, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)
            npu_output_out = self.npu_op_exec_out(npu_input1, npu_input2, npu_out)
            self.assertRtolEqual(cpu_output, npu_output_out)

    def test_mul_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 48], [4, 16, 16], [2, 3, 16, 16]]
        shape_format = [[np.float16, i, j] for i in format_list for j in shape_list]
        self.mul_result(shape_format)

    def test_mul_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 48], [4, 16, 16], [2, 3, 16, 16]]
        shape_format = [[np.float32, i, j] for i in format_list for j in shape_list]
        self.mul_result(shape_format)

    def test_mul_scalar_int_bool(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [4, 5]], -10, 10)
        self.assertRtolEqual((cpu_input * 0.3).numpy(), (npu_input * 0.3).cpu().numpy())
        cpu_int, npu_int = create_common_tensor([np.int32, -1, [4, 5]], -10, 10)
        self.assertRtolEqual((cpu_int * cpu_int).numpy(), (npu_int * npu_int).cpu().numpy())
        cpu_bool = cpu_input > 0
        npu_bool = npu_input > 0
        self.assertRtolEqual((cpu_bool * cpu_bool).numpy(), (npu_bool * npu_bool).cpu().numpy())

    def test_mul_broadcast(self, device="npu"):
        for cpu_output, npu_output in test_2args_broadcast(torch.mul):
            self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
