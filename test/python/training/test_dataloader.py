"""DataLoader pinning for the NPU without CUDA (torch_npu/_patches/dataloader.py): pin_memory=True
pins, with and without worker processes, and pin_memory_device="npu" works with workers."""
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("device", ["", "npu"])
def test_batches_are_pinned_for_the_npu(workers, device):
    data = TensorDataset(torch.arange(24.0).view(12, 2), torch.arange(12))
    loader = DataLoader(data, batch_size=4, pin_memory=True, pin_memory_device=device, num_workers=workers)
    seen = []
    for x, y in loader:
        assert x.is_pinned() and y.is_pinned()
        seen.append(y)
        assert torch.equal(x.to("npu", non_blocking=True).cpu(), data.tensors[0][y])
    assert torch.equal(torch.cat(seen), torch.arange(12))
