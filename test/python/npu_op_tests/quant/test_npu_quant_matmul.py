import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUQuantMatmul(TestCase):
    def supported_op_exec(self, x1, x2, scale, bias, pertoken_scale=None):
        acc = np.matmul(x1.astype(np.int64), x2.astype(np.int64)) + bias
        out = acc.astype(np.float32) * scale
        if pertoken_scale is not None:
            out = out * pertoken_scale[:, None]
        return out

    def test_npu_quant_matmul_fp16_and_bf16(self):
        x1 = np.random.randint(-5, 5, (15, 1, 512)).astype(np.int8)
        x2 = np.random.randint(-5, 5, (15, 512, 128)).astype(np.int8)
        scale = np.random.uniform(1e-3, 2e-3, [128]).astype(np.float32)
        bias = np.random.randint(-5, 5, [128]).astype(np.int32)
        want = self.supported_op_exec(x1, x2, scale, bias)
        for dtype in (torch.float16, torch.bfloat16):
            got = torch_npu.npu_quant_matmul(torch.from_numpy(x1).npu(), torch.from_numpy(x2).npu(),
                                             torch.from_numpy(scale).npu(), bias=torch.from_numpy(bias).npu(),
                                             output_dtype=dtype)
            self.assertEqual(got.dtype, dtype)
            self.assertRtolEqual(want, got.float().cpu().numpy(), prec=1e-2)

    def test_npu_quant_matmul_int8_with_trans_quant_param(self):
        # torch_npu's documented example: int8 output from npu_trans_quant_param's packed scale and offset
        x1 = np.random.randint(-1, 1, (15, 1, 512)).astype(np.int8)
        x2 = np.random.randint(-1, 1, (15, 512, 128)).astype(np.int8)
        scale = np.array([0.25], dtype=np.float32)
        offset = np.array([1.0], dtype=np.float32)
        bias = np.random.randint(-1, 1, [128]).astype(np.int32)
        packed = torch_npu.npu_trans_quant_param(torch.from_numpy(scale).npu(), torch.from_numpy(offset).npu())
        got = torch_npu.npu_quant_matmul(torch.from_numpy(x1).npu(), torch.from_numpy(x2).npu(), packed,
                                         bias=torch.from_numpy(bias).npu())
        want = np.clip(np.rint(self.supported_op_exec(x1, x2, scale, bias) + 1.0), -128, 127)
        self.assertEqual(got.dtype, torch.int8)
        self.assertEqual(want.astype(np.int64), got.cpu().numpy().astype(np.int64))

    def test_npu_quant_matmul_pertoken(self):
        x1 = np.random.randint(-8, 8, (16, 64)).astype(np.int8)
        x2 = np.random.randint(-8, 8, (64, 32)).astype(np.int8)
        scale = np.random.uniform(1e-3, 2e-3, [32]).astype(np.float32)
        pertoken = np.random.uniform(0.5, 1.5, [16]).astype(np.float32)
        bias = np.zeros([32], dtype=np.int32)
        got = torch_npu.npu_quant_matmul(torch.from_numpy(x1).npu(), torch.from_numpy(x2).npu(),
                                         torch.from_numpy(scale).npu(), pertoken_scale=torch.from_numpy(pertoken).npu(),
                                         output_dtype=torch.bfloat16)
        self.assertRtolEqual(self.supported_op_exec(x1, x2, scale, bias, pertoken), got.float().cpu().numpy(),
                             prec=1e-2)


if __name__ == "__main__":
    run_tests()
