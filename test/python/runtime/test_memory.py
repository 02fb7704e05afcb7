"""Caching allocator statistics, empty_cache and out-of-memory errors."""
import time

import pytest
import torch

from conftest import run_python


def test_allocated_and_reserved_track_tensors():
    torch.npu.empty_cache()
    base = torch.npu.memory_allocated()
    x = torch.empty(1 << 20, device="npu")  # 4 MiB
    assert torch.npu.memory_allocated() - base == 4 << 20
    assert torch.npu.memory_reserved() >= torch.npu.memory_allocated()
    assert torch.npu.max_memory_allocated() >= base + (4 << 20)
    del x
    assert torch.npu.memory_allocated() == base
    assert torch.npu.memory_reserved() > 0  # cached, not returned
    torch.npu.empty_cache()
    assert torch.npu.memory_reserved() <= base + (2 << 20)


def test_peak_reset_and_stats_dict():
    torch.npu.reset_peak_memory_stats()
    x = torch.empty(1000, device="npu")
    stats = torch.npu.memory_stats()
    assert stats["allocation.all.current"] >= 1
    assert stats["allocated_bytes.all.peak"] >= 4000
    assert stats["allocated_bytes.small_pool.current"] >= 4000
    del x


def test_memory_summary_is_a_table():
    text = torch.npu.memory_summary()
    assert "Allocated memory" in text and "Reserved memory" in text and "npu:0" in text


def test_blocks_are_reused():
    torch.npu.empty_cache()
    x = torch.empty(3 << 20, device="npu")
    ptr = x.data_ptr()
    del x
    y = torch.empty(3 << 20, device="npu")
    assert y.data_ptr() == ptr
    assert torch.npu.memory_stats()["segment.all.current"] >= 1


def test_memory_snapshot_lists_segments_in_use():
    # 12 MiB is at least the 10 MiB from which a request gets a segment of its own (rounded to
    # 2 MiB): that segment holds one allocated block and no free one, so the snapshot must find it
    # through the allocator's active blocks, not through the cached free blocks. In a fresh process:
    # here a larger cached block left by an earlier test (empty_cache keeps partly used segments)
    # could serve the request.
    result = run_python("""
        import torch, torch_npu
        x = torch.empty(3 << 20, device="npu")
        segments = [s for s in torch.npu.memory_snapshot()
                    if s["address"] <= x.data_ptr() < s["address"] + s["total_size"]]
        assert len(segments) == 1, segments
        seg = segments[0]
        assert seg["segment_type"] == "large" and seg["address"] == x.data_ptr(), seg
        assert seg["total_size"] == seg["allocated_size"] == 12 << 20, seg
        assert seg["blocks"] == [{"size": 12 << 20, "requested_size": 12 << 20, "state": "active_allocated"}], seg
        assert seg["active_size"] == 12 << 20 and seg["stream"] == torch.npu.current_stream().stream_id, seg
        del x
        assert all(b["state"] == "inactive" for s in torch.npu.memory_snapshot() for b in s["blocks"]
                   if s["address"] == seg["address"])
        print("ok")
    """)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


def test_out_of_memory_reports_the_allocator_numbers():
    result = run_python("""
        import torch, torch_npu
        keep = torch.empty(256 << 20, dtype=torch.uint8, device="npu")
        try:
            torch.empty(1 << 30, dtype=torch.uint8, device="npu")
        except RuntimeError as e:
            print(e)
        print("retries", torch.npu.memory_stats()["num_ooms"])
    """, env={"ASCEND_SIM_HBM_SIZE": "512M"})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "NPU out of memory. Tried to allocate 1.00 GiB" in out
    assert "512.00 MiB total capacity" in out and "256.00 MiB already allocated" in out
    assert "reserved in total by PyTorch" in out
    assert "retries 1" in out


def test_per_process_memory_fraction_caps_the_allocator(npu):
    total = torch.npu.mem_get_info()[1]
    torch.npu.empty_cache()
    torch.npu.set_per_process_memory_fraction(0.01)
    try:
        with pytest.raises(RuntimeError, match="allowed by set_per_process_memory_fraction"):
            torch.empty(int(total * 0.02) // 4, device=npu)
        small = torch.ones(1000, device=npu)  # well below the cap
        assert small.sum().item() == 1000
    finally:
        torch.npu.set_per_process_memory_fraction(1.0)
    big = torch.empty(int(total * 0.02) // 4, device=npu)  # fits again
    del big
    with pytest.raises(TypeError, match="must be `float`"):
        torch.npu.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        torch.npu.set_per_process_memory_fraction(-0.5)


def test_caching_allocator_alloc_and_delete(npu):
    before = torch.npu.memory_allocated()
    ptr = torch.npu.caching_allocator_alloc(4096, stream=torch.npu.current_stream())
    assert isinstance(ptr, int) and ptr != 0
    assert torch.npu.memory_allocated() - before >= 4096
    torch.npu.caching_allocator_delete(ptr)
    assert torch.npu.memory_allocated() == before
    with pytest.raises(RuntimeError, match="was not allocated by torch.npu.caching_allocator_alloc"):
        torch.npu.caching_allocator_delete(ptr)
    with pytest.raises(TypeError, match="stream argument"):
        torch.npu.caching_allocator_alloc(16, stream="default")


def test_bf16_support_follows_the_simulated_chip():
    code = "import torch, torch_npu; print(torch.npu.is_bf16_supported(), torch.npu.utils.get_device_name())"
    for soc, expected in (("Ascend910A", "False"), ("Ascend910B2", "True")):
        out = run_python(code, env={"ASCEND_SIM_SOC_VERSION": soc})
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == [expected, soc]


def test_list_gpu_processes_names_this_process_and_its_reserved_memory():
    import os
    torch.npu.set_device(0)
    x = torch.empty(4 * 1024 * 1024, device="npu:3")  # 16 MiB on a device nothing else touches
    text = torch.npu.list_gpu_processes("npu:3")
    lines = text.splitlines()
    assert lines[0] == "NPU:3"
    assert str(os.getpid()) in lines[1] and "MB NPU memory" in lines[1]
    assert float(lines[1].split("uses")[1].split("MB")[0]) >= 16.0
    del x
    torch.npu.empty_cache()
    assert torch.npu.list_gpu_processes("npu:3").splitlines()[1] == "no processes are running"


def test_utilization_reports_busy_share_since_the_previous_call():
    torch.npu.utilization(0)  # starts a window
    a = torch.randn(512, 512, device="npu:0")
    for _ in range(10):
        a = a @ a / 512
    torch.npu.synchronize()
    rates = torch.npu.utilization_rates(0)
    assert set(rates) == {"cube", "vector", "aicpu", "memory"}
    assert 0 < rates["cube"] <= 100
    time.sleep(0.05)
    assert torch.npu.utilization(0) == 0  # idle window
    with pytest.raises(RuntimeError, match="Invalid NPU device index"):
        torch.npu.utilization(99)
