import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUMoeGatingTopKSoftmax(TestCase):
    def supported_op_exec(self, x, finished, k):
        """softmax over the experts, the k largest with their experts, and row_idx[r][j] = j * rows + r."""
        xf = x.astype(np.float32)
        p = np.exp(xf - xf.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        idx = np.argsort(-p, axis=-1, kind="stable")[..., :k]
        y = np.take_along_axis(p, idx, -1).astype(x.dtype)
        rows = int(np.prod(x.shape[:-1]))
        row_idx = (np.arange(k)[None, :] * rows + np.arange(rows)[:, None]).reshape(idx.shape)
        if finished is not None:
            idx = np.where(finished[..., None], x.shape[-1], idx)
        return y, idx.astype(np.int32), row_idx.astype(np.int32)

    def custom_op_exec(self, x, finished, k):
        y, idx, row_idx = torch_npu.npu_moe_gating_top_k_softmax(x, finished, k=k)
        return y.cpu().numpy(), idx.cpu().numpy(), row_idx.cpu().numpy()

    def test_moe_gating_top_k_softmax(self):
        for dtype in (np.float32, np.float16):
            for shape, k in (([16, 8], 2), ([2, 5, 6], 3)):
                x = np.random.uniform(-3, 3, shape).astype(dtype)
                finished = np.random.uniform(0, 1, shape[:-1]) < 0.3
                for fin in (None, finished):
                    want = self.supported_op_exec(x, fin, k)
                    got = self.custom_op_exec(torch.from_numpy(x).npu(),
                                              None if fin is None else torch.from_numpy(fin).npu(), k)
                    self.assertRtolEqual(want[0], got[0])
                    self.assertEqual(want[1], got[1])
                    self.assertEqual(want[2], got[2])

    def test_moe_gating_top_k_softmax_backward(self):
        x = torch.randn(10, 8, requires_grad=True)
        weights = torch.rand(10, 2)
        (x.softmax(-1).topk(2).values * weights).sum().backward()
        xn = x.detach().npu().requires_grad_()
        (torch_npu.npu_moe_gating_top_k_softmax(xn, None, 2)[0] * weights.npu()).sum().backward()
        self.assertRtolEqual(x.grad.numpy(), xn.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
