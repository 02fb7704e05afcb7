import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestRepeat(TestCase):
    def cpu_op_exec(self, input1, sizes):
        output = input1.repeat(sizes)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, sizes):
        output = input1.repeat(sizes)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, sizes):
        input1.requires_grad = True
        output = input1.repeat(sizes)
        weight = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(weight.to(output.dtype).to(output.device))
        return input1.grad.cpu().numpy()

    def repeat_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -10, 10)
            cpu_output = self.cpu_op_exec(cpu_input1, item[1])
            npu_output = self.npu_op_exec(npu_input1, item[1])
            self.assertRtolEqual(cpu_output, npu_output)

    def repeat_cases(self, dtype):
        format_list = [0, 3, 29]
        sizes_list = [(1, 1, 1, 1), (2, 1, 1, 1), (1, 2, 1, 1), (1, 1, 2, 3), (2, 1, 1, 1, 2)]
        return [[[dtype, i, [2, 3, 8, 16]], s] for i in format_list for s in sizes_list]

    def test_repeat_shape_format_fp16(self, device="npu"):
        self.repeat_result(self.repeat_cases(np.float16))

    def test_repeat_shape_format_fp32(self, device="npu"):
        shape_format = self.repeat_cases(np.float32)
        shape_format += [[[np.float32, 0, [16]], (3,)], [[np.float32, 0, [16]], (2, 3)],
                         [[np.float32, 0, [5, 7]], (3, 2)]]
        self.repeat_result(shape_format)

    def test_repeat_int32(self, device="npu"):
        shape_format = [[[np.int32, -1, [4, 5]], (2, 2)], [[np.int32, -1, [3]], (2, 1, 4)]]
        self.repeat_result(shape_format)

    def test_repeat_backward(self, device="npu"):
        for item, sizes in [([np.float32, 0, [4, 10]], (2, 3)), ([np.float32, 3, [2, 3, 4, 5]], (1, 2, 1, 2)),
                            ([np.float16, 0, [4, 10]], (3, 1, 1))]:
            cpu_input1, npu_input1 = create_common_tensor(item, -1, 1)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            cpu_grad = self.op_backward_exec(cpu_input1, sizes)
            npu_grad = self.op_backward_exec(npu_input1, sizes)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)


if __name__ == "__main__":
    run_tests()
