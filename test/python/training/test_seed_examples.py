"""The seed models' examples (examples/seed_models/) train on the NPU like on the CPU (issue 36).

Each example's main() trains its model 3 steps at CI size on npu:0 and the same
weights and batches on the CPU (must_keep_origin_dtype). Asserted: no operator
ran on the host (no `host_fallback` op record, training and evaluation), the
first step's loss within 1e-4 relative of the CPU's, a positive simulated device
time per step, and the per-step print of loss, images/s and simulated time.
"""
import importlib
import os
import re
import sys

import pytest

from conftest import REPO_ROOT

EXAMPLES = os.path.join(REPO_ROOT, "examples", "seed_models")
# CI-sized arguments per example (each trains in a second or two). DenseNet's last dense block runs
# at 1/32 scale: a 64-pixel image keeps 2 x 2 x batch values per BatchNorm channel there (at 32 pixels,
# 1 x 1 x 2: BatchNorm over two values turns a 1e-5 difference of its input into a 10 % one).
ARGS = {
    "yolov3": ["--image-size", "64", "--batch-size", "2"],
    "crnn": ["--image-size", "64", "--batch-size", "4"],
    "db_text": ["--image-size", "64", "--batch-size", "2"],
    "rfcn": ["--image-size", "64", "--batch-size", "2"],
    "densenet": ["--image-size", "64", "--batch-size", "2"],
}


@pytest.fixture(scope="module")
def examples_path():
    sys.path.insert(0, EXAMPLES)
    yield
    sys.path.remove(EXAMPLES)


@pytest.mark.parametrize("name", list(ARGS))
def test_seed_example_trains_like_the_cpu(name, examples_path, capsys):
    example = importlib.import_module(name)
    result = example.main(["--steps", "3", "--top-ops", "3", *ARGS[name]])
    out = capsys.readouterr().out
    assert not result.host_fallbacks, result.host_fallbacks
    assert len(result.npu_losses) == len(result.cpu_losses) == 3
    assert result.first_step_rel_diff <= 1e-4, (result.npu_losses, result.cpu_losses)
    assert all(ms > 0 for ms in result.sim_ms), result.sim_ms
    steps = re.findall(r"step +\d+  loss +[0-9.]+ +[0-9.]+ img/s  sim +[0-9.]+ ms", out)
    assert len(steps) == 3, out
    assert "host fallbacks: none" in out and "evaluation:" in out, out
