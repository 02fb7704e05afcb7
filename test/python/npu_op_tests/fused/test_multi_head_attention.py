import torch
import torch.nn.functional as F
import torch_npu

from torch_npu.testing.common_utils import create_common_tensor
from torch_npu.testing.testcase import TestCase, run_tests

FORMAT_ND = 2
FORMAT_NZ = 29


class TestMultiHeadAttention(TestCase):
    def matmul_transpose(self, tensor1, tensor2):
        return torch.matmul(tensor1, tensor2.transpose(-2, -1))

    def supported_op_exec(self, query, key, value, query_weight, key_weight, value_weight, attn_mask,
                          out_proj_weight, query_bias, key_bias, value_bias, out_proj_bias, batch,
                          attn_head_num, attn_dim_per_head, src_len, tgt_len, dropout_prob):
        embed_dim = query.size()[-1]
        q = torch_npu.npu_linear(query, query_weight, query_bias)
        k = torch_npu.npu_linear(key, key_weight, key_bias)
        v = torch_npu.npu_linear(value, value_weight, value_bias)
        q *= (attn_dim_per_head ** -0.5)
        perm = (0, 2, 1, 3)
        q = torch_npu.npu_confusion_transpose(q, perm, (batch, tgt_len, attn_head_num, attn_dim_per_head), False)
        k = torch_npu.npu_confusion_transpose(k, perm, (batch, src_len, attn_head_num, attn_dim_per_head), False)
        v = torch_npu.npu_confusion_transpose(v, perm, (batch, src_len, attn_head_num, attn_dim_per_head), False)
        attn_weights = self.matmul_transpose(q, k).view(batch, attn_head_num, tgt_len, src_len)
        attn_weights_float = F.softmax(attn_weights + attn_mask, dim=-1, dtype=torch.float32)
        attn_probs, dropout_mask = torch_npu._npu_dropout(attn_weights_float.to(attn_weights.dtype), p=dropout_prob)
        attn_batch2 = torch.matmul(attn_probs, v)
        context = torch_npu.npu_confusion_transpose(
            attn_batch2, perm, (attn_batch2.size()[0] * attn_batch2.size()[2], embed_dim), True)
        attn = torch_npu.npu_linear(context, out_proj_weight, out_proj_bias)
        return attn, dropout_mask, q, attn_weights_float, context

    def make_inputs(self, batch, attn_head_num, attn_dim_per_head, src_len, tgt_len):
        weight_col = attn_head_num * attn_dim_per_head
        shapes = [(batch * tgt_len, weight_col), (batch * src_len, weight_col), (batch * src_len, weight_col)]
        shapes += [(weight_col, weight_col)] * 3
        tensors = [create_common_tensor(["float16", FORMAT_NZ, s], -1, 1)[1] for s in shapes]
        tensors.append(create_common_tensor(["float16", FORMAT_ND, (batch, attn_head_num, tgt_len, src_len)], -1,
                                            1)[1])
        tensors.append(create_common_tensor(["float16", FORMAT_NZ, (weight_col, weight_col)], -0.1, 0.1)[1])
        tensors += [create_common_tensor(["float16", FORMAT_ND, (weight_col,)], -1, 1)[1] for _ in range(4)]
        for i in (3, 4, 5):
            tensors[i] = tensors[i] * 0.1
        return tensors

    def test_npu_multi_head_attention(self):
        batch, heads, dim, src_len, tgt_len, dropout_prob = 2, 16, 16, 32, 32, 0.0
        inputs = self.make_inputs(batch, heads, dim, src_len, tgt_len)
        cpu_result, cpu_dropout_mask, cpu_query_res, cpu_attn_scores, cpu_context = self.supported_op_exec(
            *inputs, batch, heads, dim, src_len, tgt_len, dropout_prob)
        npu_result, npu_dropout_mask, npu_query_res, _, _, npu_attn_scores, _, npu_context = \
            torch_npu.npu_multi_head_attention(*inputs, cpu_dropout_mask, heads, dim, src_len, tgt_len,
                                               dropout_prob, True)
        self.assertRtolEqual(cpu_result.cpu().numpy(), npu_result.cpu().numpy(), prec16=0.01)
        self.assertRtolEqual(cpu_query_res.cpu().numpy(), npu_query_res.cpu().numpy(), prec16=0.01)
        self.assertRtolEqual(cpu_attn_scores.cpu().numpy(), npu_attn_scores.cpu().numpy(), prec=0.01)
        self.assertRtolEqual(cpu_context.cpu().numpy(), npu_context.cpu().numpy(), prec16=0.01)
        self.assertRtolEqual(cpu_dropout_mask.cpu().numpy(), npu_dropout_mask.cpu().numpy())

    def test_npu_multi_head_attention_backward(self):
        batch, heads, dim, src_len, tgt_len = 1, 16, 16, 16, 32
        inputs = [t.detach().requires_grad_(i != 6) for i, t in
                  enumerate(self.make_inputs(batch, heads, dim, src_len, tgt_len))]
        y = torch_npu.npu_multi_head_attention(*inputs, None, heads, dim, src_len, tgt_len, 0.0, True)[0]
        cpu = [t.detach().cpu().float().requires_grad_(i != 6) for i, t in enumerate(inputs)]
        q = F.linear(cpu[0], cpu[3], cpu[8]) * dim ** -0.5
        k, v = F.linear(cpu[1], cpu[4], cpu[9]), F.linear(cpu[2], cpu[5], cpu[10])
        split = lambda x, n: x.view(batch, n, heads, dim).permute(0, 2, 1, 3)  # noqa: E731
        p = F.softmax(torch.matmul(split(q, tgt_len), split(k, src_len).transpose(-1, -2)) + cpu[6], dim=-1)
        ctx = torch.matmul(p, split(v, src_len)).permute(0, 2, 1, 3).reshape(batch * tgt_len, heads * dim)
        want = F.linear(ctx, cpu[7], cpu[11])
        grad = torch.randn(want.shape).half()
        y.backward(grad.npu())
        want.backward(grad.float())
        self.assertRtolEqual(want.detach().half().numpy(), y.detach().cpu().numpy(), prec16=0.01)
        for i in (0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 11):
            self.assertRtolEqual(cpu[i].grad.half().numpy(), inputs[i].grad.cpu().numpy(), prec16=0.02)

    def test_npu_multi_head_attention_backward_checks_its_inputs(self):
        batch, heads, dim, src_len, tgt_len = 1, 16, 16, 16, 16
        inputs = self.make_inputs(batch, heads, dim, src_len, tgt_len)
        outs = torch_npu.npu_multi_head_attention(*inputs, None, heads, dim, src_len, tgt_len, 0.0, True)
        y, mask, q_res, k_res, v_res, scores, res, context = outs
        q, k, v, wq, wk, wv, _, wo, bq, bk, bv, bo = inputs
        with self.assertRaisesRegex(RuntimeError, "query_res must be"):
            torch_npu.npu_multi_head_attention_backward(q, k, v, wq, wk, wv, wo, bq, bk, bv, bo, q_res[:, :, :8], k_res,
                                                        v_res, scores, res, context, torch.ones_like(y), mask, heads,
                                                        dim, src_len, tgt_len, 0.0, True)


if __name__ == "__main__":
    run_tests()
