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

    def test_npu_grouped_matmul_int8(self):
        # per-channel quantisation: int8 x and weights, int32 bias, int64 scale (with offset) -> int8 y
        x = np.random.randint(-128, 128, [24, 64]).astype(np.int8)
        weight = [np.random.randint(-128, 128, [64, 16]).astype(np.int8) for _ in range(2)]
        bias = [np.random.randint(-500, 500, [16]).astype(np.int32) for _ in range(2)]
        scale = [(np.random.randint(1, 16, [16]) / 65536).astype(np.float32) for _ in range(2)]
        offset = [np.random.randint(-4, 4, [16]).astype(np.float32) for _ in range(2)]
        group_list = [10, 24]
        acc = self.supported_op_exec([x.astype(np.float64)], [w.astype(np.float64) for w in weight],
                                     [b.astype(np.float64) for b in bias], group_list)
        want = np.concatenate([np.clip(np.rint(a * s + o), -128, 127) for a, s, o in zip(acc, scale, offset)])
        scale_npu = [torch_npu.npu_trans_quant_param(torch.from_numpy(s).npu(), torch.from_numpy(o).npu())
                     for s, o in zip(scale, offset)]
        got = torch_npu.npu_grouped_matmul([torch.from_numpy(x).npu()], [torch.from_numpy(w).npu() for w in weight],
                                           bias=[torch.from_numpy(b).npu() for b in bias], scale=scale_npu,
                                           group_list=group_list, split_item=2, output_dtype=torch.int8)[0]
        self.assertEqual(got.dtype, torch.int8)
        self.assertEqual(want.astype(np.int64), got.cpu().numpy().astype(np.int64))

    def test_npu_grouped_matmul_antiquant(self):
        # weight-only quantisation: fp16 x, int8 weights dequantised by antiquant_scale / antiquant_offset
        x = np.random.uniform(-1, 1, [24, 64]).astype(np.float16)
        weight = [np.random.randint(-128, 128, [64, 16]).astype(np.int8) for _ in range(2)]
        scale = [np.random.uniform(0.001, 0.01, [16]).astype(np.float16) for _ in range(2)]
        offset = [np.random.randint(-3, 3, [16]).astype(np.float16) for _ in range(2)]
        group_list = [10, 24]
        dequant = [((w.astype(np.float32) + o) * s).astype(np.float16) for w, s, o in zip(weight, scale, offset)]
        want = np.concatenate(self.supported_op_exec([x], dequant, [np.zeros(16, np.float32)] * 2, group_list))
        got = torch_npu.npu_grouped_matmul([torch.from_numpy(x).npu()], [torch.from_numpy(w).npu() for w in weight],
                                           antiquant_scale=[torch.from_numpy(s).npu() for s in scale],
                                           antiquant_offset=[torch.from_numpy(o).npu() for o in offset],
                                           group_list=group_list, split_item=2)[0]
        self.assertRtolEqual(want.astype(np.float16), got.cpu().numpy())

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
