import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestBoundingBoxCoding(TestCase):
    def test_encode_shape_format(self, device="npu"):
        input1 = torch.tensor([[1., 2., 3., 4.], [3., 4., 5., 6.]], dtype=torch.float32).to("npu")
        input2 = torch.tensor([[5., 6., 7., 8.], [7., 8., 9., 6.]], dtype=torch.float32).to("npu")
        expedt_output = torch.tensor([[13.3281, 13.3281, 0.0000, 0.0000],
                                      [13.3281, 6.6641, 0.0000, -5.4922]], dtype=torch.float32)
        output = torch_npu.npu_bounding_box_encode(input1, input2, 0, 0, 0, 0, 0.1, 0.1, 0.2, 0.2)
        self.assertRtolEqual(expedt_output, output.cpu(), prec=1e-3)
        output = torch_npu.npu_bounding_box_encode(input1.half(), input2.half(), 0, 0, 0, 0, 0.1, 0.1, 0.2, 0.2)
        self.assertRtolEqual(expedt_output.half(), output.cpu(), prec16=1e-2)

    def test_decode_shape_format(self, device="npu"):
        input1 = torch.tensor([[1., 2., 3., 4.], [3., 4., 5., 6.]], dtype=torch.float32).to("npu")
        input2 = torch.tensor([[5., 6., 7., 8.], [7., 8., 9., 6.]], dtype=torch.float32).to("npu")
        expedt_output = torch.tensor([[2.5000, 6.5000, 9.0000, 9.0000],
                                      [9.0000, 9.0000, 9.0000, 9.0000]], dtype=torch.float32)
        output = torch_npu.npu_bounding_box_decode(input1, input2, 0, 0, 0, 0, 1, 1, 1, 1, (10, 10), 0.1)
        self.assertRtolEqual(expedt_output, output.cpu())
        output = torch_npu.npu_bounding_box_decode(input1.half(), input2.half(), 0, 0, 0, 0, 1, 1, 1, 1, (10, 10), 0.1)
        self.assertRtolEqual(expedt_output.half(), output.cpu())


if __name__ == "__main__":
    run_tests()
