"""torch_npu.contrib.module.Prefetcher (torch_npu/contrib/module/prefetcher.py): the CUDA-style data
prefetcher, copying the next batch to the NPU on a side stream while the current one is used."""
import torch

__all__ = ["Prefetcher"]


class Prefetcher:
    """Prefetcher(loader, stream=None); next() -> (input, target) on the NPU, (None, None) at the end.

    loader: an iterable of (input, target) host tensors (a DataLoader, pin_memory=True for overlapping
    copies); stream: the NPU stream the copies run on (a new one from torch.npu.Stream() by default).
    """

    def __init__(self, loader, stream=None):
        self.loader = iter(loader)
        self.stream = stream if stream is not None else torch.npu.Stream()
        self.next_input = self.next_target = None
        self.preload()

    def preload(self):
        """Fetches the next batch and starts its copy to the NPU on the side stream."""
        try:
            self.next_input, self.next_target = next(self.loader)
        except StopIteration:
            self.next_input = self.next_target = None
            return
        with torch.npu.stream(self.stream):
            self.next_input = self.next_input.npu(non_blocking=True)
            self.next_target = self.next_target.npu(non_blocking=True)

    def next(self):
        """The preloaded batch, safe to use on the current stream; the next batch is preloaded."""
        current = torch.npu.current_stream()
        current.wait_stream(self.stream)
        batch_input, batch_target = self.next_input, self.next_target
        if batch_input is not None:
            batch_input.record_stream(current)
            batch_target.record_stream(current)
        self.preload()
        return batch_input, batch_target
