import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUDeepNorm(TestCase):
    def supported_op_exec(self, x, gx, beta, gamma, alpha=0.3, epsilon=1e-6):
        new_x = alpha * x.astype(np.float32) + gx.astype(np.float32)
        mean = np.mean(new_x, axis=-1, keepdims=True)
        diff = new_x - mean
        rstd = 1 / np.sqrt(np.mean(np.power(diff, 2), axis=-1, keepdims=True) + epsilon)
        y = diff * rstd * gamma.astype(np.float32) + beta.astype(np.float32)
        return mean, rstd, y.astype(x.dtype)

    def custom_op_exec(self, x, gx, beta, gamma):
        mean, rstd, y = torch_npu.npu_deep_norm(x, gx, beta, gamma, float(0.3), 1e-6)
        return mean.cpu().numpy(), rstd.cpu().numpy(), y.cpu().numpy()

    def test_deep_norm(self):
        for dtype in (np.float32, np.float16):
            x = np.random.uniform(0, 10, [64, 256]).astype(dtype)
            gx = np.random.uniform(0, 10, [64, 256]).astype(dtype)
            beta = np.random.uniform(-1, 1, [256]).astype(dtype)
            gamma = np.random.uniform(0.5, 1.5, [256]).astype(dtype)
            want = self.supported_op_exec(x, gx, beta, gamma)
            got = self.custom_op_exec(*(torch.from_numpy(t).npu() for t in (x, gx, beta, gamma)))
            for w, g in zip(want, got):
                self.assertRtolEqual(w, g)

    def test_deep_norm_shapes(self):
        x, gx = torch.randn(2, 3).npu(), torch.randn(2, 3).npu()
        mean, rstd, y = torch_npu.npu_deep_norm(x, gx, torch.randn(3).npu(), torch.randn(3).npu())
        self.assertEqual(y.dtype, x.dtype)
        self.assertEqual(y.shape, x.shape)
        self.assertEqual(rstd.shape, torch.Size([2, 1]))
        self.assertEqual(mean.shape, torch.Size([2, 1]))

    def test_deep_norm_backward(self):
        alpha = 0.3
        x, gx, beta, gamma = torch.randn(8, 64), torch.randn(8, 64), torch.randn(64), torch.rand(64) + 0.5
        dy = torch.randn(8, 64)
        cpu = [t.clone().requires_grad_() for t in (x, gx, beta, gamma)]
        torch.nn.functional.layer_norm(alpha * cpu[0] + cpu[1], (64,), cpu[3], cpu[2], 1e-6).backward(dy)
        npu = [t.npu().requires_grad_() for t in (x, gx, beta, gamma)]
        mean, rstd, y = torch_npu.npu_deep_norm(*npu, alpha, 1e-6)
        y.backward(dy.npu())
        for c, n in zip(cpu, npu):
            self.assertRtolEqual(c.grad.numpy(), n.grad.cpu().numpy())
        dx, dgx, dbeta, dgamma = torch_npu.npu_deep_norm_backward(
            dy.npu(), npu[0].detach(), npu[1].detach(), npu[3].detach(), mean, rstd, float(alpha))
        for c, g in zip(cpu, (dx, dgx, dbeta, dgamma)):
            self.assertRtolEqual(c.grad.numpy(), g.cpu().numpy())


if __name__ == "__main__":
    run_tests()
