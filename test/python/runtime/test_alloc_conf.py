"""PYTORCH_NPU_ALLOC_CONF (Note [Allocator options]): max_split_size_mb, garbage_collection_threshold,
expandable_segments, and the errors of a bad value. Each case runs in a fresh process: the variable is
read once, when the allocator first serves a request."""
import json
import os
import subprocess
import textwrap

MIB = 1 << 20


def run(conf, body):
    env = dict(os.environ, ASCEND_SIM_HBM_SIZE="4G")
    env.pop("PYTORCH_NPU_ALLOC_CONF", None)
    if conf is not None:
        env["PYTORCH_NPU_ALLOC_CONF"] = conf
    script = "import json, torch, torch_npu\nMIB = 1 << 20\n" + textwrap.dedent(body)
    p = subprocess.run(["/usr/bin/python3", "-c", script], env=env, cwd="/tmp", capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1]), p.stderr


SPLIT = """
big = torch.empty(100 * MIB, dtype=torch.uint8, device="npu")
del big                                  # a cached 100 MiB block
small = torch.empty(4 * MIB, dtype=torch.uint8, device="npu")
after_small = torch.npu.memory_stats()["segment.all.current"]
near = torch.empty(90 * MIB, dtype=torch.uint8, device="npu")
print(json.dumps({"segments_after_small": after_small,
                  "segments_after_near": torch.npu.memory_stats()["segment.all.current"],
                  "reserved": torch.npu.memory_reserved()}))
"""


def test_without_options_a_small_request_splits_a_cached_large_block():
    out, _ = run(None, SPLIT)
    # The 4 MiB and then the 90 MiB come out of the cached 100 MiB block: one segment.
    assert (out["segments_after_small"], out["segments_after_near"], out["reserved"]) == (1, 1, 100 * MIB)


def test_max_split_size_keeps_large_blocks_whole():
    out, _ = run("max_split_size_mb:64", SPLIT)
    # The cached 100 MiB block is oversize: the 4 MiB request maps a 20 MiB segment of its own, and the
    # 90 MiB request takes the whole 100 MiB block (it wastes less than 20 MiB).
    assert out["segments_after_small"] == 2
    assert out["segments_after_near"] == 2
    assert out["reserved"] == 120 * MIB


OVERSIZE = """
big = torch.empty(100 * MIB, dtype=torch.uint8, device="npu")
small = torch.empty(4 * MIB, dtype=torch.uint8, device="npu")
live = torch.npu.memory_stats()
del big
torch.npu.empty_cache()
after = torch.npu.memory_stats()
print(json.dumps({k: [s[f"{k}.current"] for s in (live, after)] + [after[f"{k}.peak"]]
                  for k in ("oversize_allocations", "oversize_segments")} | {"max_split": after["max_split_size"]}))
"""


def test_oversize_statistics_count_blocks_and_segments_of_max_split_size_or_more():
    out, _ = run("max_split_size_mb:64", OVERSIZE)
    # (live, after freeing and emptying the cache, peak): only the 100 MiB block and segment are oversize.
    assert out["oversize_allocations"] == [1, 0, 1] and out["oversize_segments"] == [1, 0, 1]
    assert out["max_split"] == 64 * MIB
    plain, _ = run(None, OVERSIZE)
    assert plain["oversize_allocations"] == [0, 0, 0] and plain["max_split"] == -1  # torch's SIZE_MAX


GC = """
torch.npu.set_per_process_memory_fraction(0.5)   # 2 GiB of the 4 GiB device allowed
a = torch.empty(600 * MIB, dtype=torch.uint8, device="npu")
del a                                            # cached
b = torch.empty(700 * MIB, dtype=torch.uint8, device="npu")
print(json.dumps({"reserved": torch.npu.memory_reserved()}))
"""


def test_garbage_collection_threshold_returns_cached_segments_before_mapping_past_it():
    plain, _ = run(None, GC)
    assert plain["reserved"] == 1300 * MIB  # the cached 600 MiB stays
    collected, _ = run("garbage_collection_threshold:0.5", GC)
    assert collected["reserved"] == 700 * MIB  # 600 + 700 > 0.5 x 2 GiB: the cached segment went back first


# A live 4 MiB block in each of four 20 MiB segments, the rest of them free (64 MiB), under a 100 MiB cap:
# a 40 MiB request needs a segment of its own, and no free tail can be given back to make room.
FRAGMENTED = """
torch.npu.set_per_process_memory_fraction(100 * MIB / torch.npu.mem_get_info()[1])
blocks = [torch.empty(4 * MIB, dtype=torch.uint8, device="npu") for _ in range(20)]
kept = blocks[::5]
del blocks
reserved_before = torch.npu.memory_reserved()
try:
    big = torch.full((10 * MIB,), 3.0, device="npu")  # 40 MiB
    result = {"reserved": torch.npu.memory_stats()["reserved_bytes.large_pool.current"], "sum": big.sum().item(),
              "segments": [(s["total_size"], s["is_expandable"]) for s in torch.npu.memory_snapshot()
                           if s["segment_type"] == "large"]}
except RuntimeError as e:
    result = {"error": str(e)}
result["reserved_before"] = reserved_before
result["kept"] = [t.data_ptr() - kept[0].data_ptr() for t in kept]
print(json.dumps(result))
"""


def test_expandable_segments_serve_what_fragmented_fixed_segments_cannot():
    plain, _ = run(None, FRAGMENTED)
    assert plain["reserved_before"] == 80 * MIB
    assert "NPU out of memory" in plain["error"] and "expandable_segments:True" in plain["error"]
    grown, err = run("expandable_segments:True", FRAGMENTED)
    assert "not modelled" not in err
    assert grown["reserved_before"] == 80 * MIB  # 20 x 4 MiB mapped back to back in one range
    assert grown["kept"] == [0, 20 * MIB, 40 * MIB, 60 * MIB]
    # The retry unmapped the four free 16 MiB stretches and mapped 40 MiB after the last kept block; the
    # kernels read the tensor across its 20 granules as one buffer.
    assert grown["sum"] == 3.0 * 10 * MIB
    assert grown["reserved"] == 4 * 4 * MIB + 40 * MIB
    assert all(expandable for _, expandable in grown["segments"])
    assert sorted(size for size, _ in grown["segments"]) == [4 * MIB, 4 * MIB, 4 * MIB, 44 * MIB]


GROWING = """
for mib in range(10, 32, 2):  # a sequence length that grows step by step
    x = torch.ones(mib * MIB // 4, device="npu")
    assert x.sum().item() == mib * MIB // 4
    del x
stats = torch.npu.memory_stats()
torch.npu.empty_cache()
print(json.dumps({"peak_reserved": stats["reserved_bytes.large_pool.peak"],
                  "segments": stats["segment.large_pool.current"], "after_empty_cache": torch.npu.memory_reserved()}))
"""


def test_expandable_segments_extend_the_freed_block_instead_of_mapping_a_new_segment():
    plain, _ = run(None, GROWING)
    assert plain["peak_reserved"] >= 100 * MIB  # a new segment for each larger size (until the retry)
    grown, _ = run("expandable_segments:True", GROWING)
    assert grown["peak_reserved"] == 30 * MIB  # each step maps only the difference
    assert grown["segments"] == 1 and grown["after_empty_cache"] == 0


def test_expandable_segments_trace_maps_and_unmaps_and_streams_get_their_own():
    body = """
    torch.npu.memory._record_memory_history(True)
    x = torch.ones(3 * MIB, device="npu")
    side = torch.npu.Stream()
    with torch.npu.stream(side):
        y = torch.ones(3 * MIB, device="npu")
    side.synchronize()
    large = [(s["stream"], s["is_expandable"]) for s in torch.npu.memory_snapshot() if s["segment_type"] == "large"]
    del x, y
    torch.npu.empty_cache()
    stats = torch.npu.memory_stats()
    actions = [e["action"] for e in torch.npu.memory._snapshot().device_traces[0]]
    print(json.dumps({"actions": sorted(set(actions)), "large": sorted(large), "side": side.stream_id,
                      "left": [stats[k] for k in ("reserved_bytes.all.current", "segment.all.current",
                                                  "inactive_split.all.current", "inactive_split_bytes.all.current")]}))
    """
    out, _ = run("expandable_segments:True", body)
    assert {"segment_map", "segment_unmap", "alloc", "free_completed"} <= set(out["actions"])
    assert "segment_alloc" not in out["actions"]
    assert out["large"] == sorted([[0, True], [out["side"], True]])  # one expandable segment per stream
    assert out["left"] == [0, 0, 0, 0]  # everything unmapped, no split block left behind


def test_expandable_segments_with_max_split_size_and_a_block_another_stream_still_uses():
    body = """
    x = torch.empty(127 * MIB, dtype=torch.uint8, device="npu")  # maps 128 MiB: an oversize block
    ok = x.numel() == 127 * MIB
    side = torch.npu.Stream()
    y = torch.full((MIB,), 7.0, device="npu")
    side.wait_stream(torch.npu.current_stream())
    with torch.npu.stream(side):
        z = y * 2  # reads y on the side stream
    y.record_stream(side)
    del x, y  # y's block waits for `side`: empty_cache must leave its granule mapped
    torch.npu.empty_cache()
    side.synchronize()
    print(json.dumps({"ok": ok, "z": z.sum().item(), "reserved": torch.npu.memory_reserved()}))
    """
    out, _ = run("expandable_segments:True,max_split_size_mb:128", body)
    assert out["ok"] and out["z"] == 14.0 * MIB
    assert 0 < out["reserved"] <= 8 * MIB  # y's and z's granules only


def test_garbage_collection_threshold_unmaps_free_expandable_granules():
    body = """
    torch.npu.set_per_process_memory_fraction(1024 * MIB / torch.npu.mem_get_info()[1])
    a = torch.empty(600 * MIB, dtype=torch.uint8, device="npu")
    b = torch.empty(8 * MIB, dtype=torch.uint8, device="npu")  # after a: a's granules cannot be extended into
    del a
    c = torch.empty(700 * MIB, dtype=torch.uint8, device="npu")
    stats = torch.npu.memory_stats()
    print(json.dumps({"reserved": stats["reserved_bytes.all.current"], "retries": stats["num_alloc_retries"]}))
    """
    plain, _ = run("expandable_segments:True", body)  # 608 + 700 MiB > the cap: an out-of-memory retry unmaps a
    assert plain == {"reserved": 708 * MIB, "retries": 1}
    collected, _ = run("expandable_segments:True,garbage_collection_threshold:0.5", body)
    assert collected == {"reserved": 708 * MIB, "retries": 0}  # unmapped before mapping, no failed attempt


def test_bad_values_raise_naming_the_variable_and_the_key():
    body = """
    try:
        torch.ones(4, device="npu")
        print(json.dumps({"error": None}))
    except RuntimeError as e:
        print(json.dumps({"error": str(e).splitlines()[0]}))
    """
    cases = {
        "max_split_size_mb:10": "max_split_size_mb must be more than 20 (MiB), got 10",
        "max_split_size_mb:lots": "max_split_size_mb needs a number, got 'lots'",
        "garbage_collection_threshold:1.5": "garbage_collection_threshold must be between 0 and 1, got 1.5",
        "expandable_segments:yes": "expandable_segments must be True or False, got 'yes'",
        "roundup_power2_divisions:4": "unknown option 'roundup_power2_divisions'",
        "max_split_size_mb": "expected key:value, got 'max_split_size_mb'",
    }
    for conf, message in cases.items():
        out, _ = run(conf, body)
        assert out["error"] and "PYTORCH_NPU_ALLOC_CONF" in out["error"] and message in out["error"], (conf, out)
