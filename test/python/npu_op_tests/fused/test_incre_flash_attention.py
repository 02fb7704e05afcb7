import math

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestIncreFlashAttention(TestCase):
    def supported_op_exec(self, query, past_key, past_value, scale):
        """A decode step in BNSD: softmax(q k^T * scale) v over the whole cache, in float32."""
        weights = torch.matmul(query.float(), past_key.float().transpose(2, 3)) * scale
        weights = torch.nn.functional.softmax(weights, dim=-1, dtype=torch.float32)
        return torch.matmul(weights, past_value.float()).to(query.dtype)

    def custom_op_exec(self, query, key, value, head_dim, layout="BSH"):
        scale = 1 / math.sqrt(head_dim)
        return torch_npu.npu_incre_flash_attention(query, key, value, num_heads=query.shape[1] if layout == "BNSD"
                                                   else query.shape[2] // head_dim, input_layout=layout,
                                                   scale_value=scale)

    def test_npu_incre_flash_attention_bnsd(self):
        q = torch.randn(1, 8, 1, 64, dtype=torch.float16)
        k = torch.randn(1, 8, 256, 64, dtype=torch.float16)
        v = torch.randn(1, 8, 256, 64, dtype=torch.float16)
        want = self.supported_op_exec(q, k, v, 1 / math.sqrt(64))
        got = self.custom_op_exec(q.npu(), k.npu(), v.npu(), 64, "BNSD")
        self.assertRtolEqual(want.numpy(), got.cpu().numpy(), prec16=1e-2)

    def test_npu_incre_flash_attention_bsh_with_lengths(self):
        q = torch.randn(2, 1, 4 * 32, dtype=torch.float16)
        k = torch.randn(2, 40, 4 * 32, dtype=torch.float16)
        v = torch.randn(2, 40, 4 * 32, dtype=torch.float16)
        out = torch_npu.npu_incre_flash_attention(q.npu(), k.npu(), v.npu(), num_heads=4, input_layout="BSH",
                                                  scale_value=1 / math.sqrt(32), actual_seq_lengths=[40, 7])
        bnsd = lambda t: t.view(t.shape[0], t.shape[1], 4, 32).transpose(1, 2)  # noqa: E731
        for b, length in enumerate((40, 7)):
            want = self.supported_op_exec(bnsd(q)[b:b + 1], bnsd(k)[b:b + 1, :, :length],
                                          bnsd(v)[b:b + 1, :, :length], 1 / math.sqrt(32))
            self.assertRtolEqual(want.transpose(1, 2).reshape(1, 1, 128).numpy(), out[b:b + 1].cpu().numpy(),
                                 prec16=1e-2)

    def test_npu_incre_flash_attention_errors(self):
        q = torch.randn(2, 3, 64).npu()
        with self.assertRaisesRegex(RuntimeError, "must have one position"):
            torch_npu.npu_incre_flash_attention(q, q, q, num_heads=2)
        with self.assertRaisesRegex(RuntimeError, "block_table is not supported"):
            torch_npu.npu_incre_flash_attention(q[:, :1], q, q, num_heads=2, block_table=torch.zeros(2, 1).npu())


if __name__ == "__main__":
    np.random.seed(0)
    run_tests()
