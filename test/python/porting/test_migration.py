"""From CUDA to the NPU without editing: torch_npu.contrib.transfer_to_npu and the conversion tool
python3 -m torch_npu.tools.migrate, on the CUDA scripts of test/python/cuda_scripts/ against their hand ports."""
import csv
import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torch_npu  # noqa: F401
from torch_npu.tools import migrate

from conftest import TEST_DIR
from dist_util import free_port

SCRIPTS = os.path.join(TEST_DIR, "cuda_scripts")
TRAINING = ["train_dataloader.py", "amp_train.py", "streams_events.py"]


def _run(cmd, env=None, check=True):
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd="/tmp",
                            env=dict(os.environ, **(env or {})))
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def _report(result):
    return json.loads([line for line in result.stdout.splitlines() if line.startswith("{")][-1])


def _transfer(script, env=None, check=True):
    return _run([sys.executable, "-m", "torch_npu.contrib.transfer_to_npu", script], env, check)


def _plain(script, env=None, check=True):
    return _run([sys.executable, script], env, check)


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = tmp_path_factory.mktemp("converted")
    migrate.migrate(SCRIPTS, str(out / "scripts"))
    return out / "scripts"


@pytest.mark.parametrize("script", TRAINING)
def test_cuda_script_runs_unmodified_and_converted_with_the_manual_ports_results(script, converted):
    manual = _report(_plain(os.path.join(SCRIPTS, "manual", script)))
    transferred = _transfer(os.path.join(SCRIPTS, script))
    assert _report(transferred) == manual
    assert transferred.stderr.count("torch_npu.contrib.transfer_to_npu: CUDA calls run on the NPU") == 1
    assert _report(_plain(str(converted / script))) == manual
    if script == "train_dataloader.py":
        assert manual["pinned"] and manual["restored_equal"] and manual["parameter_device"] == "npu:0"
    if script == "amp_train.py":
        assert manual["dtypes"] == ["torch.float16"]


def _ddp(command_for_rank):
    port = free_port()
    procs = [subprocess.Popen(command_for_rank(rank), cwd="/tmp", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=dict(os.environ, RANK=str(rank), WORLD_SIZE="2", LOCAL_RANK=str(rank),
                                                  MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)))
             for rank in range(2)]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, out + err
        reports.append(json.loads([line for line in out.splitlines() if line.startswith("{")][-1]))
    return reports


def test_ddp_over_nccl_runs_on_hccl_unmodified_and_converted(converted):
    manual = _ddp(lambda rank: [sys.executable, os.path.join(SCRIPTS, "manual", "ddp_train.py")])
    transferred = _ddp(lambda rank: [sys.executable, "-m", "torch_npu.contrib.transfer_to_npu",
                                     os.path.join(SCRIPTS, "ddp_train.py")])
    conv = _ddp(lambda rank: [sys.executable, str(converted / "ddp_train.py")])
    assert transferred == manual and conv == manual
    assert manual[0]["weight_sum"] == manual[1]["weight_sum"]  # DDP kept the replicas equal


def test_spawned_children_are_redirected_too():
    """mp.spawn's children run on the NPU (Note [transfer_to_npu in child processes]), and the
    optimizer built before model.to(rank) trains the NPU weights (both ranks end equal and moved)."""
    result = _run([sys.executable, "-m", "torch_npu.contrib.transfer_to_npu", os.path.join(SCRIPTS, "spawn_ddp.py"),
                   "2", str(free_port())])
    ranks = _report(result)["ranks"]
    assert [r["device"] for r in ranks] == ["npu:0", "npu:1"]
    assert ranks[0]["weight_sum"] == ranks[1]["weight_sum"]
    torch.manual_seed(0)
    assert ranks[0]["weight_sum"] != round(torch.nn.Linear(20, 1).weight.sum().item(), 5)  # it trained
    assert result.stderr.count("torch_npu.contrib.transfer_to_npu: CUDA calls run on the NPU") == 1


def test_transfer_runs_a_module_with_dash_m(tmp_path):
    (tmp_path / "cuda_module.py").write_text("import torch\nprint(torch.ones(1).cuda().device)\n")
    result = _run([sys.executable, "-m", "torch_npu.contrib.transfer_to_npu", "-m", "cuda_module"],
                  env={"PYTHONPATH": str(tmp_path)})
    assert result.stdout.strip().splitlines()[-1] == "npu:0"


def test_torchscript_keeps_working_after_the_redirect():
    report = _report(_transfer(os.path.join(SCRIPTS, "jit_script.py")))
    assert report == {"function": [2.0, 2.0], "scripted_device": "npu:0", "traced_equal": True,
                      "scripted_equal": True}


def test_data_parallel_over_two_npus_matches_one():
    report = _report(_transfer(os.path.join(SCRIPTS, "data_parallel.py")))
    assert report["device_ids"] == [0, 1] and report["parallel"] == report["single"]


def test_rpc_with_ddp_over_gloo_and_a_distributed_optimizer():
    """RemoteModule on a parameter server, DDP over gloo with NPU tensors, distributed autograd and
    DistributedOptimizer (TorchScript functional optimizers), all under the redirect."""
    trainers = _report(_run([sys.executable, "-m", "torch_npu.contrib.transfer_to_npu",
                             os.path.join(SCRIPTS, "rpc_ddp.py"), str(free_port())]))["trainers"]
    assert [t["device"] for t in trainers] == ["npu:0", "npu:1"]
    assert trainers[0]["fc_weight_sum"] == trainers[1]["fc_weight_sum"]  # DDP kept the replicas equal
    assert all(len(t["losses"]) == 3 for t in trainers)


def test_hogwild_stops_with_the_documented_error():
    result = _transfer(os.path.join(SCRIPTS, "hogwild.py"), check=False)
    assert result.returncode != 0 and "shared" not in result.stdout
    assert "NPU memory cannot be shared with another process" in result.stderr


def test_a_cuda_only_api_is_named_by_both_routes(converted, tmp_path):
    result = _transfer(os.path.join(SCRIPTS, "cuda_only.py"), check=False)
    assert result.returncode != 0
    assert "torch.cuda.nvtx.range_push is CUDA-only" in result.stderr, result.stderr
    with open(os.path.join(str(converted), "unsupported_apis.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["file"] == "cuda_only.py"]
    assert [(r["line"], r["api"]) for r in rows] == [("7", "torch.cuda.nvtx.range_push"),
                                                     ("9", "torch.cuda.nvtx.range_pop")]
    assert all("record_function" in r["reason"] for r in rows)


def test_migrate_report_lists_every_change_and_a_second_run_changes_nothing(converted, tmp_path):
    with open(os.path.join(str(converted), "migration_report.csv")) as f:
        rows = list(csv.DictReader(f))
    for row in rows:  # every change: the converted line is what the file now has at that line (+ imports)
        assert row["converted"] in open(os.path.join(str(converted), row["file"])).read()
        assert row["original"] != row["converted"] or row["rule"].startswith("import")
    by_file = {}
    for row in rows:
        by_file.setdefault(row["file"], []).append(row["rule"])
    assert "import import torch_npu" in by_file["amp_train.py"]
    assert "api torch.cuda.amp -> torch.npu.amp" in by_file["amp_train.py"]
    assert "backend nccl -> hccl" in by_file["ddp_train.py"]
    assert not any(f.startswith("manual") for f in by_file)  # the hand ports need nothing
    again = tmp_path / "again"
    _, n_changes, _ = migrate.migrate(str(converted), str(again))
    assert n_changes == 0
    for name in TRAINING + ["ddp_train.py", "cuda_only.py"]:
        assert (again / name).read_text() == (converted / name).read_text()


def _convert(source, extra=()):
    return migrate.convert_source(textwrap.dedent(source), migrate.load_rules(extra))


def test_rule_api_prefixes_take_the_longest_match_and_keep_comments():
    out, changes, _ = _convert("""
        import torch  # torch.cuda stays in comments
        torch.cuda.set_device(1)
        from torch.cuda.amp import autocast
        s = torch.cuda.amp.GradScaler()
        x = torch.cudax.foo  # not torch.cuda
    """)
    assert "torch.npu.set_device(1)" in out and "from torch.npu.amp import autocast" in out
    assert "torch.npu.amp.GradScaler()" in out and "torch.cudax.foo  # not torch.cuda" in out
    assert "# torch.cuda stays in comments" in out
    assert ("api torch.cuda.amp -> torch.npu.amp") in [rule for _, rule in changes]


def test_rule_attributes_rename_calls_and_is_cuda_only():
    out, _, _ = _convert("""
        import torch
        y = model(x).cuda(non_blocking=True)
        f = t.cuda
        ok = t.is_cuda and cuda(3)
    """)
    assert "model(x).npu(non_blocking=True)" in out and "f = t.cuda\n" in out
    assert "ok = t.is_npu and cuda(3)" in out


def test_rule_strings_rewrite_device_and_backend_literals_only():
    out, _, _ = _convert("""
        import torch
        a = torch.device("cuda")
        b = 'cuda:1'
        c = f"cuda:{rank}"
        d = dist.init_process_group(backend='nccl')
        e = "cudafoo", "my cuda", "nccl2"
    """)
    assert 'torch.device("npu")' in out and "'npu:1'" in out and 'f"npu:{rank}"' in out
    assert "backend='hccl'" in out and 'e = "cudafoo", "my cuda", "nccl2"' in out


def test_rule_import_is_added_once_after_the_first_torch_import_with_its_indentation():
    out, _, _ = _convert("""
        try:
            import torch
        except ImportError:
            torch = None
        import torch
    """)
    assert out.count("import torch_npu") == 1 and "    import torch\n    import torch_npu\nexcept" in out
    out, changes, _ = _convert("import torch, torch_npu\nx = 1\n")
    assert out == "import torch, torch_npu\nx = 1\n" and changes == []
    out, _, _ = _convert("from torch import (\n    nn,\n)\nimport os\n")
    assert out == "from torch import (\n    nn,\n)\nimport torch_npu\nimport os\n"
    assert _convert("import os\n")[0] == "import os\n"  # no torch: nothing to add


def test_rule_unsupported_apis_are_reported_and_left_alone():
    out, changes, unsupported = _convert("""
        import torch
        g = torch.cuda.CUDAGraph()
        torch.cuda.nvtx.range_push("x")
    """)
    assert "torch.npu.NPUGraph()" in out and 'torch.cuda.nvtx.range_push("x")' in out
    assert [(line, api) for line, api, _ in unsupported] == [(4, "torch.cuda.nvtx.range_push")]


def test_custom_rule_files_extend_the_built_in_rules(tmp_path):
    rules = tmp_path / "mine.json"
    rules.write_text(json.dumps({"api": [{"from": "mylib.gpu", "to": "mylib.npu"}],
                                 "unsupported": [{"api": "mylib.cudnn_only", "reason": "mine"}]}))
    out, _, unsupported = _convert("import torch\nmylib.gpu.run()\nmylib.cudnn_only()\nx.cuda()\n", [str(rules)])
    assert "mylib.npu.run()" in out and "x.npu()" in out and unsupported[0][1:] == ("mylib.cudnn_only", "mine")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"apis": []}))
    with pytest.raises(ValueError, match="unknown rule kinds"):
        migrate.load_rules([str(bad)])


def test_rule_arguments_add_a_keyword_to_calls_that_pass_another():
    out, changes, _ = _convert("""
        import torch
        a = torch.utils.data.DataLoader(ds, batch_size=4, pin_memory=True)
        b = DataLoader(
            ds,
            pin_memory=True,  # fast copies
        )
        c = DataLoader(ds, pin_memory=True, pin_memory_device="npu")
        d = DataLoader(ds, collate_fn=make(pin_memory=True))
    """)
    assert 'DataLoader(ds, batch_size=4, pin_memory=True, pin_memory_device="npu")' in out
    assert '    pin_memory=True, pin_memory_device="npu",  # fast copies\n)' in out
    assert out.count("pin_memory_device") == 3  # c had it; d passes pin_memory to another call
    assert [rule for _, rule in changes].count('argument DataLoader(..., pin_memory_device="npu")') == 2


_CHECKS = textwrap.dedent("""
    import io, json, torch, torch.distributed as dist
    buffer = io.BytesIO()  # a checkpoint saved on a GPU: its storages are tagged cuda:0
    real_tag, torch.serialization.location_tag = torch.serialization.location_tag, lambda storage: "cuda:0"
    torch.save({"w": torch.arange(3.0)}, buffer)
    torch.serialization.location_tag = real_tag
    import torch_npu.contrib.transfer_to_npu
    import torch_npu.contrib.transfer_to_npu  # a second import changes nothing
    out = {}
    out["device"] = [str(torch.device("cuda:1")), str(torch.device("cuda", 0)), str(torch.device("cpu"))]
    out["isinstance"] = isinstance(torch.device("cuda"), torch.device)
    out["factories"] = [torch.zeros(2, device="cuda").device.type, torch.ones(1, device=0).device.type,
                        torch.ones(1).new_zeros(2, device="cuda").device.type]
    out["to"] = [str(torch.ones(1).to(0).device), str(torch.ones(1).cuda().device),
                 str(torch.nn.Linear(1, 1).to("cuda").weight.device), str(torch.ones(1).to(torch.float16).dtype)]
    out["cuda_api"] = [torch.cuda.is_available(), torch.cuda.device_count() == torch.npu.device_count(),
                       torch.cuda.current_device(), torch.cuda.get_device_name().startswith("Ascend")]
    out["generator"] = str(torch.Generator("cuda").device)
    out["nccl"] = dist.is_nccl_available()
    out["graph"] = type(torch.cuda.CUDAGraph()).__name__
    torch.cuda.memory._record_memory_history(True)
    kept = torch.ones(1000, device="cuda")
    out["memory_history"] = sum(len(b.get("history", [])) for s in torch.cuda.memory._snapshot() for b in s["blocks"])
    torch.cuda.memory._record_memory_history(False)
    try:
        torch.cuda.nvtx.range_push("x")
    except RuntimeError as e:
        out["nvtx_error"] = str(e)
    out["autocast"] = type(torch.autocast("cuda")).__module__
    out["pinned"] = torch.ones(3).pin_memory().is_pinned()
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.deterministic = True
    buffer.seek(0)
    out["cuda_checkpoint"] = str(torch.load(buffer)["w"].device)
    print(json.dumps(out))
""")


def test_transfer_redirects_devices_torch_cuda_generators_and_names_what_it_cannot(tmp_path):
    script = tmp_path / "checks.py"
    script.write_text(_CHECKS)
    result = _plain(str(script))
    out = _report(result)
    assert result.stderr.count("CUDA calls run on the NPU") == 1, result.stderr
    assert out["device"] == ["npu:1", "npu:0", "cpu"] and out["isinstance"]
    assert out["factories"] == ["npu", "npu", "npu"]
    assert out["to"] == ["npu:0", "npu:0", "npu:0", "torch.float16"]
    assert out["cuda_api"] == [True, True, 0, True]
    assert out["generator"] == "npu:0" and out["nccl"] and out["pinned"]
    assert out["graph"] == "NPUGraph" and out["memory_history"] >= 1
    assert out["nvtx_error"].startswith("torch.cuda.nvtx.range_push is CUDA-only")
    assert out["autocast"] == "torch_npu.npu.amp.autocast_mode"
    assert out["cuda_checkpoint"] == "npu:0"


def test_pin_memory_for_the_npu_without_transfer():
    cpu = torch.randn(8, 5)
    pinned = cpu.pin_memory("npu")
    assert pinned.is_pinned("npu") and not cpu.is_pinned("npu") and torch.equal(pinned, cpu)
    assert torch.equal(pinned.to("npu", non_blocking=True).cpu(), cpu)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(cpu), batch_size=4, pin_memory=True,
                                         pin_memory_device="npu")
    assert all(batch.is_pinned("npu") for (batch,) in loader)
    with pytest.raises(RuntimeError, match="only dense CPU tensors can be pinned"):
        torch.ones(2).npu().pin_memory("npu")
