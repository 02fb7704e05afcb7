import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUMoeFinalizeRouting(TestCase):
    def supported_op_exec(self, expanded_permuted_rows, skip1, skip2, bias, scales, expanded_src_to_dst_row,
                          expert_for_source_row):
        num_rows, k = scales.shape
        out = skip1.astype(np.float32) + skip2.astype(np.float32)
        for i in range(num_rows):
            for j in range(k):
                row = expanded_permuted_rows[expanded_src_to_dst_row[j * num_rows + i]].astype(np.float32)
                out[i] += scales[i, j] * (row + bias[expert_for_source_row[i, j]])
        return out.astype(expanded_permuted_rows.dtype)

    def custom_op_exec(self, *args):
        return torch_npu.npu_moe_finalize_routing(*args).cpu().numpy()

    def test_moe_finalize_routing(self):
        expert_num, token_len, top_k, num_rows = 16, 10, 4, 50
        for dtype in (np.float32, np.float16):
            rows = np.random.uniform(-1, 1, [num_rows * top_k, token_len]).astype(dtype)
            skip1 = np.random.uniform(-1, 1, [num_rows, token_len]).astype(dtype)
            skip2 = np.random.uniform(-1, 1, [num_rows, token_len]).astype(dtype)
            bias = np.random.uniform(-1, 1, [expert_num, token_len]).astype(dtype)
            scales = np.random.uniform(0, 1, [num_rows, top_k]).astype(dtype)
            experts = np.random.randint(0, expert_num, [num_rows, top_k]).astype(np.int32)
            dst = np.random.permutation(num_rows * top_k).astype(np.int32)
            want = self.supported_op_exec(rows, skip1, skip2, bias, scales, dst, experts)
            operands = (rows, skip1, skip2, bias, scales, dst, experts)
            got = self.custom_op_exec(*(torch.from_numpy(a).npu() for a in operands))
            self.assertRtolEqual(want, got)

    def test_moe_finalize_routing_backward(self):
        num_rows, top_k, h = 5, 2, 3
        rows = torch.randn(num_rows * top_k, h, requires_grad=True)
        scales = torch.rand(num_rows, top_k, requires_grad=True)
        dst = torch.randperm(num_rows * top_k)
        out = sum(scales[:, j:j + 1] * rows[dst[j * num_rows:(j + 1) * num_rows]] for j in range(top_k))
        grad = torch.randn(num_rows, h)
        out.backward(grad)
        rn, sn = (t.detach().npu().requires_grad_() for t in (rows, scales))
        experts = torch.zeros(num_rows, top_k, dtype=torch.int32).npu()
        torch_npu.npu_moe_finalize_routing(rn, None, None, None, sn, dst.int().npu(), experts).backward(grad.npu())
        self.assertRtolEqual(rows.grad.numpy(), rn.grad.cpu().numpy())
        self.assertRtolEqual(scales.grad.numpy(), sn.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
