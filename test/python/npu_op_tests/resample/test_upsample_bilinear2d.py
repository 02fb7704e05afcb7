import torch
import numpy as np
import torch_npu  # noqa: F401

from torch_npu.testing.testcase import TestCase, run_tests
from torch_npu.testing.common_utils import create_common_tensor


class TestUpsampleBilinear2d(TestCase):
    def cpu_op_exec(self, input1, size, scale_factor, align_corners):
        output = torch.nn.functional.interpolate(input1, size=size, scale_factor=scale_factor,
                                                 mode="bilinear", align_corners=align_corners)
        output = output.numpy()
        return output

    def npu_op_exec(self, input1, size, scale_factor, align_corners):
        output = torch.nn.functional.interpolate(input1, size=size, scale_factor=scale_factor,
                                                 mode="bilinear", align_corners=align_corners)
        output = output.to("cpu")
        output = output.numpy()
        return output

    def op_backward_exec(self, input1, size, align_corners):
        input1.requires_grad = True
        output = torch.nn.functional.interpolate(input1, size=size, mode="bilinear", align_corners=align_corners)
        weight = torch.arange(output.numel(), dtype=torch.float32).reshape(output.shape) / output.numel()
        output.backward(weight.to(output.dtype).to(output.device))
        return input1.grad.cpu().numpy()

    def upsample_result(self, shape_format):
        for item in shape_format:
            cpu_input1, npu_input1 = create_common_tensor(item[0], -5, 5)
            if cpu_input1.dtype == torch.float16:
                cpu_input1 = cpu_input1.to(torch.float32)
            size, scale_factor, align_corners = item[1], item[2], item[3]
            cpu_output = self.cpu_op_exec(cpu_input1, size, scale_factor, align_corners)
            npu_output = self.npu_op_exec(npu_input1, size, scale_factor, align_corners)
            cpu_output = cpu_output.astype(npu_output.dtype)
            self.assertRtolEqual(cpu_output, npu_output)

    def upsample_cases(self, dtype):
        format_list = [0, 3, 29]
        size_list = [((12, 20), None), ((16, 32), None), ((4, 8), None), (None, 2), (None, 0.5), ((8, 16), None)]
        return [[[dtype, i, [2, 3, 8, 16]], s, f, a]
                for i in format_list for s, f in size_list for a in [False, True]]

    def test_upsample_bilinear2d_shape_format_fp16(self, device="npu"):
        self.upsample_result(self.upsample_cases(np.float16))

    def test_upsample_bilinear2d_shape_format_fp32(self, device="npu"):
        shape_format = self.upsample_cases(np.float32)
        shape_format += [[[np.float32, 0, [1, 1, 5, 7]], (11, 3), None, False],
                         [[np.float32, 0, [1, 1, 5, 7]], (11, 3), None, True]]
        self.upsample_result(shape_format)

    def test_upsample_bilinear2d_backward(self, device="npu"):
        for item, size in [([np.float32, 0, [2, 3, 8, 16]], (12, 20)), ([np.float32, 3, [1, 4, 6, 6]], (3, 4)),
                           ([np.float32, 0, [1, 2, 5, 7]], (11, 3))]:
            for align_corners in [False, True]:
                cpu_input1, npu_input1 = create_common_tensor(item, -5, 5)
                cpu_grad = self.op_backward_exec(cpu_input1, size, align_corners)
                npu_grad = self.op_backward_exec(npu_input1, size, align_corners)
                self.assertRtolEqual(cpu_grad, npu_grad)


if __name__ == "__main__":
    run_tests()
