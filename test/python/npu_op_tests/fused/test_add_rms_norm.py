import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUAddRmsNorm(TestCase):
    def supported_op_exec(self, x1, x2, gamma, epsilon=1e-6):
        """x = x1 + x2 in the inputs' dtype, then RMS-normalised in float32."""
        x = x1 + x2
        xf = x.astype(np.float32)
        rstd = 1 / np.sqrt(np.mean(np.power(xf, 2), axis=-1, keepdims=True) + epsilon)
        return (xf * rstd * gamma.astype(np.float32)).astype(x1.dtype), rstd, x

    def custom_op_exec(self, x1, x2, gamma, epsilon=1e-6):
        y, rstd, x = torch_npu.npu_add_rms_norm(x1, x2, gamma, epsilon)
        return y.cpu().numpy(), rstd.cpu().numpy(), x.cpu().numpy()

    def test_add_rms_norm(self):
        for dtype in (np.float32, np.float16):
            x1 = np.random.uniform(-2, 2, [16, 256]).astype(dtype)
            x2 = np.random.uniform(-2, 2, [16, 256]).astype(dtype)
            gamma = np.random.uniform(0.5, 1.5, [256]).astype(dtype)
            want = self.supported_op_exec(x1, x2, gamma)
            got = self.custom_op_exec(torch.from_numpy(x1).npu(), torch.from_numpy(x2).npu(),
                                      torch.from_numpy(gamma).npu())
            for w, g in zip(want, got):
                self.assertRtolEqual(w, g)

    def test_add_rms_norm_backward(self):
        x1 = torch.randn(4, 64, requires_grad=True)
        x2 = torch.randn(4, 64, requires_grad=True)
        gamma = torch.rand(64, requires_grad=True)
        x = x1 + x2
        ((x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * gamma).sum() + x.sum()).backward()
        n1, n2, ng = (t.detach().npu().requires_grad_() for t in (x1, x2, gamma))
        y, _, xs = torch_npu.npu_add_rms_norm(n1, n2, ng)
        (y.sum() + xs.sum()).backward()
        for cpu, npu in ((x1, n1), (x2, n2), (gamma, ng)):
            self.assertRtolEqual(cpu.grad.numpy(), npu.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
