import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuGeGlu(TestCase):
    def cpu_op_exec(self, x, dim=-1, approximate=1, activate_left=False):
        """(A * gelu(B), gelu(B)) of x's halves along dim (activate_left: gelu(A) * B), as torch_npu's
        reference computes it: gelu in float32, rounded to x's dtype, then the product in x's dtype."""
        left, right = x.chunk(2, dim=dim)
        act, other = (left, right) if activate_left else (right, left)
        gelu = torch.nn.functional.gelu(act.float(), approximate="tanh" if approximate else "none").to(x.dtype)
        return (other.float() * gelu.float()).to(x.dtype), gelu

    def test_npu_geglu(self):
        for dtype, tol in ((np.float32, 1e-4), (np.float16, 1e-3)):
            for approximate in (0, 1):
                for activate_left in (False, True):
                    x = torch.from_numpy(np.random.uniform(-2, 2, [2, 10, 64]).astype(dtype))
                    y, gelu = torch_npu.npu_geglu(x.npu(), -1, approximate, activate_left)
                    want_y, want_gelu = self.cpu_op_exec(x, -1, approximate, activate_left)
                    self.assertRtolEqual(want_gelu.numpy(), gelu.cpu().numpy(), prec=tol)
                    self.assertRtolEqual(want_y.numpy(), y.cpu().numpy(), prec=tol)

    def test_npu_geglu_default_arguments_and_dim(self):
        x = torch.randn(6, 8, 3)
        y, gelu = torch_npu.npu_geglu(x.npu(), dim=1)
        self.assertEqual(list(y.shape), [6, 4, 3])
        self.assertRtolEqual(self.cpu_op_exec(x, 1)[0].numpy(), y.cpu().numpy())

    def test_npu_geglu_backward(self):
        x = torch.randn(4, 3, 32)
        grad = torch.randn(4, 3, 16)
        for approximate in (0, 1):
            x_cpu = x.clone().requires_grad_()
            self.cpu_op_exec(x_cpu, -1, approximate)[0].backward(grad)
            x_npu = x.npu().requires_grad_()
            y, gelu = torch_npu.npu_geglu(x_npu, -1, approximate)
            y.backward(grad.npu())
            self.assertRtolEqual(x_cpu.grad.numpy(), x_npu.grad.cpu().numpy())
            direct = torch_npu.npu_geglu_grad(grad.npu(), x.npu(), gelu.detach(), -1, approximate)
            self.assertRtolEqual(x_cpu.grad.numpy(), direct.cpu().numpy())


if __name__ == "__main__":
    run_tests()
