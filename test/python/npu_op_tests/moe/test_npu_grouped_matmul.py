import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUGroupedMatmul(TestCase):
    def supported_op_exec(self, x, weight, bias, group_list=None):
        if group_list is not None:
            starts = [0] + list(group_list[:-1])
            x = [x[0][s:e] for s, e in zip(starts, group_list)]
        return [np.matmul(a.astype(np.float32), w.astype(np.float32)) + b.astype(np.float32)
                for a, w, b in zip(x, weight, bias)]

    def custom_op_exec(self, x, weight, bias, group_list, split_item):
        return [t.cpu().numpy() for t in torch_npu.npu_grouped_matmul(
            x, weight, bias=bias, scale=[], offset=[], antiquant_scale=[], antiquant_offset=[],
            group_list=group_list, split_item=split_item)]

    def test_npu_grouped_matmul_separate_tensors(self):
        # the 1.11 line's documented call: three groups of different sizes, split_item 0
        x = [np.random.uniform(-1, 1, s).astype(np.float16) for s in ([256, 256], [1024, 256], [512, 1024])]
        weight = [np.random.uniform(-1, 1, s).astype(np.float16) for s in ([256, 256], [256, 1024], [1024, 128])]
        bias = [np.random.uniform(-1, 1, [s]).astype(np.float16) for s in (256, 1024, 128)]
        want = self.supported_op_exec(x, weight, bias)
        got = self.custom_op_exec(*([torch.from_numpy(t).npu() for t in lst] for lst in (x, weight, bias)), None, 0)
        for w, g in zip(want, got):
            self.assertRtolEqual(w.astype(np.float16), g, prec=2e-2)  # fp16 products over k = 1024

    def test_npu_grouped_matmul_split_by_group_list(self):
        x = np.random.uniform(-1, 1, [60, 32]).astype(np.float32)
        weight = [np.random.uniform(-1, 1, [32, 16]).astype(np.float32) for _ in range(3)]
        bias = [np.random.uniform(-1, 1, [16]).astype(np.float32) for _ in range(3)]
        group_list = [20, 20, 60]
        want = np.concatenate(self.supported_op_exec([x], weight, bias, group_list))
        got = self.custom_op_exec([torch.from_numpy(x).npu()], [torch.from_numpy(w).npu() for w in weight],
                                  [torch.from_numpy(b).npu() for b in bias], group_list, 3)
        self.assertEqual(len(got), 1)
        self.assertRtolEqual(want, got[0], prec=1e-3)

    def test_npu_grouped_matmul_backward(self):
        x = torch.randn(12, 8, requires_grad=True)
        weight = [torch.randn(8, 4, requires_grad=True) for _ in range(3)]
        group_list = [5, 9, 12]
        out = torch.cat([x[s:e] @ w for s, e, w in zip([0, 5, 9], group_list, weight)])
        grad = torch.randn(out.shape)
        out.backward(grad)
        xn = x.detach().npu().requires_grad_()
        wn = [w.detach().npu().requires_grad_() for w in weight]
        torch_npu.npu_grouped_matmul([xn], wn, group_list=group_list, split_item=2)[0].backward(grad.npu())
        self.assertRtolEqual(x.grad.numpy(), xn.grad.cpu().numpy(), prec=1e-3)
        for w, n in zip(weight, wn):
            self.assertRtolEqual(w.grad.numpy(), n.grad.cpu().numpy(), prec=1e-3)


if __name__ == "__main__":
    run_tests()
