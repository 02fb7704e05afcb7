"""Ascend's launch conventions (Note [Rank table and servers] in torch_npu/distributed/launch_env.py):
RANK_TABLE_FILE / RANK_ID / RANK_SIZE / DEVICE_ID, and the simulated server each rank lands on."""
import json
import os
import subprocess

import pytest

from conftest import PYTHON
from dist_util import free_port
from torch_npu.distributed import launch_env
from torch_npu.tools import scaling
from torch_npu.tools.scaling import collectives

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dist_workers", "scaling_step.py")


def _table(tmp_path, servers, name="rank_table.json"):
    """servers: [(server_id, [device ids])]; ranks numbered in order."""
    rank, server_list = 0, []
    for server_id, devices in servers:
        entries = []
        for d in devices:
            entries.append({"device_id": str(d), "device_ip": f"192.168.1.{rank + 1}", "rank_id": str(rank)})
            rank += 1
        server_list.append({"server_id": server_id, "device": entries})
    path = tmp_path / name
    path.write_text(json.dumps({"version": "1.0", "server_count": str(len(servers)), "server_list": server_list,
                                "status": "completed"}))
    return str(path)


def test_the_table_fills_the_env_and_the_server(tmp_path):
    path = _table(tmp_path, [("10.0.0.1", [0, 1]), ("10.0.0.2", [0, 1])])
    env = {"RANK_TABLE_FILE": path, "RANK_ID": "3", "RANK_SIZE": "4"}
    entry = launch_env.apply(env)
    assert (entry.server_id, entry.device_id, entry.local_rank) == ("10.0.0.2", 1, 1)
    assert env["RANK"] == "3" and env["WORLD_SIZE"] == "4" and env["LOCAL_RANK"] == "1"
    assert env["DEVICE_ID"] == "1" and env["ASCEND_SIM_SERVER_ID"] == "10.0.0.2"
    env = {"RANK_TABLE_FILE": path, "RANK_ID": "1", "RANK": "1", "LOCAL_RANK": "1", "DEVICE_ID": "01"}
    launch_env.apply(env)  # the same numbers, spelt differently
    assert env["WORLD_SIZE"] == "4" and env["ASCEND_SIM_SERVER_ID"] == "10.0.0.1"


def test_torchrun_node_rank_names_the_server():
    env = {"GROUP_RANK": "1"}
    assert launch_env.apply(env) is None and env["ASCEND_SIM_SERVER_ID"] == "node1"
    env = {"GROUP_RANK": "1", "ASCEND_SIM_SERVER_ID": "mine"}
    launch_env.apply(env)
    assert env["ASCEND_SIM_SERVER_ID"] == "mine"


@pytest.mark.parametrize("case,message", [
    ("no_rank_id", "RANK_TABLE_FILE=.* is set but RANK_ID is not"),
    ("device_mismatch", "DEVICE_ID=5 but the rank table .* puts rank 1 on device 1 of server a"),
    ("size_mismatch", "RANK_SIZE=8 but the rank table .* lists 2 ranks"),
    ("unknown_rank", "no device has rank_id 7"),
    ("missing_file", "cannot be read"),
    ("not_json", "is not JSON"),
    ("duplicate_device", "device_id 0 appears twice on server a"),
    ("rank_gap", r"rank_id values must be 0..1, each once \(got \[0, 2\]\)"),
    ("numeric_server_id", r"server_list\[0\] needs a 'server_id' string \(got 7\)"),
    ("rank_mismatch", "RANK=0 but the rank table .* is read for RANK_ID=1"),
])
def test_bad_tables_and_env_are_named(tmp_path, case, message):
    path = _table(tmp_path, [("a", [0, 1])])
    env = {"RANK_TABLE_FILE": path, "RANK_ID": "1"}
    if case == "no_rank_id":
        del env["RANK_ID"]
    elif case == "device_mismatch":
        env["DEVICE_ID"] = "5"
    elif case == "size_mismatch":
        env["RANK_SIZE"] = "8"
    elif case == "unknown_rank":
        env["RANK_ID"] = "7"
    elif case == "missing_file":
        env["RANK_TABLE_FILE"] = str(tmp_path / "nope.json")
    elif case == "not_json":
        (tmp_path / "rank_table.json").write_text("{server_list")
    elif case == "duplicate_device":
        env["RANK_TABLE_FILE"] = _table(tmp_path, [("a", [0, 0])], "dup.json")
    elif case == "numeric_server_id":
        table = json.loads((tmp_path / "rank_table.json").read_text())
        table["server_list"][0]["server_id"] = 7
        (tmp_path / "rank_table.json").write_text(json.dumps(table))
    elif case == "rank_mismatch":
        env["RANK"] = "0"
    elif case == "rank_gap":
        table = json.loads((tmp_path / "rank_table.json").read_text())
        table["server_list"][0]["device"][1]["rank_id"] = "2"
        (tmp_path / "rank_table.json").write_text(json.dumps(table))
    with pytest.raises(ValueError, match=message):
        launch_env.apply(env)


def test_a_bad_table_fails_the_hccl_group_not_the_import(tmp_path):
    code = ("import torch, torch_npu, torch.distributed as dist\n"
            "try:\n"
            "    dist.init_process_group('hccl', init_method='file://%s', rank=0, world_size=1)\n"
            "except RuntimeError as e:\n"
            "    print('REFUSED', e)\n" % (tmp_path / "store"))
    env = {**os.environ, "RANK_TABLE_FILE": str(tmp_path / "missing.json"), "RANK_ID": "0"}
    r = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd="/tmp")
    assert r.returncode == 0, r.stderr
    assert "REFUSED hccl: cannot use the Ascend launch environment: rank table" in r.stdout, r.stdout + r.stderr
    assert "the hccl process group will refuse to start" in r.stderr


def test_ranks_launched_by_rank_table_sit_on_their_servers(tmp_path):
    """Two processes, no torchrun: each gets RANK_TABLE_FILE, RANK_ID and DEVICE_ID (two servers of one
    device each), and their all-reduces cross the simulated RoCE network."""
    path = _table(tmp_path, [("10.0.0.1", [0]), ("10.0.0.2", [0])])
    port = str(free_port())
    procs = []
    for rank in range(2):
        env = {k: v for k, v in os.environ.items() if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK")}
        env.update({"RANK_TABLE_FILE": path, "RANK_ID": str(rank), "RANK_SIZE": "2", "DEVICE_ID": "0",
                    "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": port})
        procs.append(subprocess.Popen([PYTHON, WORKER, str(tmp_path)], env=env, cwd="/tmp", text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-4000:]
    trace = scaling.load(tmp_path / "step_2.json")
    reduces = [t for t in trace.tasks if t.name == "HcclAllReduce"]
    assert reduces and all(":halving_doubling:p=2" in t.shapes for t in reduces)  # one NPU per server: level 1
    for t in reduces:
        c = collectives.parse(t.name, t.shapes)
        us, name = collectives.price(trace.soc, 2, 1, "allreduce", c.bytes_for(2))
        assert name == "halving_doubling" and t.duration_us == pytest.approx(us, rel=1e-9)
    # Over RoCE the same step is slower than on two NPUs of one server.
    assert trace.span_us() > scaling.predict(scaling.load(tmp_path / "step_2.json"), 1, 2).step_us
