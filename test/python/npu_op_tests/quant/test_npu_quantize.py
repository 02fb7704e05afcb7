import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUQuantize(TestCase):
    def supported_op_exec(self, x, scales, zero_points, low, high, div_mode):
        shape = [1] * x.ndim
        shape[1] = -1
        s, z = scales.reshape(shape), zero_points.reshape(shape)
        v = x / s + z if div_mode else x * s + z
        return np.clip(np.rint(v), low, high)

    def test_npu_quantize(self):
        x = np.random.uniform(-50, 50, [4, 8, 3]).astype(np.float32)
        scales = np.random.uniform(0.2, 2, [8]).astype(np.float32)
        zero_points = np.random.randint(-3, 3, [8]).astype(np.float32)
        for dtype, out, low, high in ((torch.qint8, torch.int8, -128, 127), (torch.quint8, torch.uint8, 0, 255),
                                      (torch.qint32, torch.int32, -2 ** 31, 2 ** 31 - 1)):
            for div_mode in (True, False):
                want = self.supported_op_exec(x, scales, zero_points, low, high, div_mode)
                got = torch_npu.npu_quantize(torch.from_numpy(x).npu(), torch.from_numpy(scales).npu(),
                                             torch.from_numpy(zero_points).npu(), dtype, axis=1, div_mode=div_mode)
                self.assertEqual(got.dtype, out)
                self.assertEqual(want.astype(np.int64), got.cpu().numpy().astype(np.int64))


if __name__ == "__main__":
    run_tests()
