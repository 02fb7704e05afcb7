import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUWeightQuantBatchMatmul(TestCase):
    def supported_op_exec(self, x, weight, antiquant_scale, antiquant_offset, bias):
        w = ((weight.astype(np.float32) + antiquant_offset.astype(np.float32)) *
             antiquant_scale.astype(np.float32)).astype(np.float16)
        return np.matmul(x.astype(np.float32), w.astype(np.float32)) + bias.astype(np.float32)

    def test_npu_weight_quant_batchmatmul(self):
        x = np.random.randn(8, 128).astype(np.float16)
        weight = np.random.randint(-128, 127, (128, 64)).astype(np.int8)
        antiquant_scale = np.random.uniform(0.001, 0.01, [64]).astype(np.float16)
        antiquant_offset = np.random.randn(64).astype(np.float16)
        bias = np.random.randn(64).astype(np.float16)
        want = self.supported_op_exec(x, weight, antiquant_scale, antiquant_offset, bias)
        got = torch_npu.npu_weight_quant_batchmatmul(torch.from_numpy(x).npu(), torch.from_numpy(weight).npu(),
                                                     torch.from_numpy(antiquant_scale).npu(),
                                                     torch.from_numpy(antiquant_offset).npu(),
                                                     bias=torch.from_numpy(bias).npu())
        self.assertRtolEqual(want.astype(np.float16), got.cpu().numpy(), prec=1e-2)


if __name__ == "__main__":
    run_tests()
