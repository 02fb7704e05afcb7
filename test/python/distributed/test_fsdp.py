"""FullyShardedDataParallel on 2 NPUs over hccl, launched with torchrun (Note [FSDP on the NPU] in
torch_npu/_patches/fsdp.py): 3 training steps match one process training on the whole batches."""
import json
import os
import subprocess

import pytest
import torch
import torch.nn as nn

from conftest import PYTHON, TEST_DIR
from dist_util import free_port

WORKER = os.path.join(TEST_DIR, "dist_workers", "fsdp_train.py")


def _single_process_reference(world=2, steps=3):
    import importlib.util
    spec = importlib.util.spec_from_file_location("fsdp_train", WORKER)
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    torch.manual_seed(0)
    model = worker.Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        x, y = worker.batch(step, world)
        loss = (model(x) - y).square().mean()
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), worker.CLIP)
        optimizer.step()
    return model.state_dict()


@pytest.mark.parametrize("config,tolerance", [("fp32", 1e-5), ("fp16", 2e-2), ("offload", 1e-5)])
def test_two_ranks_train_as_one_process(tmp_path, config, tolerance):
    result = subprocess.run([PYTHON, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port",
                             str(free_port()), WORKER, config, str(tmp_path)],
                            capture_output=True, text=True, timeout=300, cwd="/tmp")
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads((tmp_path / f"{config}.json").read_text())
    trained = torch.load(tmp_path / f"{config}.pt")
    reference = _single_process_reference()
    assert sorted(trained) == sorted(reference)
    for name, value in reference.items():
        torch.testing.assert_close(trained[name], value, rtol=tolerance, atol=tolerance, msg=name)
    assert not torch.equal(trained["l1.weight"], nn.Linear(8, 32).weight)  # sanity: it is trained weights
    assert report["same_outputs_after_reload"] and report["default_state_dict_is_full"]
    assert report["compute_device"] == "npu:0"
    total = sum(v.numel() for v in reference.values() if v.dim() > 0) - 4  # parameters, not the buffer
    assert report["sharded_param_numel"] < total  # each rank holds a shard
    assert report["output_dtypes"] == [("torch.float16" if config == "fp16" else "torch.float32")]
    assert report["state_dtype"] == "torch.float32"  # mixed precision computes in fp16, keeps fp32 parameters
