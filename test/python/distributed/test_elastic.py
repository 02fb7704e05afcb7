"""A rank killed mid-step under `torchrun --max_restarts 1` (torch 1.13 spells it with an underscore):
torchrun restarts the job, which resumes from its last checkpoint and continues with the same losses
as an uninterrupted run."""
import os
import subprocess

from conftest import PYTHON, TEST_DIR
from dist_util import free_port

WORKER = os.path.join(TEST_DIR, "dist_workers", "elastic_train.py")


def _run(out, env):
    out.mkdir()
    r = subprocess.run([PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--max_restarts", "1",
                        "--master_port", str(free_port()), WORKER, str(out)],
                       capture_output=True, text=True, timeout=300, cwd="/tmp", env={**os.environ, **env})
    assert r.returncode == 0, r.stderr[-4000:]
    lines = [line.split() for line in (out / "losses.txt").read_text().splitlines()]
    losses = {}
    for step, loss, attempt in lines:
        losses[int(step)] = (float(loss), attempt)  # a step logged twice keeps its last value
    return losses, r.stderr


def test_killed_rank_restarts_from_the_checkpoint_with_the_same_losses(tmp_path):
    reference, _ = _run(tmp_path / "uninterrupted", {})
    resumed, _ = _run(tmp_path / "killed", {"KILL_AT": "3"})
    assert sorted(reference) == sorted(resumed) == list(range(6))
    for step in range(6):
        assert resumed[step][0] == reference[step][0], (step, resumed[step], reference[step])
    # Steps 0-2 come from the first attempt, 3-5 from the restarted job.
    assert [resumed[s][1] for s in range(6)] == ["attempt=0"] * 3 + ["attempt=1"] * 3
