"""NPU streams and events (mirroring torch.cuda.Stream / torch.cuda.Event)."""
import torch

from torch_npu import _C
from torch_npu._device_name import device_index


class Stream(torch._C.Stream):
    """An NPU stream. `Stream()` takes a stream from the device's pool.

    It is a torch.Stream, so it works with Tensor.record_stream and other
    stream-aware PyTorch APIs.
    """

    def __new__(cls, device=None, priority=0, _info=None):
        if _info is None:
            _info = _C._npu_getStreamFromPool(device_index(device))
        stream_id, index, packed = _info
        self = super().__new__(cls, _cdata=packed)
        self.stream_id = stream_id
        self.device_index = index
        return self

    @classmethod
    def _from_tuple(cls, info):
        return cls(_info=info)

    def query(self):
        """True if all work submitted to the stream has finished."""
        return _C._npu_streamQuery(self.stream_id, self.device_index)

    def synchronize(self):
        _C._npu_streamSynchronize(self.stream_id, self.device_index)

    def wait_event(self, event):
        event.wait(self)

    def wait_stream(self, stream):
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        event = event if event is not None else Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return isinstance(other, Stream) and (self.stream_id, self.device_index) == (
            other.stream_id, other.device_index)

    def __hash__(self):
        return hash((self.stream_id, self.device_index))

    def __repr__(self):
        return f"<torch.npu.Stream device=npu:{self.device_index} stream_id={self.stream_id}>"


class Event:
    """An NPU event. `elapsed_time` reports simulated device milliseconds."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        if interprocess:
            raise NotImplementedError("interprocess NPU events are not supported")
        self._event = _C._NPUEvent()
        self.enable_timing = enable_timing

    def record(self, stream=None):
        import torch_npu.npu as npu
        stream = stream if stream is not None else npu.current_stream()
        self._event.record(stream.stream_id, stream.device_index)

    def wait(self, stream=None):
        import torch_npu.npu as npu
        stream = stream if stream is not None else npu.current_stream()
        self._event.block(stream.stream_id, stream.device_index)

    def query(self):
        return self._event.query()

    def synchronize(self):
        self._event.synchronize()

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with enable_timing=True to measure elapsed time")
        return self._event.elapsed_time(end_event._event)

    def __repr__(self):
        state = "recorded" if self._event.recorded else "unrecorded"
        return f"<torch.npu.Event {state}>"
