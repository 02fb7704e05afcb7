import math

import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestPromptFlashAttention(TestCase):
    def supported_op_exec(self, query, key, value, scale, atten_mask=None):
        """BNSD: softmax(q k^T * scale, masked) v in float32."""
        scores = torch.matmul(query.float(), key.float().transpose(2, 3)) * scale
        if atten_mask is not None:
            scores = scores.masked_fill(atten_mask.bool(), float("-inf"))
        return torch.matmul(torch.softmax(scores, dim=-1), value.float()).to(query.dtype)

    def test_npu_prompt_flash_attention_bnsd(self):
        q = torch.randn(1, 8, 164, 64, dtype=torch.float16)
        k = torch.randn(1, 8, 164, 64, dtype=torch.float16)
        v = torch.randn(1, 8, 164, 64, dtype=torch.float16)
        scale = 1 / math.sqrt(64)
        out = torch_npu.npu_prompt_flash_attention(q.npu(), k.npu(), v.npu(), num_heads=8, input_layout="BNSD",
                                                   scale_value=scale, pre_tokens=65535, next_tokens=65535)
        self.assertRtolEqual(self.supported_op_exec(q, k, v, scale).numpy(), out.cpu().numpy(), prec16=1e-2)

    def test_npu_prompt_flash_attention_causal_bsh(self):
        q = torch.randn(2, 32, 4 * 16, dtype=torch.float16)
        k = torch.randn(2, 32, 2 * 16, dtype=torch.float16)  # grouped-query: 4 query heads, 2 kv heads
        v = torch.randn(2, 32, 2 * 16, dtype=torch.float16)
        mask = torch.triu(torch.ones(32, 32, dtype=torch.bool), diagonal=1)
        out = torch_npu.npu_prompt_flash_attention(q.npu(), k.npu(), v.npu(), atten_mask=mask.npu(), num_heads=4,
                                                   num_key_value_heads=2, input_layout="BSH", scale_value=0.25)
        qb = q.view(2, 32, 4, 16).transpose(1, 2)
        kb = k.view(2, 32, 2, 16).transpose(1, 2).repeat_interleave(2, 1)
        vb = v.view(2, 32, 2, 16).transpose(1, 2).repeat_interleave(2, 1)
        want = self.supported_op_exec(qb, kb, vb, 0.25, mask).transpose(1, 2).reshape(2, 32, 64)
        self.assertRtolEqual(want.numpy(), out.cpu().numpy(), prec16=1e-2)

    def test_npu_prompt_flash_attention_errors(self):
        q = torch.randn(2, 4, 32).npu()
        with self.assertRaisesRegex(RuntimeError, "num_heads 3 does not divide the hidden size 32"):
            torch_npu.npu_prompt_flash_attention(q, q, q, num_heads=3)
        with self.assertRaisesRegex(RuntimeError, "deq_scale1 is not supported"):
            torch_npu.npu_prompt_flash_attention(q, q, q, num_heads=2, deq_scale1=torch.ones(1).npu())


if __name__ == "__main__":
    np.random.seed(0)
    run_tests()
