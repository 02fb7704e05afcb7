import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_dtype_tensor
from torch_npu.testing.decorator import Dtypes, Formats, instantiate_tests, graph_mode


@instantiate_tests
class TestNeg(TestCase):
    def cpu_op_exec(self, input1):
        output = torch.neg(input1)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1):
        output = torch.neg(input1)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1):
        torch.neg_(input1)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    @graph_mode
    @Dtypes(torch.float, torch.half, torch.int32)
    @Formats(0, 3, 29)
    def test_neg(self, device, dtype, npu_format):
        for shape in [(64,), (16, 32), (2, 3, 8, 16)]:
            cpu_input, npu_input = create_dtype_tensor(shape, dtype, npu_format, min_value=-10, max_value=10)
            if cpu_input.dtype == torch.float16:
                cpu_output = self.cpu_op_exec(cpu_input.to(torch.float32)).astype(np.float16)
            else:
                cpu_output = self.cpu_op_exec(cpu_input)
            npu_output = self.npu_op_exec(npu_input)
            self.assertRtolEqual(cpu_output, npu_output)
            npu_output = self.npu_op_exec_inplace(npu_input)
            self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
