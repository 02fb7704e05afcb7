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


def test_expandable_segments_is_accepted_and_warns_when_true():
    body = 'torch.ones(4, device="npu")\nprint(json.dumps({}))\n'
    _, err = run("expandable_segments:False", body)
    assert "expandable_segments" not in err
    _, err = run("expandable_segments:True,max_split_size_mb:128", body)
    assert "expandable_segments:True is not modelled" in err


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
