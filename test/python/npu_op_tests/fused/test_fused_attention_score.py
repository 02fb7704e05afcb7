import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestFusedAttentionScore(TestCase):
    def supported_op_exec(self, q, k, v, mask, scale, keep=None):
        attention_scores = torch.matmul(q, k.transpose(-1, -2))
        attn_probs = torch.nn.functional.softmax(mask + attention_scores * scale, dim=-1)
        if keep is not None:
            attn_probs = attn_probs * keep[0] / keep[1]
        context_layer = torch.matmul(attn_probs, v).permute(0, 2, 1, 3).contiguous()
        return context_layer.view(q.shape[0] * q.shape[2], q.shape[1] * q.shape[3])

    def make_inputs(self, shape=(4, 4, 64, 32)):
        q, k, v = (torch.rand(*shape).uniform_(-3, 3).half() for _ in range(3))
        mask = torch.ones(shape[2]) * -10000.
        mask[:6] = -0.
        mask = mask.expand(shape[0], 1, shape[2], shape[2]).half()
        return q, k, v, mask

    def test_npu_fused_attention_score_fwd(self):
        q, k, v, mask = self.make_inputs()
        scale = 0.125
        attention_score, softmax_output, drop_mask = torch_npu.npu_fused_attention_score_fwd(
            q.npu(), k.npu(), v.npu(), mask.npu(), scale, 1)
        want = self.supported_op_exec(q.float(), k.float(), v.float(), mask.float(), scale)
        self.assertRtolEqual(want.half().numpy(), attention_score.cpu().numpy(), prec16=0.006)
        probs = torch.nn.functional.softmax(mask.float() + torch.matmul(q.float(), k.float().transpose(-1, -2)) * scale,
                                            dim=-1)
        self.assertRtolEqual(probs.half().numpy(), softmax_output.cpu().numpy())
        # keep_prob 1 keeps every element: the byte mask is all ones
        self.assertRtolEqual(np.ones(4 * 4 * 64 * 64, dtype=np.uint8), drop_mask.cpu().numpy())

    def test_npu_fused_attention_score_grad(self):
        q, k, v, mask = self.make_inputs((2, 2, 32, 16))
        q_npu, k_npu, v_npu = (t.npu().requires_grad_() for t in (q, k, v))
        out = torch_npu.npu_fused_attention_score(q_npu, k_npu, v_npu, mask.npu(), 0.25, 1.0)
        q_cpu, k_cpu, v_cpu = (t.float().requires_grad_() for t in (q, k, v))
        want = self.supported_op_exec(q_cpu, k_cpu, v_cpu, mask.float(), 0.25)
        grad = torch.randn(want.shape).half()
        out.backward(grad.npu())
        want.backward(grad.float())
        for npu_t, cpu_t in ((q_npu, q_cpu), (k_npu, k_cpu), (v_npu, v_cpu)):
            self.assertRtolEqual(cpu_t.grad.half().numpy(), npu_t.grad.cpu().numpy(), prec16=0.01)

    def test_npu_fused_attention_score_dropout(self):
        q, k, v, mask = self.make_inputs((2, 2, 32, 16))
        keep_prob = 0.8
        out, _, drop_mask = torch_npu.npu_fused_attention_score_fwd(q.npu(), k.npu(), v.npu(), mask.npu(), 0.25,
                                                                    keep_prob)
        kept = drop_mask.cpu().view(2, 2, 32, 32).float()
        self.assertTrue(abs(kept.mean().item() - keep_prob) < 0.06)
        want = self.supported_op_exec(q.float(), k.float(), v.float(), mask.float(), 0.25, (kept, keep_prob))
        self.assertRtolEqual(want.half().numpy(), out.cpu().numpy(), prec16=0.006)

    def test_npu_fused_attention_score_fp16_only(self):
        q, k, v, mask = self.make_inputs((1, 2, 16, 16))
        with self.assertRaisesRegex(RuntimeError, "must be float16"):
            torch_npu.npu_fused_attention_score(q.float().npu(), k.npu(), v.npu(), mask.npu(), 1.0, 1.0)


if __name__ == "__main__":
    run_tests()
