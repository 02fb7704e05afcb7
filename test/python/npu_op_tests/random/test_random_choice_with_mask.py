import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestRandomChoiceWithMask(TestCase):
    def npu_op_exec(self, x, count, seed=0, seed2=0):
        result, mask = torch_npu.npu_random_choice_with_mask(x.npu(), count, seed, seed2)
        return result.cpu(), mask.cpu()

    def check_choice(self, x, count, result, mask):
        """result (count, x.dim()) int32 and mask (count,) bool: min(count, #True) distinct coordinates of
        True elements, then rows of 0 with mask False."""
        self.assertEqual(result.dtype, torch.int32)
        self.assertEqual(mask.dtype, torch.bool)
        self.assertEqual(result.shape, (count, x.dim()))
        self.assertEqual(mask.shape, (count,))
        valid = min(count, int(x.sum()))
        self.assertEqual(mask.tolist(), [True] * valid + [False] * (count - valid))
        self.assertEqual(result[valid:].abs().sum().item(), 0)
        chosen = [tuple(row) for row in result[:valid].tolist()]
        self.assertEqual(len(set(chosen)), valid)  # no duplicates
        for coordinate in chosen:
            self.assertTrue(bool(x[coordinate]))
        return chosen

    def test_random_choice_with_mask(self, device="npu"):
        # torch_npu's test_random_choice_with_mask.py (chosen in a random order: compared sorted)
        input_bool = torch.tensor([1, 0, 1, 0], dtype=torch.bool)
        expect_ret = torch.tensor([[0], [2]], dtype=torch.int32)
        expect_mask = torch.tensor([True, True])
        result, mask = self.npu_op_exec(input_bool, 2, 1, 0)
        self.assertRtolEqual(expect_ret, torch.sort(result, dim=0).values)
        self.assertRtolEqual(expect_mask, mask)

    def test_random_choice_with_mask_dims(self, device="npu"):
        for shape in ((40,), (6, 7), (3, 4, 5), (2, 3, 2, 4), (2, 2, 3, 2, 3)):
            x = torch.rand(shape) < 0.4
            for count in (5, 256):  # fewer and more rows than True elements
                result, mask = self.npu_op_exec(x, count)
                self.check_choice(x, count, result, mask)

    def test_random_choice_with_mask_all_and_none(self, device="npu"):
        x = torch.ones(5, 10, dtype=torch.bool)
        result, mask = self.npu_op_exec(x, 50, seed=3)
        chosen = self.check_choice(x, 50, result, mask)
        self.assertEqual(sorted(chosen), [(i, j) for i in range(5) for j in range(10)])
        self.assertNotEqual(chosen, sorted(chosen))  # shuffled
        result, mask = self.npu_op_exec(torch.zeros(5, 10, dtype=torch.bool), 8)
        self.check_choice(torch.zeros(5, 10, dtype=torch.bool), 8, result, mask)

    def test_random_choice_with_mask_seeds(self, device="npu"):
        x = torch.rand(8, 16) < 0.5
        for seed, seed2 in ((7, 0), (0, 7), (5, 11)):
            first = self.npu_op_exec(x, 20, seed, seed2)
            second = self.npu_op_exec(x, 20, seed, seed2)
            self.check_choice(x, 20, *first)
            self.assertRtolEqual(first[0], second[0])
            self.assertRtolEqual(first[1], second[1])

    def test_random_choice_with_mask_checks(self, device="npu"):
        with self.assertRaises(RuntimeError):  # x must be bool
            torch_npu.npu_random_choice_with_mask(torch.tensor([1, 0, 1], dtype=torch.int32).npu(), 2)
        with self.assertRaises(RuntimeError):
            torch_npu.npu_random_choice_with_mask(torch.tensor([1., 0., 1.]).npu(), 2)
        x = torch.tensor([True, False, True]).npu()
        for count in (0, -1):
            with self.assertRaises(RuntimeError):
                torch_npu.npu_random_choice_with_mask(x, count)
        with self.assertRaises(RuntimeError):  # 1 to 5 dims
            torch_npu.npu_random_choice_with_mask(torch.ones(1, 1, 1, 1, 1, 2, dtype=torch.bool).npu(), 2)


if __name__ == "__main__":
    run_tests()
