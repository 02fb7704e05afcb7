"""torch.distributed with backend "hccl": multi-process tests on one machine.

Every test starts real processes (one per rank) through dist_util.launch.
"""
import uuid

import pytest
import torch

from dist_util import assert_all_ok, launch, network_namespaces


def scenario(name, world=2, env=None, timeout=120, **kw):
    results = launch("scenarios.py", world, args=[name], env=env, timeout=timeout, **kw)
    return results


@pytest.mark.parametrize("world", [2, 4])
def test_every_collective_matches_cpu(world):
    results = launch("collectives.py", world, timeout=600)
    assert_all_ok(results)
    for r in results:
        report = r.json()
        assert report["failed"] == 0, f"rank {r.rank}: {report['failed']} failures:\n" + "\n".join(report["failures"])
        assert report["cases"] > 400  # every collective x dtype x size ran (483 checks on rank 0 of 2)


def test_backend_is_registered_by_import():
    import torch.distributed as dist
    import torch_npu  # noqa: F401
    assert "HCCL" in dist.Backend._plugins
    assert dist.Backend("hccl") == "hccl"
    assert torch_npu.distributed.is_hccl_available()


def test_object_collectives_stage_on_the_npu():
    results = scenario("object_collectives")
    assert_all_ok(results)
    for r in results:
        report = r.json()
        assert report["gathered"] == [{"rank": k, "name": f"r{k}"} for k in range(2)]
        assert report["broadcast"] == {"from": 0, "list": [1, 2, 3]}
        assert report["scatter"] == f"s{r.rank}"
        assert report["gather"] == ([["g", 0], ["g", 1]] if r.rank == 0 else None)


def test_gloo_stages_npu_tensors_through_the_host():
    results = scenario("gloo_with_npu_tensors")
    assert_all_ok(results)
    reports = [r.json() for r in results]
    for r in reports:
        assert r["group_class"] == "ProcessGroupGlooNPU"
        assert r["all_reduce"] == [3.0] * 5 and r["device"] == f"npu:{r['rank']}"
        assert r["broadcast"] == [1.0] * 3
        assert r["all_gather"] == [[0.0, 0.0], [1.0, 1.0]]
        assert r["cpu_all_reduce"] == [2.0, 2.0]
    assert reports[1]["recv"] == [0.0, 1.0, 2.0] and reports[1]["recv_from"] == 0
    assert reports[0]["ddp_weight_sum"] == reports[1]["ddp_weight_sum"]  # the gradients were averaged


def test_sync_batch_norm_trains_as_one_batch_norm_over_both_ranks():
    results = scenario("sync_batch_norm")
    assert_all_ok(results)
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                              torch.nn.Flatten(), torch.nn.Linear(4 * 4 * 4, 2))
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    generator = torch.Generator().manual_seed(1)
    for _ in range(2):
        x = torch.randn(6, 3, 6, 6, generator=generator)
        optimizer.zero_grad()
        (net(x).square().sum() / 6).backward()
        optimizer.step()
    for r in results:
        report = r.json()
        assert report["type"] == "SyncBatchNorm"
        torch.testing.assert_close(torch.tensor(report["weight"]), net[0].weight.detach().flatten(), rtol=1e-4,
                                   atol=1e-5)
        torch.testing.assert_close(torch.tensor(report["running_mean"]), net[1].running_mean, rtol=1e-4, atol=1e-5)
        torch.testing.assert_close(torch.tensor(report["running_var"]), net[1].running_var, rtol=1e-4, atol=1e-5)


def test_bad_inputs_raise_clear_errors():
    results = scenario("bad_inputs")
    assert_all_ok(results)
    out = results[0].json()
    assert out["backend"] == "hccl"
    assert "must be on the NPU" in out["cpu_tensor"] and "cpu" in out["cpu_tensor"]
    assert "int64" in out["int64_reduce"] or "Long" in out["int64_reduce"]
    assert "int8, int32, float16, bfloat16 and float32" in out["int64_reduce"]
    assert "not a rank of this group" in out["bad_root"]
    assert "reduce op not supported" in out["bitwise_op"]
    assert out["after"] == [2.0] * 4


def test_mismatched_collectives_are_reported_not_hung():
    results = scenario("mismatch", timeout=90)
    assert_all_ok(results)
    for r in results:
        out = r.json()
        assert out["error"] is not None, f"rank {r.rank} did not see the mismatch"
        assert "mismatch" in out["error"], out["error"]
        assert out["seconds"] < 25, f"rank {r.rank} took {out['seconds']:.1f} s"


@pytest.mark.parametrize("transport", ["shm", "tcp"])
@pytest.mark.parametrize("world", [2, 4])
def test_killed_rank_makes_the_others_raise_long_before_the_timeout(world, transport):
    """A rank that dies without a word: over TCP its sockets close; in shared memory its
    segment lock goes (Note [Shared-memory rings]). Either way the others fail at once."""
    results = scenario("killed_rank", world=world, timeout=90,
                       env={"SCENARIO_TIMEOUT": "30", "ASCEND_SIM_HCCL_TRANSPORT": transport})
    assert results[-1].returncode == 17
    for r in results[:-1]:
        assert r.returncode == 0, repr(r)
        out = r.json()
        assert out["error"] is not None, repr(r)
        assert "all_reduce" in out["error"] or "AllReduce" in out["error"], out["error"]
        assert "rank" in out["error"] and ("seq" in out["error"].lower()), out["error"]
        assert "closed the connection" in out["error"], out["error"]
        assert out["seconds"] < 10, out


def test_silent_peer_times_out_with_watchdog_message():
    results = scenario("silent_peer", env={"SCENARIO_TIMEOUT": "4", "SCENARIO_SLEEP": "12"}, timeout=90)
    assert_all_ok(results)
    out = results[0].json()
    assert out["error"] is not None and out["seconds"] < 4 + 6, out
    assert "rank 0 of 2" in out["error"] or "rank 0" in out["error"], out["error"]
    assert out["later"] is not None and "earlier failure" in out["later"], out["later"]


def test_hccl_exec_timeout_shortens_the_timeout():
    results = scenario("silent_peer", env={"SCENARIO_TIMEOUT": "60", "HCCL_EXEC_TIMEOUT": "3", "SCENARIO_SLEEP": "10"},
                       timeout=120)
    out = results[0].json()
    assert out["error"] is not None and out["seconds"] < 3 + 6, out


def test_blocking_wait_waits_for_the_device():
    results = scenario("blocking_wait", env={"HCCL_BLOCKING_WAIT": "1"})
    assert_all_ok(results)
    for r in results:
        out = r.json()
        assert out["completed_after_wait"] is True
        assert out["value"] == 3.0


def test_destroy_and_init_again():
    results = scenario("reinit")
    assert_all_ok(results)
    assert results[0].json()["values"] == [1.0, 3.0]  # ranks hold (0, 1), then (1, 2)


def test_collectives_have_simulated_time_in_op_records():
    results = scenario("op_records")
    assert_all_ok(results)
    rows = results[0].json()["records"]
    types = [r["op_type"] for r in rows]
    assert "HcclAllReduce" in types and "HcclBroadcast" in types, rows
    assert all(r["duration_us"] > 0 for r in rows), rows


def test_profiler_trace_shows_the_communication_stream_of_a_ddp_step():
    results = scenario("profile_ddp")
    assert_all_ok(results)
    for r in results:
        report = r.json()
        assert len(report["allreduce_rows"]) == 1 and report["allreduce_rows"][0].endswith("(communication)"), report
        assert report["compute_rows"] and report["compute_rows"] != report["allreduce_rows"], report
        assert report["npu_total_us"] == report["records_us"] > 0


def test_file_init_method(tmp_path):
    results = scenario("file_init", env={"SCENARIO_FILE": str(tmp_path / f"rdzv-{uuid.uuid4().hex}")})
    assert_all_ok(results)
    assert [r.json()["value"] for r in results] == [3.0, 3.0]


def test_910a_allows_only_1_2_4_8_ranks_per_server():
    results = scenario("group_size", world=3, timeout=90)
    assert_all_ok(results)
    for r in results:
        err = r.json()["error"]
        assert err is not None and "1, 2, 4 or 8" in err, err


def test_ddp_resnet18_two_processes_equal_one_process(tmp_path):
    single = tmp_path / "single.pt"
    ddp = tmp_path / "ddp.pt"
    assert_all_ok(launch("ddp_resnet18.py", 1, args=[single], timeout=300))
    assert_all_ok(launch("ddp_resnet18.py", 2, args=[ddp], timeout=300))
    a, b = torch.load(single), torch.load(ddp)
    assert a.keys() == b.keys()
    worst = max(((a[k].double() - b[k].double()).abs().max().item() /
                 (a[k].double().abs().max().item() + 1e-12), k) for k in a if a[k].is_floating_point())
    assert worst[0] < 1e-4, f"largest relative difference {worst[0]:.2e} in {worst[1]}"


@pytest.fixture
def two_namespaces():
    with network_namespaces(2) as (ns, ips):
        yield ns, ips


def test_two_ranks_in_two_network_namespaces_over_tcp(two_namespaces):
    ns, ips = two_namespaces
    results = launch("scenarios.py", 2, args=["netns"], timeout=120,
                     per_rank_env=lambda r: {"MASTER_ADDR": ips[0], "HCCL_IF_IP": ips[r]},
                     prefix=lambda r: ["ip", "netns", "exec", ns[r]])
    assert_all_ok(results)
    for r in results:
        out = r.json()
        assert out["sum_ok"] is True and out["bcast"] == 1.0, out
