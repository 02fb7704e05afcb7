import copy

import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestEmbedding(TestCase):
    def cpu_op_exec(self, weight, indices, padding_idx=None):
        weight.requires_grad = True
        output = torch.nn.functional.embedding(indices, weight, padding_idx=padding_idx)
        output.backward(torch.ones_like(output))
        return output.detach().numpy(), weight.grad.numpy()

    def npu_op_exec(self, weight, indices, padding_idx=None):
        weight.requires_grad = True
        output = torch.nn.functional.embedding(indices, weight, padding_idx=padding_idx)
        output.backward(torch.ones_like(output))
        return output.detach().cpu().numpy(), weight.grad.cpu().numpy()

    def test_embedding_shape_format(self, device="npu"):
        shape_format = [
            [[np.float32, 0, [40, 16]], [4, 6]],
            [[np.float32, 29, [40, 32]], [10]],
            [[np.float16, 0, [40, 16]], [3, 5]],
            [[np.float16, 29, [64, 32]], [2, 3, 4]],
        ]
        for item in shape_format:
            cpu_weight, npu_weight = create_common_tensor(item[0], -1, 1)
            indices = torch.from_numpy(np.random.randint(0, item[0][2][0], item[1]))
            if cpu_weight.dtype == torch.float16:
                cpu_weight = cpu_weight.to(torch.float32)
            cpu_output, cpu_grad = self.cpu_op_exec(cpu_weight, indices)
            npu_output, npu_grad = self.npu_op_exec(npu_weight, indices.npu())
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_embedding_padding_idx(self, device="npu"):
        cpu_weight, npu_weight = create_common_tensor([np.float32, 0, [10, 4]], -1, 1)
        indices = torch.tensor([[0, 2, 0, 5], [4, 3, 2, 9]])
        cpu_output, cpu_grad = self.cpu_op_exec(cpu_weight, indices, padding_idx=0)
        npu_output, npu_grad = self.npu_op_exec(npu_weight, indices.npu(), padding_idx=0)
        self.assertRtolEqual(cpu_output, npu_output)
        self.assertRtolEqual(cpu_grad, npu_grad)

    def test_embedding_module_int32_indices(self, device="npu"):
        model = torch.nn.Embedding(20, 8)
        npu_model = copy.deepcopy(model).npu()
        indices = torch.from_numpy(np.random.randint(0, 20, (3, 7)).astype(np.int32))
        self.assertRtolEqual(model(indices.long()).detach().numpy(), npu_model(indices.npu()).detach().cpu().numpy())


if __name__ == "__main__":
    run_tests()
