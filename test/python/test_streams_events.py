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


def test_record_stream_keeps_memory_until_the_stream_is_done():
    side = torch.npu.Stream()
    x = torch.ones(1 << 20, device="npu")
    side.wait_stream(torch.npu.current_stream())  # x is written on the default stream
    with torch.npu.stream(side):
        y = x * 2
    x.record_stream(side)
    del x
    side.synchronize()
    assert y.cpu().eq(2).all()
