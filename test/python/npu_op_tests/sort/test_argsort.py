import torch
import numpy as np
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestArgsort(TestCase):
    def cpu_op_exec(self, input1, dim, descending):
        output = torch.argsort(input1, dim=dim, descending=descending)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, dim, descending):
        output = torch.argsort(input1, dim=dim, descending=descending)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def argsort_result(self, shape_format):
        for item in shape_format:
            dim, descending = item[1], item[2]
            # distinct values (a permutation), so that the order of ties cannot matter
            shape = item[0][2]
            values = np.random.permutation(int(np.prod(shape))).reshape(shape).astype(item[0][0])
            cpu_input1 = torch.from_numpy(values)
            npu_input1 = torch.from_numpy(values).npu()
            if item[0][1] != -1:
                npu_input1 = torch_npu.npu_format_cast(npu_input1, item[0][1])
            cpu_output = self.cpu_op_exec(cpu_input1, dim, descending)
            npu_output = self.npu_op_exec(npu_input1, dim, descending)
            self.assertRtolEqual(cpu_output, npu_output)

    def test_argsort_shape_format_fp16(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float16, i, [2, 3, 8, 16]], d, desc]
            for i in format_list for d in [-1, 1] for desc in [False, True]
        ] + [[[np.float16, 0, [16, 32]], 0, False]]
        self.argsort_result(shape_format)

    def test_argsort_shape_format_fp32(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[np.float32, i, [2, 3, 8, 16]], d, desc]
            for i in format_list for d in [-1, 1] for desc in [False, True]
        ] + [[[np.float32, 0, [16, 32]], 0, True], [[np.float32, 0, [100]], 0, False]]
        self.argsort_result(shape_format)

    def test_argsort_int32(self, device="npu"):
        shape_format = [[[np.int32, -1, [8, 10]], -1, False], [[np.int32, -1, [8, 10]], 0, True]]
        self.argsort_result(shape_format)

    def test_argsort_gather_matches_sort(self, device="npu"):
        cpu_input1, npu_input1 = create_common_tensor([np.float32, 0, [6, 50]], -10, 10)
        npu_index = torch.argsort(npu_input1, dim=-1)
        npu_sorted = torch.gather(npu_input1, -1, npu_index).cpu().numpy()
        cpu_sorted = torch.sort(cpu_input1, dim=-1)[0].numpy()
        self.assertRtolEqual(cpu_sorted, npu_sorted)


if __name__ == "__main__":
    run_tests()
