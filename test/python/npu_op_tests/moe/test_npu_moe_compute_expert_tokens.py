import numpy as np
import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNPUMoeComputeExpertTokens(TestCase):
    def supported_op_exec(self, sorted_experts, num_experts):
        """The end row of every expert in the sorted list (its binary search)."""
        return np.searchsorted(sorted_experts, np.arange(num_experts), side="right").astype(np.int32)

    def custom_op_exec(self, sorted_experts, num_experts):
        return torch_npu.npu_moe_compute_expert_tokens(sorted_experts, num_experts).cpu().numpy()

    def test_moe_compute_expert_tokens(self):
        for length, num_experts in ((6, 5), (100, 16), (1, 3)):
            sorted_experts = np.sort(np.random.randint(0, num_experts, [length])).astype(np.int32)
            self.assertEqual(self.supported_op_exec(sorted_experts, num_experts),
                             self.custom_op_exec(torch.from_numpy(sorted_experts).npu(), num_experts))

    def test_moe_compute_expert_tokens_of_the_documented_example(self):
        sorted_experts = torch.tensor([3, 3, 4, 5, 6, 7], dtype=torch.int32)
        out = torch_npu.npu_moe_compute_expert_tokens(sorted_experts.npu(), 5)
        self.assertEqual(out.cpu().tolist(), [0, 0, 0, 2, 3])


if __name__ == "__main__":
    run_tests()
