import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestSwiGlu(TestCase):
    def cpu_op_exec(self, x, dim=-1):
        """silu(A) * B of x's halves along dim, in float32 (the CPU has no float16 silu)."""
        a, b = x.float().chunk(2, dim=dim)
        return torch.nn.functional.silu(a) * b

    def cpu_grad(self, x, grad, dim=-1):
        x = x.detach().float().requires_grad_()
        self.cpu_op_exec(x, dim).backward(grad.float())
        return x.grad

    def test_npu_swiglu(self):
        for dtype, tol in ((np.float32, 1e-4), (np.float16, 1e-3)):
            for shape, dim in (([2, 32, 6, 6], -1), ([4, 16], 0), ([3, 8, 5], 1), ([2, 6, 4], -2)):
                x = torch.from_numpy(np.random.uniform(-4, 4, shape).astype(dtype))
                out = torch_npu.npu_swiglu(x.npu(), dim=dim)
                self.assertEqual(out.dtype, x.dtype)
                self.assertRtolEqual(self.cpu_op_exec(x, dim).to(x.dtype).numpy(), out.cpu().numpy(), prec=tol)

    def test_npu_swiglu_backward(self):
        for dtype, tol in ((np.float32, 1e-4), (np.float16, 1e-3)):
            x = torch.from_numpy(np.random.uniform(-4, 4, [8, 3, 32]).astype(dtype))
            grad = torch.from_numpy(np.random.uniform(-1, 1, [8, 3, 16]).astype(dtype))
            want = self.cpu_grad(x, grad).to(x.dtype).numpy()
            direct = torch_npu.npu_swiglu_backward(grad.npu(), x.npu(), -1)
            self.assertRtolEqual(want, direct.cpu().numpy(), prec=tol)
            x_npu = x.npu().requires_grad_()
            torch_npu.npu_swiglu(x_npu).backward(grad.npu())
            self.assertRtolEqual(want, x_npu.grad.cpu().numpy(), prec=tol)

    def test_npu_swiglu_errors(self):
        with self.assertRaisesRegex(RuntimeError, "npu_swiglu: dim 1 of the input of shape .* has an odd size"):
            torch_npu.npu_swiglu(torch.randn(2, 5).npu())
        with self.assertRaisesRegex(IndexError, "npu_swiglu: dim 3 is out of range"):
            torch_npu.npu_swiglu(torch.randn(2, 4).npu(), dim=3)


if __name__ == "__main__":
    run_tests()
