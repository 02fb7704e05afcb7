"""Debian's torch 1.13 on Python 3.11, repaired at start-up (Note [Torch 1.13 on Python 3.11] in
torch_npu/_startup_fixes.py): torchrun and torch.distributed.launch with their defaults, and the
FSDP and _shard packages, in processes that never import torch_npu themselves."""
import subprocess

import pytest

from conftest import PYTHON, run_python
from dist_util import free_port

_WORKER = r"""
import os, torch, torch_npu, torch.distributed as dist
dist.init_process_group("hccl")
rank = dist.get_rank()
torch.npu.set_device(rank)
t = torch.ones(3, device=f"npu:{rank}") * (rank + 1)
dist.all_reduce(t)
os.write(1, f"rank {rank} {t.cpu().tolist()}\n".encode())  # one write: the ranks share stdout
dist.destroy_process_group()
"""


def test_fsdp_and_shard_import_without_torch_npu():
    result = run_python("""
        import sys
        import torch.distributed.fsdp, torch.distributed._shard, torch.distributed._shard.checkpoint
        from torch.distributed._shard.sharded_tensor.metadata import ShardedTensorMetadata
        a, b = ShardedTensorMetadata(), ShardedTensorMetadata()
        assert a.tensor_properties is not b.tensor_properties  # a factory, not one shared default
        assert "torch_npu" not in sys.modules
    """)
    assert result.returncode == 0, result.stderr


def test_std_from_str_parses_every_value():
    result = run_python("""
        from torch.distributed.elastic.multiprocessing.api import Std
        assert Std.from_str("0") is Std.NONE and Std.from_str("3") is Std.ALL
        assert Std.from_str("0:3,1:0,2:1,3:2") == {0: Std.ALL, 1: Std.NONE, 2: Std.OUT, 3: Std.ERR}
    """)
    assert result.returncode == 0, result.stderr


def test_debians_files_are_untouched():
    import torch.distributed._shard.sharded_tensor.metadata as metadata
    with open(metadata.__file__) as f:
        assert "field(default=TensorProperties())" in f.read()  # repaired in memory only


@pytest.mark.parametrize("launcher", [
    ["-m", "torch.distributed.run"],
    ["-m", "torch.distributed.launch", "--use_env"],
], ids=["torchrun", "launch"])
def test_launchers_run_with_their_defaults(tmp_path, launcher):
    script = tmp_path / "worker.py"
    script.write_text(_WORKER)
    result = subprocess.run([PYTHON, *launcher, "--nproc_per_node", "2", "--master_port", str(free_port()),
                             str(script)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    lines = sorted(line for line in result.stdout.splitlines() if line.startswith("rank"))
    assert lines == ["rank 0 [3.0, 3.0, 3.0]", "rank 1 [3.0, 3.0, 3.0]"]
