import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor

# Keep fp32 operands on the Cube (the Ascend910A default rounds them to fp16).
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})


class TestAddmm(TestCase):
    def cpu_op_exec(self, input1, input2, input3, scalar1, scalar2):
        output = torch.addmm(input1, input2, input3, beta=scalar1, alpha=scalar2)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2, input3, scalar1, scalar2):
        output = torch.addmm(input1, input2, input3, beta=scalar1, alpha=scalar2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, input2, input3, scalar1, scalar2):
        input1.addmm_(input2, input3, beta=scalar1, alpha=scalar2)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def addmm_result(self, shape_format, broadcast_bias=False):
        for item in shape_format:
            bias_item = [item[0][0], item[0][1], [item[0][2][1]]] if broadcast_bias else item[0]
            if item[0][0] == np.float16:
                # addmm is MatMul, Mul, Mul, Add, each rounded to fp16: positive inputs and
                # power-of-two scalars keep the error of the chain within prec16.
                low, high, scalar1, scalar2 = 0, 1, 0.5, 0.25
            else:
                low, high = -2, 2
                scalar1 = np.random.uniform(0, 1)
                scalar2 = np.random.uniform(0, 1)
            cpu_input1, npu_input1 = create_common_tensor(bias_item, low, high)
            cpu_input2, npu_input2 = create_common_tensor(item[1], low, high)
            cpu_input3, npu_input3 = create_common_tensor(item[2], low, high)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
                cpu_input3 = cpu_input3.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2, cpu_input3, scalar1, scalar2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2, npu_input3, scalar1, scalar2)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)
            if not broadcast_bias:
                npu_output_inplace = self.npu_op_exec_inplace(npu_input1, npu_input2, npu_input3, scalar1, scalar2)
                self.assertRtolEqual(cpu_output, npu_output_inplace)

    def test_addmm_shape_format_fp16(self, device="npu"):
        format_list = [0, 29]
        shape_list = [(3, 4, 5), (16, 32, 16)]
        shape_format = [
            [[np.float16, i, [s[0], s[2]]], [np.float16, i, [s[0], s[1]]], [np.float16, i, [s[1], s[2]]]]
            for i in format_list for s in shape_list
        ]
        self.addmm_result(shape_format)

    def test_addmm_shape_format_fp32(self, device="npu"):
        format_list = [0, 29]
        shape_list = [(3, 4, 5), (16, 32, 16)]
        shape_format = [
            [[np.float32, i, [s[0], s[2]]], [np.float32, i, [s[0], s[1]]], [np.float32, i, [s[1], s[2]]]]
            for i in format_list for s in shape_list
        ]
        self.addmm_result(shape_format)

    def test_addmm_broadcast_bias(self, device="npu"):
        shape_format = [
            [[np.float32, 0, [4, 6]], [np.float32, 0, [4, 8]], [np.float32, 0, [8, 6]]],
            [[np.float16, 0, [4, 6]], [np.float16, 0, [4, 8]], [np.float16, 0, [8, 6]]],
        ]
        self.addmm_result(shape_format, broadcast_bias=True)


if __name__ == "__main__":
    run_tests()
