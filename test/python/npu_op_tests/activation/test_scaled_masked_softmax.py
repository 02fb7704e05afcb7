import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestScaledMaskedSoftmax(TestCase):
    def cpu_op_exec(self, x, mask, scale, fixed_triu_mask):
        """torch_npu's reference: softmax((x * scale).masked_fill(mask, -10000)) in float32, in x's dtype."""
        if fixed_triu_mask:
            mask = torch.triu(torch.ones(mask.shape), diagonal=1).bool()
        y = (x.float() * scale).masked_fill(mask, -10000)
        return torch.softmax(y, dim=-1).to(x.dtype)

    def cpu_backward(self, y_grad, y, mask, scale, fixed_triu_mask):
        if fixed_triu_mask:
            mask = torch.triu(torch.ones(mask.shape), diagonal=1).bool()
        g, yf = y_grad.float(), y.float()
        x_grad = (g - (g * yf).sum(-1, keepdim=True)) * yf * scale
        return x_grad.masked_fill(mask, 0).to(y_grad.dtype)

    def test_npu_scaled_masked_softmax(self):
        for dtype, tol in ((np.float32, 1e-4), (np.float16, 1e-3)):
            for fixed_triu_mask in (False, True):
                x = torch.from_numpy(np.random.uniform(-5, 5, [4, 4, 32, 64]).astype(dtype))
                mask = torch.from_numpy(np.random.rand(4, 1, 32, 64) < 0.2)
                y = torch_npu.npu_scaled_masked_softmax(x.npu(), mask.npu(), 0.5, fixed_triu_mask)
                self.assertRtolEqual(self.cpu_op_exec(x, mask, 0.5, fixed_triu_mask).numpy(), y.cpu().numpy(),
                                     prec=tol)

    def test_npu_scaled_masked_softmax_backward(self):
        x = torch.randn(2, 2, 32, 32)
        mask = torch.rand(2, 2, 32, 32) < 0.3
        y_grad = torch.randn(2, 2, 32, 32)
        for fixed_triu_mask in (False, True):
            x_npu = x.npu().requires_grad_()
            y = torch_npu.npu_scaled_masked_softmax(x_npu, mask.npu(), 2.0, fixed_triu_mask)
            y.backward(y_grad.npu())
            want = self.cpu_backward(y_grad, y.detach().cpu(), mask, 2.0, fixed_triu_mask)
            self.assertRtolEqual(want.numpy(), x_npu.grad.cpu().numpy())
            direct = torch_npu.npu_scaled_masked_softmax_backward(y_grad.npu(), y.detach(), mask.npu(), 2.0,
                                                                  fixed_triu_mask)
            self.assertRtolEqual(want.numpy(), direct.cpu().numpy())


if __name__ == "__main__":
    run_tests()
