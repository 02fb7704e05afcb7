import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor

# The Ascend910A default (allow_fp32_to_fp16) runs fp32 matmuls on the fp16 Cube;
# keep fp32 operands so fp32 results can be compared with the CPU at 1e-4.
torch.npu.set_option({"ACL_PRECISION_MODE": "must_keep_origin_dtype"})


class TestMm(TestCase):
    def cpu_op_exec(self, input1, input2):
        output = torch.mm(input1, input2)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, input2):
        output = torch.mm(input1, input2)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def mm_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -1, 1)
            cpu_input2, npu_input2 = create_common_tensor(item[1], -1, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
                cpu_input2 = cpu_input2.to(torch.float32)
            cpu_output = self.cpu_op_exec(cpu_input1, cpu_input2)
            npu_output = self.npu_op_exec(npu_input1, npu_input2)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_mm_shape_format_fp16(self, device="npu"):
        format_list = [0, 29]
        shape_list = [[[16, 32], [32, 16]], [[5, 7], [7, 3]], [[64, 48], [48, 32]]]
        shape_format = [
            [[np.float16, i, s[0]], [np.float16, j, s[1]]]
            for i in format_list for j in format_list for s in shape_list
        ]
        self.mm_result(shape_format)

    def test_mm_shape_format_fp32(self, device="npu"):
        format_list = [0, 29]
        shape_list = [[[16, 32], [32, 16]], [[5, 7], [7, 3]], [[64, 48], [48, 32]]]
        shape_format = [
            [[np.float32, i, s[0]], [np.float32, j, s[1]]]
            for i in format_list for j in format_list for s in shape_list
        ]
        self.mm_result(shape_format)

    def test_mm_transposed_input(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [24, 16]], -1, 1)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [8, 24]], -1, 1)
        cpu_output = torch.mm(cpu_input1.t(), cpu_input2.t()).numpy()
        npu_output = torch.mm(npu_input1.t(), npu_input2.t()).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)

    def test_mm_backward(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [8, 12]], -1, 1)
        cpu_input2, npu_input2 = create_common_tensor([np.float32, 0, [12, 4]], -1, 1)
        for t in (cpu_input1, cpu_input2, npu_input1, npu_input2):
            t.requires_grad = True
        torch.mm(cpu_input1, cpu_input2).sum().backward()
        torch.mm(npu_input1, npu_input2).sum().backward()
        self.assertRtolEqual(cpu_input1.grad.numpy(), npu_input1.grad.cpu().numpy())
        self.assertRtolEqual(cpu_input2.grad.numpy(), npu_input2.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
