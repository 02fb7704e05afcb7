import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestMaskedFill(TestCase):
    def cpu_op_exec(self, input1, mask, value):
        output = torch.masked_fill(input1, mask, value)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, mask, value):
        output = torch.masked_fill(input1, mask, value)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def npu_op_exec_inplace(self, input1, mask, value):
        input1.masked_fill_(mask, value)
        output = input1.to("cpu")
        output = output.numpy()
        return output

    def test_masked_fill_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_list = [[64], [16, 32], [2, 3, 8, 16]]
        shape_format = [
            [dtype, i, j] for dtype in [np.float16, np.float32] for i in format_list for j in shape_list
        ] + [[np.int32, -1, [6, 6]]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item, -10, 10)
            mask = torch.from_numpy(np.random.randint(0, 2, item[2]).astype(np.bool_))
            for value in [2, -1.5]:
                if item[0] == np.int32 and isinstance(value, float):
                    continue
                cpu_output = self.cpu_op_exec(cpu_input, mask, value)
                npu_output = self.npu_op_exec(npu_input, mask.npu(), value)
                self.assertRtolEqual(cpu_output, npu_output)
            value = torch.tensor(3.0, dtype=cpu_input.dtype) if item[0] != np.int32 else torch.tensor(3)
            cpu_output = self.cpu_op_exec(cpu_input, mask, value)
            npu_output = self.npu_op_exec_inplace(npu_input, mask.npu(), value.npu())
            self.assertRtolEqual(cpu_output, npu_output)

    def test_masked_fill_broadcast_mask(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [2, 3, 4, 4]], -10, 10)
        mask = torch.tensor([[True, False, False, True]])
        self.assertRtolEqual(self.cpu_op_exec(cpu_input, mask, float("-inf")),
                             self.npu_op_exec(npu_input, mask.npu(), float("-inf")))


if __name__ == "__main__":
    run_tests()
