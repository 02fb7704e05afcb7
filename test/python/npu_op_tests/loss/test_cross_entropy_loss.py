import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestCrossEntropyLoss(TestCase):
    def op_exec(self, input1, target, reduction, weight=None):
        input1.requires_grad = True
        loss = torch.nn.CrossEntropyLoss(weight=weight, reduction=reduction)
        output = loss(input1, target)
        output.backward(torch.ones_like(output))
        return output.detach().cpu().numpy(), input1.grad.cpu().numpy()

    def test_cross_entropy_loss_shape_format(self, device="npu"):
        shape_format = [
            [[np.float32, 0, [8, 10]], "mean"],
            [[np.float32, 0, [8, 10]], "sum"],
            [[np.float32, 0, [8, 10]], "none"],
            [[np.float32, 29, [16, 32]], "mean"],
            [[np.float16, 0, [8, 10]], "mean"],
            [[np.float16, 0, [8, 10]], "none"],
        ]
        for item in shape_format:
            cpu_input, npu_input = create_common_tensor(item[0], -5, 5)
            target = torch.from_numpy(np.random.randint(0, item[0][2][1], item[0][2][0]).astype(np.int64))
            if cpu_input.dtype == torch.float16:
                cpu_input = cpu_input.to(torch.float32)
            cpu_output, cpu_grad = self.op_exec(cpu_input, target, item[1])
            npu_output, npu_grad = self.op_exec(npu_input, target.npu(), item[1])
            self.assertRtolEqual(cpu_output.astype(npu_output.dtype), npu_output)
            self.assertRtolEqual(cpu_grad.astype(npu_grad.dtype), npu_grad)

    def test_cross_entropy_loss_weight_ignore_index(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [6, 5]], -5, 5)
        weight = torch.rand(5)
        target = torch.tensor([0, 4, 2, -100, 1, 3])
        cpu_output, cpu_grad = self.op_exec(cpu_input, target, "mean", weight)
        npu_output, npu_grad = self.op_exec(npu_input, target.npu(), "mean", weight.npu())
        self.assertRtolEqual(cpu_output, npu_output)
        self.assertRtolEqual(cpu_grad, npu_grad)

    def test_nll_loss_4d(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [2, 5, 3, 3]], -5, 5)
        target = torch.from_numpy(np.random.randint(0, 5, (2, 3, 3)).astype(np.int64))
        cpu_output = torch.nn.functional.nll_loss(torch.log_softmax(cpu_input, 1), target).numpy()
        npu_output = torch.nn.functional.nll_loss(torch.log_softmax(npu_input, 1), target.npu()).cpu().numpy()
        self.assertRtolEqual(cpu_output, npu_output)


if __name__ == "__main__":
    run_tests()
