"""torch_npu.testing: helpers for torch_npu's per-op tests.

    from torch_npu.testing.testcase import TestCase, run_tests
    from torch_npu.testing.common_utils import create_common_tensor
    from torch_npu.testing.decorator import Dtypes, Formats, instantiate_tests

Importing this package does not touch the device; the NPU is selected when a
TestCase class is set up (see testcase.TestCase.setUpClass).
"""
