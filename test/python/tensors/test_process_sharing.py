"""NPU tensors and other processes (Note [NPU memory is not shared between processes] in
torch_npu/_patches/sharing.py): a clear error where torch 1.13 says `_share_fd_: only available on CPU`."""
import pytest
import torch
import torch.nn as nn
from torch.multiprocessing.reductions import ForkingPickler

_NOT_SHARED = "Each process simulates its own NPUs, so NPU memory cannot be shared with another process"


@pytest.mark.parametrize("share", [
    lambda t: t.share_memory_(),
    lambda t: t.storage().share_memory_(),
    lambda t: (t.untyped_storage().share_memory_() if hasattr(t, "untyped_storage")
               else t.storage()._storage.share_memory_()),
    lambda t: nn.Linear(2, 2).to(t.device).share_memory(),
], ids=["tensor", "typed_storage", "untyped_storage", "module"])
def test_share_memory_of_npu_memory_says_why_and_what_to_do(npu, share):
    with pytest.raises(RuntimeError, match=_NOT_SHARED) as error:
        share(torch.ones(3, device=npu))
    assert "model.cpu() before model.share_memory()" in str(error.value)
    assert "hccl" in str(error.value)


@pytest.mark.parametrize("value", [
    lambda npu: torch.ones(3, device=npu),
    lambda npu: nn.Parameter(torch.ones(3, device=npu)),
    lambda npu: torch.ones(3, device=npu).storage(),
], ids=["tensor", "parameter", "storage"])
def test_pickling_npu_memory_for_another_process_is_refused(npu, value):
    with pytest.raises(RuntimeError, match="pickling of an NPU .* for another process: " + _NOT_SHARED):
        ForkingPickler.dumps(value(npu))


def test_cpu_sharing_is_unchanged():
    model = nn.Linear(2, 2).share_memory()
    assert all(p.is_shared() for p in model.parameters())
    assert ForkingPickler.dumps(torch.ones(2).share_memory_())
