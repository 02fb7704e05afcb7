"""torch.npu.Stream / Event and the stream context."""
import torch

from conftest import assert_close


def test_default_and_current_stream():
    s = torch.npu.current_stream()
    assert s == torch.npu.default_stream()
    assert s.stream_id == 0 and s.device_index == 0
    assert isinstance(s, torch.Stream) and s.device == torch.device("npu:0")


def test_stream_context_and_pool():
    s = torch.npu.Stream()
    assert s.stream_id != 0
    with torch.npu.stream(s):
        assert torch.npu.current_stream() == s
        x = torch.ones(100, device="npu") * 3
    assert torch.npu.current_stream() == torch.npu.default_stream()
    s.synchronize()
    assert s.query()
    assert x.cpu().eq(3).all()


def test_cross_stream_ordering_with_wait_stream():
    side = torch.npu.Stream()
    a = torch.randn(256, 256, device="npu")
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        b = a @ a
    torch.npu.current_stream().wait_stream(side)
    c = b + 1
    assert_close(c, a.cpu() @ a.cpu() + 1, rtol=1e-4, atol=1e-3)


def test_events_time_in_simulated_milliseconds():
    start, end = torch.npu.Event(enable_timing=True), torch.npu.Event(enable_timing=True)
    x = torch.randn(512, 512, device="npu")
    start.record()
    for _ in range(3):
        x = x @ x * 1e-3
    end.record()
    end.synchronize()
    assert start.query() and end.query()
    small = start.elapsed_time(end)
    assert small > 0
    start.record()
    for _ in range(30):
        x = x @ x * 1e-3
    end.record()
    assert start.elapsed_time(end) > small * 5  # simulated time grows with the work


def _freed_block_reused(record):
    side = torch.npu.Stream()
    x = torch.ones(1 << 20, device="npu")
    a = torch.randn(1024, 1024, device="npu")
    side.wait_stream(torch.npu.current_stream())  # x is written on the default stream
    with torch.npu.stream(side):
        for _ in range(8):
            a = a @ a / 1024  # keeps the side stream busy for tens of milliseconds of host time
        y = x * 2
    if record:
        x.record_stream(side)
    x_ptr = x.data_ptr()
    del x
    z = torch.empty(1 << 20, device="npu")  # the same size, on the default stream, while side still runs
    reused = z.data_ptr() == x_ptr
    side.synchronize()
    assert y.cpu().eq(2).all()
    return reused


def test_record_stream_keeps_memory_until_the_stream_is_done():
    # Without record_stream the caching allocator hands x's block straight to the next allocation of
    # its size on the default stream; with it, not while the side stream (which reads x) is running.
    assert _freed_block_reused(record=False)
    assert not _freed_block_reused(record=True)
