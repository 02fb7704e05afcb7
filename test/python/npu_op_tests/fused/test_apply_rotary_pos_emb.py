import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUApplyRotaryPosEmb(TestCase):
    def rotate(self, x, rotary_mode):
        if rotary_mode == "interleave":
            out = np.empty_like(x)
            out[..., 0::2] = -x[..., 1::2]
            out[..., 1::2] = x[..., 0::2]
            return out
        parts = np.split(x, 4 if rotary_mode == "quarter" else 2, axis=-1)
        rotated = []
        for first, second in zip(parts[0::2], parts[1::2]):
            rotated += [-second, first]
        return np.concatenate(rotated, axis=-1)

    def supported_op_exec(self, query, key, cos, sin, rotary_mode="half"):
        cos32, sin32 = cos.astype(np.float32), sin.astype(np.float32)
        out = []
        for x in (query, key):
            x32 = x.astype(np.float32)
            out.append((x32 * cos32 + self.rotate(x32, rotary_mode) * sin32).astype(x.dtype))
        return out

    def custom_op_exec(self, query, key, cos, sin, layout="BSH", rotary_mode="half"):
        q, k = query.npu(), key.npu()
        torch_npu.npu_apply_rotary_pos_emb(q, k, cos.npu(), sin.npu(), layout, rotary_mode)
        return q.cpu().numpy(), k.cpu().numpy()

    def test_apply_rotary_pos_emb(self):
        for dtype in (np.float32, np.float16):
            query = np.random.uniform(-2, 2, [4, 16, 8, 64]).astype(dtype)
            key = np.random.uniform(-2, 2, [4, 16, 2, 64]).astype(dtype)
            cos = np.random.uniform(-1, 1, [4, 16, 1, 64]).astype(dtype)
            sin = np.random.uniform(-1, 1, [4, 16, 1, 64]).astype(dtype)
            want = self.supported_op_exec(query, key, cos, sin)
            got = self.custom_op_exec(*(torch.from_numpy(t) for t in (query, key, cos, sin)))
            for w, g in zip(want, got):
                self.assertRtolEqual(w, g)

    def test_apply_rotary_pos_emb_modes_and_layouts(self):
        for rotary_mode in ("half", "interleave", "quarter"):
            for layout, q_shape, k_shape, table in (("BSND", [2, 8, 4, 32], [2, 8, 4, 32], [1, 8, 1, 32]),
                                                    ("SBND", [8, 2, 4, 32], [8, 2, 1, 32], [8, 1, 1, 32]),
                                                    ("BNSD", [2, 4, 8, 32], [2, 2, 8, 32], [1, 1, 8, 32])):
                query, key = np.random.randn(*q_shape).astype(np.float32), np.random.randn(*k_shape).astype(np.float32)
                cos, sin = np.cos(np.random.randn(*table)).astype(np.float32), np.sin(
                    np.random.randn(*table)).astype(np.float32)
                want = self.supported_op_exec(query, key, cos, sin, rotary_mode)
                got = self.custom_op_exec(*(torch.from_numpy(t) for t in (query, key, cos, sin)), layout, rotary_mode)
                for w, g in zip(want, got):
                    self.assertRtolEqual(w, g)

    def test_apply_rotary_pos_emb_in_place_and_inference(self):
        query, key = torch.randn(1, 4, 2, 16).npu(), torch.randn(1, 4, 2, 16).npu()
        cos, sin = torch.randn(1, 4, 1, 16).npu(), torch.randn(1, 4, 1, 16).npu()
        q_out, k_out = torch_npu.npu_apply_rotary_pos_emb(query, key, cos, sin)
        self.assertEqual(q_out.data_ptr(), query.data_ptr())
        self.assertEqual(k_out.data_ptr(), key.data_ptr())
        leaf = torch.randn(1, 4, 2, 16).npu().requires_grad_()
        with torch.no_grad():
            torch_npu.npu_apply_rotary_pos_emb(leaf, key, cos, sin)  # inference: no graph, no error
        q = leaf * 1
        torch_npu.npu_apply_rotary_pos_emb(q, key, cos, sin)
        with self.assertRaisesRegex(RuntimeError, "npu_apply_rotary_pos_emb.*not implemented"):
            q.sum().backward()

    def test_apply_rotary_pos_emb_errors(self):
        query, table = torch.randn(1, 4, 2, 16).npu(), torch.randn(1, 4, 1, 16).npu()
        with self.assertRaisesRegex(RuntimeError, "layout must be one of"):
            torch_npu.npu_apply_rotary_pos_emb(query, query.clone(), table, table, "NSD")
        with self.assertRaisesRegex(RuntimeError, "must have one dtype"):
            torch_npu.npu_apply_rotary_pos_emb(query, query.half(), table, table)


if __name__ == "__main__":
    run_tests()
