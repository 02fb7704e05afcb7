import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUTransQuantParam(TestCase):
    def supported_op_exec(self, scale, offset):
        bits = scale.view(np.uint32).astype(np.uint64) & 0xFFFFE000
        if offset is None:
            return bits
        q = np.clip(np.rint(offset), -256, 255).astype(np.int64) & 0x1FF
        return bits | (q.astype(np.uint64) << 37) | (1 << 46)

    def test_npu_trans_quant_param(self):
        scale = np.random.randn(16).astype(np.float32)
        offset = np.random.uniform(-300, 300, [16]).astype(np.float32)
        for off in (None, offset):
            want = self.supported_op_exec(scale, off)
            got = torch_npu.npu_trans_quant_param(torch.from_numpy(scale).npu(),
                                                  None if off is None else torch.from_numpy(off).npu())
            self.assertEqual(got.dtype, torch.int64)
            self.assertEqual(want.astype(np.int64), got.cpu().numpy())


if __name__ == "__main__":
    run_tests()
