import torch
import numpy as np
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestTopK(TestCase):
    def cpu_op_exec(self, input1, k, dim, largest):
        output, indices = torch.topk(input1, k, dim, largest)
        return output.numpy(), indices.numpy()

    def npu_op_exec(self, input1, k, dim, largest):
        output, indices = torch.topk(input1, k, dim, largest)
        return output.to("cpu").numpy(), indices.to("cpu").numpy()

    def unique_values(self, item):
        # Distinct values, so the indices of equal elements cannot differ.
        numel = int(np.prod(item[2]))
        values = np.random.permutation(numel).reshape(item[2]).astype(item[0]) / 8
        cpu_input = torch.from_numpy(values.astype(item[0]))
        npu_input = torch_npu.npu_format_cast(cpu_input.npu(), item[1])
        return cpu_input, npu_input

    def test_topk_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [[dtype, i, [4, 6, 16]], k, dim]
            for dtype in [np.float16, np.float32] for i in format_list for k, dim in [(3, -1), (2, 1), (1, 0)]
        ]
        for item in shape_format:
            cpu_input, npu_input = self.unique_values(item[0])
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
            for largest in [True, False]:
                cpu_output, cpu_indices = self.cpu_op_exec(cpu_input, item[1], item[2], largest)
                npu_output, npu_indices = self.npu_op_exec(npu_input, item[1], item[2], largest)
                self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
                self.assertRtolEqual(cpu_indices, npu_indices)

    def test_topk_int32_and_backward(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.int32, -1, [40]], -1000, 1000)
        cpu_values = torch.topk(cpu_input, 5)[0].numpy()
        npu_values = torch.topk(npu_input, 5)[0].cpu().numpy()
        self.assertRtolEqual(cpu_values, npu_values)
        cpu_input, npu_input = self.unique_values([np.float32, 0, [4, 8]])
        cpu_input.requires_grad = True
        npu_input.requires_grad = True
        torch.topk(cpu_input, 3)[0].sum().backward()
        torch.topk(npu_input, 3)[0].sum().backward()
        self.assertRtolEqual(cpu_input.grad.numpy(), npu_input.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
