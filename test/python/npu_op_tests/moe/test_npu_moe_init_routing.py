import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUMoeInitRouting(TestCase):
    def supported_op_exec(self, x, row_idx, expert_idx, active_num):
        num_rows, k = expert_idx.shape
        order = np.argsort(expert_idx.reshape(-1), kind="stable")
        expanded_expert_idx = expert_idx.reshape(-1)[order]
        src = row_idx.reshape(-1)[order]
        expanded_row_idx = np.zeros(src.shape, dtype=np.int32)
        expanded_row_idx[src] = np.arange(src.size)
        expanded_x = x[src[:min(num_rows, active_num) * k] % num_rows]
        return expanded_x, expanded_row_idx, expanded_expert_idx.astype(np.int32)

    def custom_op_exec(self, x, row_idx, expert_idx, active_num):
        outs = torch_npu.npu_moe_init_routing(x, row_idx, expert_idx, active_num)
        return [t.cpu().numpy() for t in outs]

    def test_moe_init_routing(self):
        for dtype in (np.float32, np.float16):
            for num_rows, h, k, experts, active_num in ((8, 16, 2, 4, 8), (13, 7, 3, 5, 6), (3, 4, 1, 2, 3)):
                x = np.random.uniform(-1, 1, [num_rows, h]).astype(dtype)
                expert_idx = np.random.randint(0, experts, [num_rows, k]).astype(np.int32)
                row_idx = (np.arange(k)[None, :] * num_rows + np.arange(num_rows)[:, None]).astype(np.int32)
                want = self.supported_op_exec(x, row_idx, expert_idx, active_num)
                got = self.custom_op_exec(torch.from_numpy(x).npu(), torch.from_numpy(row_idx).npu(),
                                          torch.from_numpy(expert_idx).npu(), active_num)
                self.assertRtolEqual(want[0], got[0])
                self.assertEqual(want[1], got[1])
                self.assertEqual(want[2], got[2])

    def test_moe_init_routing_backward(self):
        x = torch.randn(6, 4, requires_grad=True)
        expert_idx = torch.tensor([[0, 2], [1, 0], [2, 1], [0, 1], [2, 0], [1, 2]], dtype=torch.int32)
        row_idx = (torch.arange(2)[None, :] * 6 + torch.arange(6)[:, None]).int()
        xn = x.detach().npu().requires_grad_()
        expanded, _, _ = torch_npu.npu_moe_init_routing(xn, row_idx.npu(), expert_idx.npu(), 6)
        grad = torch.randn(expanded.shape)
        expanded.backward(grad.npu())
        # every token appears k times in expanded_x: its gradient is the sum of its rows'
        order = torch.from_numpy(np.argsort(expert_idx.reshape(-1).numpy(), kind="stable"))
        token = row_idx.reshape(-1)[order].long() % 6
        want = torch.zeros(6, 4).index_add_(0, token, grad)
        self.assertRtolEqual(want.numpy(), xn.grad.cpu().numpy())


if __name__ == "__main__":
    run_tests()
