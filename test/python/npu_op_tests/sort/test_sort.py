import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestSort(TestCase):
    def cpu_op_exec(self, input1, dim, descending):
        output, indices = torch.sort(input1, dim=dim, descending=descending)
        return output.numpy(), indices.numpy()

    def npu_op_exec(self, input1, dim, descending):
        output, indices = torch.sort(input1, dim=dim, descending=descending)
        return output.to("cpu").numpy(), indices.to("cpu").numpy()

    def test_sort_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [3, 5, 16]], dim]
            for dtype in [np.float16, np.float32] for i in format_list for dim in [-1, 1]
        ] + [[[np.float32, 0, [100]], 0], [[np.int32, -1, [6, 9]], 1]]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -1000, 1000)
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
            for descending in [False, True]:
                cpu_output, cpu_indices = self.cpu_op_exec(cpu_input, item[1], descending)
                npu_output, npu_indices = self.npu_op_exec(npu_input, item[1], descending)
                self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
                # Equal values may come in any order; the gathered values must still match.
                gathered = np.take_along_axis(npu_input.cpu().numpy(), npu_indices, axis=item[1])
                self.assertRtolEqual(npu_output, gathered)

    def test_sort_stable_indices(self, device="npu"):
        cpu_input = torch.tensor([3.0, 1.0, 2.0, 1.0, 3.0, 0.5])
        cpu_output, cpu_indices = torch.sort(cpu_input, stable=True)
        npu_output, npu_indices = torch.sort(cpu_input.npu(), stable=True)
        self.assertRtolEqual(cpu_output.numpy(), npu_output.cpu().numpy())
        self.assertRtolEqual(cpu_indices.numpy(), npu_indices.cpu().numpy())

    def test_argsort(self, device="npu"):
        cpu_input = torch.from_numpy(np.random.permutation(50).astype(np.float32))
        self.assertRtolEqual(torch.argsort(cpu_input).numpy(), torch.argsort(cpu_input.npu()).cpu().numpy())


if __name__ == "__main__":
    run_tests()
