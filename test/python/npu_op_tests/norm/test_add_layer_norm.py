import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUAddLayerNorm(TestCase):
    def supported_op_exec(self, x1, x2, gamma, beta, epsilon=1e-5):
        """x = x1 + x2 in the inputs' dtype, layer-normalised over gamma's dims in float32."""
        x = x1 + x2
        xf = x.astype(np.float32)
        axes = tuple(range(x.ndim - gamma.ndim, x.ndim))
        mean = xf.mean(axis=axes, keepdims=True)
        rstd = 1 / np.sqrt(((xf - mean) ** 2).mean(axis=axes, keepdims=True) + epsilon)
        y = (xf - mean) * rstd * gamma.astype(np.float32) + beta.astype(np.float32)
        return y.astype(x1.dtype), mean, rstd, x

    def custom_op_exec(self, x1, x2, gamma, beta, epsilon=1e-5):
        outs = torch_npu.npu_add_layer_norm(x1, x2, gamma, beta, epsilon, True)
        return [t.cpu().numpy() for t in outs]

    def test_add_layer_norm(self):
        for dtype in (np.float32, np.float16):
            x1 = np.random.uniform(-2, 2, [4, 8, 96]).astype(dtype)
            x2 = np.random.uniform(-2, 2, [4, 8, 96]).astype(dtype)
            gamma = np.random.uniform(0.5, 1.5, [96]).astype(dtype)
            beta = np.random.uniform(-0.5, 0.5, [96]).astype(dtype)
            want = self.supported_op_exec(x1, x2, gamma, beta)
            got = self.custom_op_exec(*(torch.from_numpy(t).npu() for t in (x1, x2, gamma, beta)))
            for w, g in zip(want, got):
                self.assertRtolEqual(w, g)

    def test_add_layer_norm_backward(self):
        x1, x2 = torch.randn(6, 32), torch.randn(6, 32)
        gamma, beta = torch.rand(32) + 0.5, torch.randn(32)
        leaves = [t.clone().requires_grad_() for t in (x1, x2, gamma, beta)]
        torch.nn.functional.layer_norm(leaves[0] + leaves[1], (32,), leaves[2], leaves[3], 1e-5).sum().backward()
        npu = [t.npu().requires_grad_() for t in (x1, x2, gamma, beta)]
        y, mean, rstd, _ = torch_npu.npu_add_layer_norm(*npu)
        y.sum().backward()
        for cpu_leaf, npu_leaf in zip(leaves, npu):
            self.assertRtolEqual(cpu_leaf.grad.numpy(), npu_leaf.grad.cpu().numpy())
        # torch_npu's explicit backward: the same dx twice, dgamma and dbeta in float32.
        dx1, dx2, dgamma, dbeta = torch_npu.npu_add_layer_norm_backward(
            torch.ones(6, 32).npu(), npu[0].detach(), npu[1].detach(), rstd, mean, npu[2].detach())
        self.assertRtolEqual(leaves[0].grad.numpy(), dx1.cpu().numpy())
        self.assertRtolEqual(leaves[1].grad.numpy(), dx2.cpu().numpy())
        self.assertRtolEqual(leaves[2].grad.numpy(), dgamma.cpu().numpy())
        self.assertEqual(dbeta.dtype, torch.float32)


if __name__ == "__main__":
    run_tests()
