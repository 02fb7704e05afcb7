import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestDropout(TestCase):
    def npu_op_exec(self, input1, p, training):
        output = torch.nn.functional.dropout(input1, p=p, training=training)
        return output.to("cpu").numpy()

    def dropout_check(self, item, p):
        _, npu_input = create_common_tensor(item, 1, 2)
        input_np = npu_input.cpu().numpy()
        output = self.npu_op_exec(npu_input, p, True)
        self.assertEqual(output.shape, input_np.shape)
        self.assertEqual(output.dtype, input_np.dtype)
        input_np, output = input_np.astype(np.float32), output.astype(np.float32)
        kept = output != 0
        # Kept elements are scaled by 1 / (1 - p); the rest are zero.
        self.assertRtolEqual(output[kept], input_np[kept] / (1 - p), prec=1.e-3)
        drop_ratio = 1 - kept.mean()
        self.assertLess(abs(drop_ratio - p), 0.1)

    def test_dropout_shape_format(self, device="npu"):
        format_list = [0, 3, 29]
        shape_format = [
            [dtype, i, [4, 8, 16, 16]] for dtype in [np.float16, np.float32] for i in format_list
        ]
        for item in shape_format:
            for p in [0.2, 0.5]:
                self.dropout_check(item, p)

    def test_dropout_eval_and_p0(self, device="npu"):
        cpu_input, npu_input = create_common_tensor([np.float32, 0, [8, 8]], -1, 1)
        self.assertRtolEqual(cpu_input.numpy(), self.npu_op_exec(npu_input, 0.5, False))
        self.assertRtolEqual(cpu_input.numpy(), self.npu_op_exec(npu_input, 0.0, True))
        self.assertRtolEqual(np.zeros((8, 8), np.float32), self.npu_op_exec(npu_input, 1.0, True))

    def test_dropout_backward_uses_mask(self, device="npu"):
        _, npu_input = create_common_tensor([np.float32, 0, [16, 16]], 1, 2)
        npu_input.requires_grad = True
        output = torch.nn.functional.dropout(npu_input, p=0.5, training=True)
        output.sum().backward()
        grad = npu_input.grad.cpu().numpy()
        kept = output.detach().cpu().numpy() != 0
        self.assertRtolEqual(grad, kept.astype(np.float32) * 2.0)


if __name__ == "__main__":
    run_tests()
